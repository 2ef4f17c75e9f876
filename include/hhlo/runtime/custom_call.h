// Custom calls: user kernels called from StableHLO `custom_call` ops.
// CPU: typed XLA FFI handlers registered in the plugin's own registry through the PJRT FFI
// extension (PJRT_FFI_Extension::register_handler). GPU: the PJRT_Gpu_Custom_Call extension.
// See DESIGN.md, "Custom calls".
#pragma once

#include <string>

#include "hhlo/runtime/plugin.h"

namespace hhlo {

/// Registers a typed XLA FFI handler (an `XLA_FFI_Handler*`, e.g. made with
/// XLA_FFI_DEFINE_HANDLER_SYMBOL) under `target_name` for `platform` ("Host" for the CPU plugin,
/// "CUDA" for the GPU plugin), through PJRT_FFI_Extension::register_handler. Programs then call
/// it with `stablehlo.custom_call @target_name(...) {api_version = 4 : i32, ...}`.
/// Throws hhlo::PluginError when the plugin has no FFI extension (naming its PJRT API version),
/// hhlo::PjrtError when the plugin refuses the registration.
void register_custom_call(const Plugin& plugin, const std::string& target_name, void* handler,
                          const std::string& platform = "Host");

}  // namespace hhlo
