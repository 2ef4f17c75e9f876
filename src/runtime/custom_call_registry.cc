// What this process registered with each plugin (custom_call_registry.h), and what it answers:
// a second handler refused, an execute-time error explained, the targets nobody registered.
#include "custom_call_registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <regex>

#include "hhlo/runtime/custom_call.h"
#include "pjrt.h"
#include "program_shape.h"

namespace hhlo::detail {

namespace {

std::string registered_by(const std::string& library) {
  return library.empty() ? "a direct register_custom_call"
                         : fmt::format("kernel library '{}'", library);
}

std::string lower(const std::string& s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

void CustomCallRegistry::add_handler(const std::string& platform, const std::string& target,
                                     void* handler, const std::string& library, bool contexts,
                                     const std::function<void()>& register_with_plugin) {
  std::lock_guard registering(registering_);
  auto key = std::make_pair(lower(platform), target);
  {
    std::lock_guard lock(mu_);
    if (auto it = handlers_.find(key); it != handlers_.end()) {
      if (it->second.handler == handler) return;
      throw Error(fmt::format(
          "register_custom_call: target '{}' is already registered for platform '{}' by {}; {} "
          "registers it with another handler, which the plugin would ignore without an error "
          "(its registry has no unregister): register the new handler under another target name",
          target, platform, registered_by(it->second.library), registered_by(library)));
    }
  }
  register_with_plugin();
  std::lock_guard lock(mu_);
  handlers_[key] = {handler, library};
  ffi_targets_.insert(target);
  if (contexts) needs_context_.store(true, std::memory_order_release);
}

void CustomCallRegistry::add_gpu_target(const std::string& target) {
  std::lock_guard lock(mu_);
  gpu_targets_.insert(target);
}

void CustomCallRegistry::add_type(int64_t type_id, const std::string& name) {
  std::lock_guard lock(mu_);
  types_[type_id] = name;
}

bool CustomCallRegistry::has_target(const std::string& target) const {
  std::lock_guard lock(mu_);
  return ffi_targets_.count(target) || gpu_targets_.count(target);
}

std::set<std::string> CustomCallRegistry::ffi_targets() const {
  std::lock_guard lock(mu_);
  return ffi_targets_;
}

std::optional<std::string> CustomCallRegistry::type_name(int64_t type_id) const {
  std::lock_guard lock(mu_);
  auto it = types_.find(type_id);
  if (it == types_.end()) return std::nullopt;
  return it->second;
}

std::optional<const XLA_FFI_Api*> CustomCallRegistry::ffi_api() const {
  std::lock_guard lock(mu_);
  return ffi_api_;
}

void CustomCallRegistry::set_ffi_api(const XLA_FFI_Api* api) {
  std::lock_guard lock(mu_);
  ffi_api_ = api;
}

CustomCallRegistry& custom_call_registry(const Plugin& plugin) {
  return plugin.state().custom_calls;
}

std::string explain_execute_error(const Plugin& plugin, PJRT_LoadedExecutable* executable,
                                  const std::string& message) {
  static const std::regex missing(R"(User data with type id (\d+) not found in execution context)");
  std::smatch m;
  if (!std::regex_search(message, m, missing)) return message;
  int64_t type_id = std::stoll(m[1].str());
  const CustomCallRegistry& registry = custom_call_registry(plugin);
  // A target the program calls appears in the serialized HLO as a length-prefixed string.
  std::string format, why;
  std::string program =
      optimized_program(plugin.state().api, executable, format, why).value_or(std::string());
  std::vector<std::string> called;
  for (const std::string& t : registry.ffi_targets())
    if (t.size() < 128 && program.find(static_cast<char>(t.size()) + t) != std::string::npos)
      called.push_back("'" + t + "'");
  std::optional<std::string> name = registry.type_name(type_id);
  std::string type =
      name ? fmt::format("'{}' (type id {})", *name, type_id) : fmt::format("type id {}", type_id);
  std::string who = called.empty() ? std::string("a custom call handler of this program")
                    : called.size() == 1
                        ? fmt::format("custom call target {}", called[0])
                        : fmt::format("one of the custom call targets {}", fmt::join(called, ", "));
  return fmt::format(
      "{} needs user data of type {}, and the execution has none of that type: pass it in "
      "ExecuteOptions::user_data (the plugin says: {})",
      who, type, message);
}

}  // namespace hhlo::detail

namespace hhlo {

namespace {

/// Custom-call targets XLA resolves itself, with no handler registered: markers of the SPMD
/// partitioner and of Shardy (`xla.sdy.*`), host-offloading and layout annotations, and the
/// top-k calls XLA rewrites into its own ops.
bool resolved_by_xla(const std::string& target) {
  static const std::set<std::string> kBuiltIn = {
      "Sharding",   "SPMDFullToShardShape", "SPMDShardToFullShape", "annotate_device_placement",
      "MoveToHost", "MoveToDevice",         "LayoutConstraint",     "TopK",
      "ApproxTopK"};
  return kBuiltIn.count(target) || target.rfind("xla.sdy.", 0) == 0;
}

}  // namespace

std::vector<std::string> unregistered_custom_call_targets(const Plugin& plugin,
                                                          const std::vector<std::string>& targets) {
  const detail::CustomCallRegistry& registry = detail::custom_call_registry(plugin);
  std::vector<std::string> out;
  for (const std::string& t : targets)
    if (!registry.has_target(t) && !resolved_by_xla(t) &&
        std::find(out.begin(), out.end(), t) == out.end())
      out.push_back(t);
  return out;
}

}  // namespace hhlo
