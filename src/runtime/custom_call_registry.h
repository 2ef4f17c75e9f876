// Private to the runtime: what this process registered with each plugin through custom_call.h
// (typed FFI handler targets, user-data type names), so that an execution can be refused with an
// error naming the target instead of crashing (see executable.cc, launch).
#pragma once

#include <cstdint>
#include <string>

#include "hhlo/runtime/plugin.h"
#include "pjrt_abi.h"

namespace hhlo::detail {

/// Records that the typed FFI handler target `target` was registered with `plugin`.
void note_custom_call_target(const Plugin& plugin, const std::string& target);
/// Records the name of the user-data type `type_id` registered with `plugin`.
void note_custom_call_type(const Plugin& plugin, int64_t type_id, const std::string& name);

/// True when this process registered a typed FFI handler with `plugin` (register_custom_call)
/// and the plugin can make execute contexts (PJRT_ExecuteContext_Create, FFI user_data_add).
/// Such executions get an execute context even without user data: a handler that decodes
/// ffi::UserData<T> then fails with an error instead of dereferencing a null context (fact: both
/// CPU plugins die with SIGSEGV in XLA_FFI_ExecutionContext_Get without one).
bool has_custom_call_targets(const Plugin& plugin);

/// `message` (an execution error of `executable`), with the custom call target(s) named when it
/// is the plugin's "User data with type id N not found in execution context": the registered
/// targets the compiled program calls (PJRT_Executable_OptimizedProgram) and the name of type N.
/// Unchanged for any other message.
std::string explain_execute_error(const Plugin& plugin, PJRT_LoadedExecutable* executable,
                                  const std::string& message);

}  // namespace hhlo::detail
