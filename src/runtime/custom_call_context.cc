// FFI user data carried into an execution by a PJRT_ExecuteContext (pjrt_extensions.h).
#include <fmt/format.h>

#include "pjrt.h"
#include "pjrt_extensions.h"

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
