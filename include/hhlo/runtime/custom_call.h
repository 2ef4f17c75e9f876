// Custom calls: user kernels called from StableHLO `custom_call` ops.
// CPU: typed XLA FFI handlers registered in the plugin's own registry through the PJRT FFI
// extension (PJRT_FFI_Extension::register_handler). GPU: the PJRT_Gpu_Custom_Call extension.
// See DESIGN.md, "Custom calls".
//
// A kernel library is an ordinary shared library exporting XLA FFI handler symbols, e.g.
//   XLA_FFI_DEFINE_HANDLER_SYMBOL(my_add, MyAddImpl, ffi::Ffi::Bind().Arg<...>().Ret<...>());
// Register it once per process and plugin, then call it from a program:
//   hhlo::register_custom_call_library(plugin, "libkernels.so", {"my_add"});
//   %r = stablehlo.custom_call @my_add(%a, %b) {api_version = 4 : i32} : (...) -> ...
// Handlers must catch their own C++ exceptions (XLA is C underneath: an exception that escapes a
// handler terminates the process) and must not call back into PJRT.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hhlo/runtime/plugin.h"

/// One entry of a kernel library's target list (see register_kernel_library): a custom-call
/// target name, its typed XLA FFI handler (an `XLA_FFI_Handler*` as `void*`) and the platform
/// ("Host" when null). Plain C so that any kernel library can define it.
extern "C" {
struct HhloCustomCallTarget {
  const char* target;
  void* handler;
  const char* platform;
};
}

/// The well-known symbol a kernel library exports to list its targets:
/// `extern "C" const HhloCustomCallTarget* hhlo_custom_call_targets(size_t* count)`; define it with
/// HHLO_CUSTOM_CALL_TARGETS (hhlo/runtime/custom_call_kernel.h).
#define HHLO_CUSTOM_CALL_TARGETS_SYMBOL "hhlo_custom_call_targets"

namespace hhlo {

/// XLA FFI handler traits (XLA_FFI_Handler_TraitsBits / PJRT_FFI_Handler_TraitsBits).
enum class CustomCallTraits : uint32_t {
  none = 0,
  /// The handler may be recorded into a GPU command buffer (CUDA graph). Ignored on CPU.
  command_buffer_compatible = 1,
};

/// Registers a typed XLA FFI handler (an `XLA_FFI_Handler*`, e.g. made with
/// XLA_FFI_DEFINE_HANDLER_SYMBOL) under `target_name` for `platform` ("Host" for the CPU plugin,
/// "CUDA" for the GPU plugin), through PJRT_FFI_Extension::register_handler. Programs then call
/// it with `stablehlo.custom_call @target_name(...) {api_version = 4 : i32, ...}`.
/// The registry is process-wide inside the plugin and has no unregister; registering the same
/// handler again is a no-op, a different handler under a registered (target, platform) is
/// refused (the plugin itself would keep the first and ignore the second without an error).
/// Before registering, the handler is asked for its XLA FFI API version with the metadata call
/// XLA itself makes (the plugin's version is learnt once, by registering an internal probe
/// target "hhlo.internal.ffi_version_probe"), because the plugin silently drops a handler built
/// with newer XLA FFI headers than its own.
/// Throws hhlo::PluginError when the plugin has no FFI extension (naming its PJRT API version),
/// when the handler reports a newer XLA FFI version than the plugin implements or fails the
/// metadata call; hhlo::PjrtError when the plugin refuses the registration; hhlo::Error on a
/// null handler, an empty target name, or a second handler for a registered target.
void register_custom_call(const Plugin& plugin, const std::string& target_name, void* handler,
                          const std::string& platform = "Host");
/// As above, with handler traits.
void register_custom_call(const Plugin& plugin, const std::string& target_name, void* handler,
                          const std::string& platform, CustomCallTraits traits);

/// The targets of `targets` (custom_call target names, e.g. those a program calls) that nothing
/// in this process registered with `plugin` through this header (register_custom_call, a kernel
/// or custom-call library, register_gpu_custom_call) and that XLA does not resolve itself (the
/// SPMD partitioner's `Sharding`, `SPMDFullToShardShape` and `SPMDShardToFullShape`, Shardy's
/// `xla.sdy.*`, `annotate_device_placement`, `MoveToHost`, `MoveToDevice`, `LayoutConstraint`,
/// `TopK`, `ApproxTopK`): in the order given, each once. Compiles nothing: after the plugin
/// refused a program for an unregistered target (PjrtErrorCode::not_found, naming only the
/// first), this names the others. Never throws.
std::vector<std::string> unregistered_custom_call_targets(const Plugin& plugin,
                                                          const std::vector<std::string>& targets);

/// A kernel library loaded for the lifetime of the process (never dlclose'd: XLA keeps pointers
/// to registered handlers). Cheap to copy.
class CustomCallLibrary {
 public:
  /// The path the library was loaded from, as given.
  const std::string& path() const { return path_; }
  /// The address of exported symbol `name` (dlsym). Throws hhlo::PluginError naming the symbol
  /// and the library when it is not exported.
  void* symbol(const std::string& name) const;
  /// The address of `name`, or null when the library does not export it.
  void* find_symbol(const std::string& name) const noexcept;

  /// Internal.
  CustomCallLibrary(std::string path, void* handle) : path_(std::move(path)), handle_(handle) {}

 private:
  std::string path_;
  void* handle_ = nullptr;
};

/// Loads a kernel library with dlopen(path, RTLD_NOW | RTLD_LOCAL), once per path (later calls
/// return the same handle). A `path` without a slash is a file in the current folder (`libk.so`
/// is `./libk.so`), never searched on the library path. RTLD_LOCAL: each library resolves its own
/// symbols, so two libraries exporting a handler symbol of one name each keep their own. Loading
/// alone makes nothing callable from a program: register its handlers with register_custom_call
/// or use register_custom_call_library.
/// Throws hhlo::PluginError with the path and the dlerror() text when it cannot be loaded; before
/// dlopen, with the path and "the file is truncated" when the file is a 64-bit ELF file whose
/// loadable segments lie past its end (dlopen of such a file dies with SIGBUS), and with both
/// machines named when it is an ELF file for another architecture (e.g. AArch64 on x86-64).
CustomCallLibrary load_custom_call_library(const std::string& path);

/// One target to register from a kernel library: the custom_call target name and the exported
/// handler symbol (the same name when only the target is given).
struct CustomCallSymbol {
  CustomCallSymbol(const char* target_and_symbol) : target(target_and_symbol), symbol(target) {}
  CustomCallSymbol(std::string target_and_symbol)
      : target(std::move(target_and_symbol)), symbol(target) {}
  CustomCallSymbol(std::string target_name, std::string symbol_name)
      : target(std::move(target_name)), symbol(std::move(symbol_name)) {}
  std::string target;
  std::string symbol;
};

/// Loads the library at `path` (load_custom_call_library) and registers each exported typed FFI
/// handler symbol under its target name for `platform` (register_custom_call), e.g.
/// `register_custom_call_library(plugin, "libk.so", {"rms_norm", {"add", "k_vector_add"}})`.
/// Every symbol is looked up before anything is registered, so a missing symbol registers none.
/// Returns the library. Throws hhlo::PluginError when the library cannot be loaded or a symbol is
/// missing (naming both), and what register_custom_call throws.
CustomCallLibrary register_custom_call_library(const Plugin& plugin, const std::string& path,
                                               const std::vector<CustomCallSymbol>& targets,
                                               const std::string& platform = "Host");

/// Loads the kernel library at `path` (load_custom_call_library) and registers every handler it
/// lists through its exported HHLO_CUSTOM_CALL_TARGETS_SYMBOL function (register_custom_call), as
/// `hhlo run --custom-call-library` does. Returns the registered target names, in list order.
/// Throws hhlo::IoError when `path` does not exist; hhlo::PluginError when it cannot be loaded or
/// is not a kernel library (exports no target list), and when its list has an empty or null
/// entry or names one target twice; hhlo::Error when a target is already registered with another
/// handler (e.g. by another library: the message names both libraries); what
/// register_custom_call throws.
std::vector<std::string> register_kernel_library(const Plugin& plugin, const std::string& path);

/// Registers an external type name in XLA's FFI type registry (PJRT_FFI_Extension::
/// type_id_register) and returns its type id, for user data passed to handlers through
/// ExecuteOptions::user_data and decoded in handlers with `ffi::UserData<T>` (T::id must hold the
/// returned id). An execution whose handler finds no user data of its type is refused with a
/// hhlo::PjrtError naming the target and this type name (see ExecuteOptions::user_data). `type_id`
/// 0 lets XLA choose; otherwise XLA checks it against an earlier registration of the same name.
/// Registering the same name again returns the same id. Throws hhlo::PluginError when the plugin
/// has no FFI extension, hhlo::PjrtError on refusal.
int64_t register_custom_call_type(const Plugin& plugin, const std::string& type_name,
                                  int64_t type_id = 0);

/// The two GPU custom-call ABIs of PJRT_Gpu_Register_Custom_Call_Args::api_version.
enum class GpuCustomCallApi : int {
  /// api_version 0: an untyped kernel
  /// `void f(cudaStream_t, void** buffers, const char* opaque, size_t opaque_len,
  /// XlaCustomCallStatus*)`, called from MLIR `api_version = 2` (status returning) with a string
  /// `backend_config` as opaque.
  legacy = 0,
  /// api_version 1: a typed XLA FFI handler (execute stage), called from MLIR `api_version = 4`.
  typed = 1,
};

/// Loads the library at `lib_path` and registers its exported symbol `symbol` (default: the
/// target name) as the GPU custom-call target `target_name` through the plugin's
/// PJRT_Gpu_Custom_Call extension (PJRT_Gpu_Register_Custom_Call), platform "CUDA".
/// A typed handler is first checked for its XLA FFI version as in register_custom_call.
/// Throws hhlo::PluginError when the plugin has no GPU custom-call extension (on the CPU plugin:
/// "the CPU plugin has no GPU custom-call extension"), when the library cannot be loaded or the
/// symbol is missing, when a typed handler's XLA FFI version is newer than the plugin's;
/// hhlo::PjrtError when the plugin refuses the registration.
void register_gpu_custom_call(const Plugin& plugin, const std::string& lib_path,
                              const std::string& target_name,
                              GpuCustomCallApi api = GpuCustomCallApi::legacy,
                              const std::string& symbol = {});

}  // namespace hhlo
