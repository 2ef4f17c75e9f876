// FFI user data carried into an execution by a PJRT_ExecuteContext, and what was registered for
// it (custom_call_registry.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <atomic>
#include <map>
#include <mutex>
#include <regex>
#include <set>

#include "custom_call_registry.h"
#include "pjrt.h"
#include "pjrt_extensions.h"
#include "program_shape.h"

namespace hhlo::detail {

std::shared_ptr<ExecuteContext> make_execute_context(
    const Plugin& plugin, const std::vector<CustomCallUserData>& user_data) {
  const PJRT_Api* api = plugin.state().api;
  const auto* base = find_extension(api, PJRT_Extension_Type_FFI);
  if (!base || base->struct_size < offsetof(FfiExtension, user_data_add) + sizeof(void*))
    throw PluginError(fmt::format(
        "PJRT plugin '{}' (PJRT C API {}.{}) has no FFI extension with user_data_add, so it "
        "cannot pass user data to custom calls (ExecuteOptions::user_data)",
        plugin.path(), plugin.api_major(), plugin.api_minor()));
  const auto& ffi = *reinterpret_cast<const FfiExtension*>(base);

  auto c = args<PJRT_ExecuteContext_Create_Args>();
  HHLO_PJRT_CALL(api, PJRT_ExecuteContext_Create, c);
  auto context = std::make_shared<ExecuteContext>(api, c.context);
  for (const CustomCallUserData& entry : user_data) {
    if (entry.type_id <= 0)
      throw Error(
          fmt::format("ExecuteOptions::user_data: type id {} was not returned by "
                      "register_custom_call_type",
                      entry.type_id));
    FfiUserDataAddArgs a{};
    a.struct_size = kFfiUserDataAddArgsSize;
    a.context = context->get();
    a.user_data = FfiUserData{entry.type_id, entry.data};
    check(api, ffi.user_data_add(&a), "PJRT_FFI_Extension::user_data_add");
  }
  return context;
}

}  // namespace hhlo::detail

// ---- What was registered, for execute-time errors (custom_call_registry.h) ----------------------

namespace hhlo::detail {
namespace {

struct Registered {
  bool contexts = false;  // the plugin can make execute contexts with user data
  std::set<std::string> targets;
  std::map<int64_t, std::string> types;
};
std::mutex registry_mu;
std::atomic<bool> any_target{false};
std::map<const PluginState*, Registered>& registry() {
  static std::map<const PluginState*, Registered> r;
  return r;
}

}  // namespace

void note_custom_call_target(const Plugin& plugin, const std::string& target) {
  const PJRT_Api* api = plugin.state().api;
  const auto* ffi = find_extension(api, PJRT_Extension_Type_FFI);
  bool contexts =
      api->struct_size >= offsetof(PJRT_Api, PJRT_ExecuteContext_Create) + sizeof(void*) && ffi &&
      ffi->struct_size >= offsetof(FfiExtension, user_data_add) + sizeof(void*);
  std::lock_guard lock(registry_mu);
  Registered& r = registry()[&plugin.state()];
  r.targets.insert(target);
  r.contexts = contexts;
  any_target = true;
}

void note_custom_call_type(const Plugin& plugin, int64_t type_id, const std::string& name) {
  std::lock_guard lock(registry_mu);
  registry()[&plugin.state()].types[type_id] = name;
}

bool has_custom_call_targets(const Plugin& plugin) {
  if (!any_target) return false;  // the hot path of programs without custom calls
  std::lock_guard lock(registry_mu);
  auto it = registry().find(&plugin.state());
  return it != registry().end() && it->second.contexts && !it->second.targets.empty();
}

std::string explain_execute_error(const Plugin& plugin, PJRT_LoadedExecutable* executable,
                                  const std::string& message) {
  static const std::regex missing(R"(User data with type id (\d+) not found in execution context)");
  std::smatch m;
  if (!std::regex_search(message, m, missing)) return message;
  int64_t type_id = std::stoll(m[1].str());
  Registered known;
  {
    std::lock_guard lock(registry_mu);
    if (auto it = registry().find(&plugin.state()); it != registry().end()) known = it->second;
  }
  // A target the program calls appears in the serialized HLO as a length-prefixed string.
  std::string format, why;
  std::string program =
      optimized_program(plugin.state().api, executable, format, why).value_or(std::string());
  std::vector<std::string> called;
  for (const std::string& t : known.targets)
    if (t.size() < 128 && program.find(static_cast<char>(t.size()) + t) != std::string::npos)
      called.push_back("'" + t + "'");
  std::string type = known.types.count(type_id)
                         ? fmt::format("'{}' (type id {})", known.types[type_id], type_id)
                         : fmt::format("type id {}", type_id);
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
