// Private to the runtime: our own declarations of the PJRT C API extensions that the pinned wheels
// ship no header for (the FFI extension, PJRT_Extension_Type_FFI, and the GPU custom-call
// extension, PJRT_Extension_Type_Gpu_Custom_Call). Layouts follow OpenXLA's
// xla/pjrt/c/pjrt_c_api_{ffi,gpu}_extension.h; the static_asserts pin sizes and offsets, so a
// layout drift is a compile error, not a silent misread.
//
// The FFI structs below are the layout of xla-cpu-pjrt 0.0.1 (PJRT C API 0.81), whose size checks
// name them: PJRT_FFI_Type_Register_Args 48 bytes, PJRT_FFI_Register_Handler_Args 52; the default
// lammps-jax-pjrt-cpu 0.11.2 (0.115) takes the same (the custom-call suite runs on both).
// Two versions of the handler-registration args exist in the wild:
//  - FfiRegisterHandlerArgs: 7 fields, 52 bytes as the plugin counts it (offsetof(traits) + 4). The
//    pinned CPU plugins expect exactly this size (they say so when given a smaller struct).
//  - FfiRegisterHandlerArgsV: the variant with an `api_version` int after target_name_size
//    (0 untyped, 1 typed), 60 bytes as the plugin counts it.
// Both start with struct_size, so a plugin rejects the smaller one before reading anything else:
// custom_call.cc tries the 52-byte form first and falls back to the other on a size error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "hhlo/runtime/executable.h"
#include "hhlo/runtime/plugin.h"
#include "pjrt_abi.h"

namespace hhlo::detail {

// ---- FFI extension (PJRT_Extension_Type_FFI) -------------------------------------------------

/// PJRT_FFI_Type_Info: callbacks XLA may use for a registered external type (all optional).
struct FfiTypeInfo {
  void (*deleter)(void* object);
  void* serialize;
  void* deserialize;
};
static_assert(sizeof(FfiTypeInfo) == 24);

/// PJRT_FFI_Type_Register_Args: registers an external type name in XLA's FFI type registry.
/// `type_id` is in-out: 0 asks XLA to assign one. (The 2024 form, PJRT_FFI_TypeID_Register_Args,
/// ended at type_id, 40 bytes; the pinned CPU plugin wants this 48-byte form.)
struct FfiTypeRegisterArgs {
  std::size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* type_name;
  std::size_t type_name_size;
  int64_t type_id;
  const FfiTypeInfo* type_info;
};
inline constexpr std::size_t kFfiTypeRegisterArgsSize =
    offsetof(FfiTypeRegisterArgs, type_info) + sizeof(void*);
static_assert(offsetof(FfiTypeRegisterArgs, type_id) == 32 && kFfiTypeRegisterArgsSize == 48);

/// PJRT_FFI_UserData: one user-data entry of an execute context (not owned by the context).
/// (The 2024 form had a third member, a deleter; a plugin of either form reads the first two.)
struct FfiUserData {
  int64_t type_id;
  void* data;
};
static_assert(sizeof(FfiUserData) == 16);

/// PJRT_FFI_UserData_Add_Args: adds `user_data` to `context`.
struct FfiUserDataAddArgs {
  std::size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_ExecuteContext* context;
  FfiUserData user_data;
};
inline constexpr std::size_t kFfiUserDataAddArgsSize =
    offsetof(FfiUserDataAddArgs, user_data) + sizeof(FfiUserData);
static_assert(offsetof(FfiUserDataAddArgs, user_data) == 24 && kFfiUserDataAddArgsSize == 40);

/// PJRT_FFI_Register_Handler_Args, the form without `api_version` (typed FFI handlers only).
struct FfiRegisterHandlerArgs {
  std::size_t struct_size;
  const char* target_name;
  std::size_t target_name_size;
  void* handler;  // XLA_FFI_Handler*
  const char* platform_name;
  std::size_t platform_name_size;
  uint32_t traits;  // PJRT_FFI_Handler_TraitsBits
};
inline constexpr std::size_t kFfiRegisterHandlerArgsSize =
    offsetof(FfiRegisterHandlerArgs, traits) + sizeof(uint32_t);
static_assert(offsetof(FfiRegisterHandlerArgs, handler) == 24 && kFfiRegisterHandlerArgsSize == 52);

/// PJRT_FFI_Register_Handler_Args, the form with `api_version` (0 untyped, 1 typed).
struct FfiRegisterHandlerArgsV {
  std::size_t struct_size;
  const char* target_name;
  std::size_t target_name_size;
  int api_version;
  void* handler;
  const char* platform_name;
  std::size_t platform_name_size;
  uint32_t traits;
};
inline constexpr std::size_t kFfiRegisterHandlerArgsVSize =
    offsetof(FfiRegisterHandlerArgsV, traits) + sizeof(uint32_t);
static_assert(offsetof(FfiRegisterHandlerArgsV, handler) == 32 &&
              kFfiRegisterHandlerArgsVSize == 60);

using FfiTypeRegisterFn = PJRT_Error* (*)(FfiTypeRegisterArgs*);
using FfiUserDataAddFn = PJRT_Error* (*)(FfiUserDataAddArgs*);
/// Takes FfiRegisterHandlerArgs or FfiRegisterHandlerArgsV, told apart by struct_size.
using FfiRegisterHandlerFn = PJRT_Error* (*)(void*);

/// PJRT_FFI_Extension. `register_handler` exists only when base.struct_size covers it
/// (the 2024 version of the extension ended after user_data_add, 40 bytes).
struct FfiExtension {
  PJRT_Extension_Base base;
  FfiTypeRegisterFn type_register;
  FfiUserDataAddFn user_data_add;
  FfiRegisterHandlerFn register_handler;
};
static_assert(offsetof(FfiExtension, type_register) == 24);
static_assert(offsetof(FfiExtension, register_handler) == 40 && sizeof(FfiExtension) == 48);

// ---- GPU custom-call extension (PJRT_Extension_Type_Gpu_Custom_Call) -------------------------

/// PJRT_Gpu_Register_Custom_Call_Args. api_version 0: legacy untyped kernel in handler_execute;
/// 1: typed XLA FFI handlers (the four stages; execute required). `traits` was added in version 3
/// of the extension and is read only when the extension's custom_call_handles_traits is set; an
/// older plugin accepts the larger struct and ignores it.
struct GpuRegisterCustomCallArgs {
  std::size_t struct_size;
  const char* function_name;
  std::size_t function_name_size;
  int api_version;
  void* handler_instantiate;
  void* handler_prepare;
  void* handler_initialize;
  void* handler_execute;
  uint32_t traits;
};
inline constexpr std::size_t kGpuRegisterCustomCallArgsSize =
    offsetof(GpuRegisterCustomCallArgs, traits) + sizeof(uint32_t);
static_assert(offsetof(GpuRegisterCustomCallArgs, handler_execute) == 56 &&
              kGpuRegisterCustomCallArgsSize == 68);

using GpuRegisterCustomCallFn = PJRT_Error* (*)(GpuRegisterCustomCallArgs*);

/// PJRT_Gpu_Custom_Call.
struct GpuCustomCallExtension {
  PJRT_Extension_Base base;
  GpuRegisterCustomCallFn custom_call;
  bool custom_call_handles_traits;  // version 3 and later
};
static_assert(offsetof(GpuCustomCallExtension, custom_call) == 24 &&
              offsetof(GpuCustomCallExtension, custom_call_handles_traits) == 32);

// ---- Execute contexts (custom_call_context.cc) -----------------------------------------------

/// Owns a PJRT_ExecuteContext (PJRT_ExecuteContext_Create / _Destroy) that carries FFI user data
/// into one execution.
using ExecuteContext = PjrtHandle<PJRT_ExecuteContext>;

/// A new execute context of `plugin` holding every entry of `user_data` (PJRT_FFI_Extension::
/// user_data_add, no deleter: the caller owns the data). Throws PluginError when the plugin lacks
/// execute contexts or the FFI extension, PjrtError when it refuses an entry.
std::shared_ptr<ExecuteContext> make_execute_context(
    const Plugin& plugin, const std::vector<CustomCallUserData>& user_data);

/// The first extension of `type` in the plugin's chain, or null.
inline const PJRT_Extension_Base* find_extension(const PJRT_Api* api, PJRT_Extension_Type type) {
  for (const PJRT_Extension_Base* e = api->extension_start; e; e = e->next)
    if (e->type == type) return e;
  return nullptr;
}

}  // namespace hhlo::detail
