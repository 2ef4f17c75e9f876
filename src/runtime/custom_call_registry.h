// Private to the runtime: what this process registered with one plugin through custom_call.h
// (typed FFI handlers and where they came from, GPU targets, user-data type names, the plugin's
// XLA FFI API), kept in the plugin's PluginState (pjrt.h), so that a second handler for a target
// is refused, an execution is refused with an error naming the target instead of crashing
// (executable.cc, launch), and `hhlo run` can name the targets a program calls that nobody
// registered. Implemented in custom_call_registry.cc.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "hhlo/runtime/plugin.h"
#include "pjrt_abi.h"

extern "C" {
struct XLA_FFI_Api;  // xla/ffi/api/c_api.h
}

namespace hhlo::detail {

/// The custom calls one plugin was given by this process. Thread-safe.
class CustomCallRegistry {
 public:
  /// Registers typed FFI `handler` under `target` for `platform` (compared case-insensitively,
  /// as the plugin compares it) by calling `register_with_plugin`, unless it already is: the same
  /// handler again does nothing; another handler is refused with an hhlo::Error naming where
  /// each came from (`library`: the kernel library's path, "" for a direct register_custom_call),
  /// because the plugin would keep the first and ignore the second without an error.
  /// Registrations are one at a time; `register_with_plugin` runs under that lock, and what it
  /// throws propagates with nothing recorded. `contexts`: the plugin can make execute contexts
  /// with user data (PJRT_ExecuteContext_Create and FFI user_data_add).
  void add_handler(const std::string& platform, const std::string& target, void* handler,
                   const std::string& library, bool contexts,
                   const std::function<void()>& register_with_plugin);
  /// Records a target registered through the GPU custom-call extension.
  void add_gpu_target(const std::string& target);
  /// Records the name of user-data type `type_id` (register_custom_call_type).
  void add_type(int64_t type_id, const std::string& name);

  /// True when a typed FFI handler was registered and the plugin can make execute contexts:
  /// such executions get one even without user data (a handler that decodes ffi::UserData<T>
  /// then fails with an error instead of dereferencing a null context; fact: both CPU plugins die
  /// with SIGSEGV in XLA_FFI_ExecutionContext_Get without one). One atomic load: the hot path.
  bool needs_execute_context() const { return needs_context_.load(std::memory_order_acquire); }
  /// True when `target` was registered, as a typed FFI handler (any platform) or a GPU target.
  bool has_target(const std::string& target) const;
  /// The typed FFI handler targets registered, sorted.
  std::set<std::string> ffi_targets() const;
  /// The name of user-data type `type_id`, when it was registered.
  std::optional<std::string> type_name(int64_t type_id) const;

  /// The plugin's XLA_FFI_Api learnt by probing it, when it was (null: the plugin's registration
  /// does not probe handlers); nullopt before the first probe.
  std::optional<const XLA_FFI_Api*> ffi_api() const;
  void set_ffi_api(const XLA_FFI_Api* api);

 private:
  struct Handler {
    void* handler;
    std::string library;
  };
  std::mutex registering_;  // held across one add_handler, the plugin call included
  mutable std::mutex mu_;   // the fields below
  std::map<std::pair<std::string, std::string>, Handler> handlers_;  // (platform, target)
  std::set<std::string> ffi_targets_, gpu_targets_;
  std::map<int64_t, std::string> types_;
  std::optional<const XLA_FFI_Api*> ffi_api_;
  std::atomic<bool> needs_context_{false};
};

/// The registry of `plugin` (in its PluginState).
CustomCallRegistry& custom_call_registry(const Plugin& plugin);

/// `message` (an execution error of `executable`), with the custom call target(s) named when it
/// is the plugin's "User data with type id N not found in execution context": the registered
/// targets the compiled program calls (PJRT_Executable_OptimizedProgram) and the name of type N.
/// Unchanged for any other message.
std::string explain_execute_error(const Plugin& plugin, PJRT_LoadedExecutable* executable,
                                  const std::string& message);

}  // namespace hhlo::detail
