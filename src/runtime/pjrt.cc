#include "pjrt.h"

#include <fmt/format.h>

#include <cstring>

namespace hhlo::detail {

TakenError take_error(const PJRT_Api* api, PJRT_Error* error) {
  auto m = args<PJRT_Error_Message_Args>();
  m.error = error;
  api->PJRT_Error_Message(&m);
  std::string message(m.message, m.message_size);
  auto c = args<PJRT_Error_GetCode_Args>();
  c.error = error;
  PJRT_Error* code_error = api->PJRT_Error_GetCode(&c);
  PjrtErrorCode code =
      code_error ? PjrtErrorCode::unknown : static_cast<PjrtErrorCode>(static_cast<int>(c.code));
  discard_error(api, code_error);
  discard_error(api, error);
  return {code, std::move(message)};
}

void discard_error(const PJRT_Api* api, PJRT_Error* error) noexcept {
  if (!error) return;
  auto d = args<PJRT_Error_Destroy_Args>();
  d.error = error;
  api->PJRT_Error_Destroy(&d);
}

void check(const PJRT_Api* api, PJRT_Error* error, const char* function) {
  if (!error) return;
  TakenError e = take_error(api, error);
  throw PjrtError(function, e.code, e.message);
}

void require(const PJRT_Api* api, std::size_t offset, const char* function) {
  if (offset + sizeof(void*) > api->struct_size)
    throw PluginError(fmt::format(
        "{} is not provided by this plugin (its PJRT C API is {}.{}, "
        "too old for this call)",
        function, api->pjrt_api_version.major_version, api->pjrt_api_version.minor_version));
  void* fn = nullptr;  // a slot of the table: a function pointer, read as bytes
  std::memcpy(&fn, reinterpret_cast<const char*>(api) + offset, sizeof fn);
  if (!fn)
    throw PluginError(fmt::format(
        "{} is null in this plugin's API table (PJRT C API {}.{}): the "
        "plugin does not implement it",
        function, api->pjrt_api_version.major_version, api->pjrt_api_version.minor_version));
}

// ---- destroy_handle (pjrt_handle.h): one per handle type --------------------------------------

void destroy_handle(const PJRT_Api* api, PJRT_Buffer* handle) noexcept {
  auto a = args<PJRT_Buffer_Destroy_Args>();
  a.buffer = handle;
  discard_error(api, api->PJRT_Buffer_Destroy(&a));
}

void destroy_handle(const PJRT_Api* api, PJRT_Client* handle) noexcept {
  auto a = args<PJRT_Client_Destroy_Args>();
  a.client = handle;
  discard_error(api, api->PJRT_Client_Destroy(&a));
}

void destroy_handle(const PJRT_Api* api, PJRT_Event* handle) noexcept {
  auto a = args<PJRT_Event_Destroy_Args>();
  a.event = handle;
  discard_error(api, api->PJRT_Event_Destroy(&a));
}

void destroy_handle(const PJRT_Api* api, PJRT_ExecuteContext* handle) noexcept {
  auto a = args<PJRT_ExecuteContext_Destroy_Args>();
  a.context = handle;
  discard_error(api, api->PJRT_ExecuteContext_Destroy(&a));
}

void destroy_handle(const PJRT_Api* api, PJRT_Executable* handle) noexcept {
  auto a = args<PJRT_Executable_Destroy_Args>();
  a.executable = handle;
  discard_error(api, api->PJRT_Executable_Destroy(&a));
}

void destroy_handle(const PJRT_Api* api, PJRT_LoadedExecutable* handle) noexcept {
  auto a = args<PJRT_LoadedExecutable_Destroy_Args>();
  a.executable = handle;
  discard_error(api, api->PJRT_LoadedExecutable_Destroy(&a));
}

namespace {
struct TypePair {
  DType ours;
  PJRT_Buffer_Type theirs;
};
constexpr TypePair kTypes[] = {
    {DType::pred, PJRT_Buffer_Type_PRED},
    {DType::i8, PJRT_Buffer_Type_S8},
    {DType::i16, PJRT_Buffer_Type_S16},
    {DType::i32, PJRT_Buffer_Type_S32},
    {DType::i64, PJRT_Buffer_Type_S64},
    {DType::ui8, PJRT_Buffer_Type_U8},
    {DType::ui16, PJRT_Buffer_Type_U16},
    {DType::ui32, PJRT_Buffer_Type_U32},
    {DType::ui64, PJRT_Buffer_Type_U64},
    {DType::f16, PJRT_Buffer_Type_F16},
    {DType::bf16, PJRT_Buffer_Type_BF16},
    {DType::f32, PJRT_Buffer_Type_F32},
    {DType::f64, PJRT_Buffer_Type_F64},
    {DType::c64, PJRT_Buffer_Type_C64},
    {DType::c128, PJRT_Buffer_Type_C128},
    {DType::i2, PJRT_Buffer_Type_S2},
    {DType::i4, PJRT_Buffer_Type_S4},
    {DType::ui2, PJRT_Buffer_Type_U2},
    {DType::ui4, PJRT_Buffer_Type_U4},
    {DType::f4E2M1FN, PJRT_Buffer_Type_F4E2M1FN},
    {DType::f6E2M3FN, PJRT_Buffer_Type_F6E2M3FN},
    {DType::f6E3M2FN, PJRT_Buffer_Type_F6E3M2FN},
    {DType::f8E3M4, PJRT_Buffer_Type_F8E3M4},
    {DType::f8E4M3, PJRT_Buffer_Type_F8E4M3},
    {DType::f8E4M3FN, PJRT_Buffer_Type_F8E4M3FN},
    {DType::f8E4M3FNUZ, PJRT_Buffer_Type_F8E4M3FNUZ},
    {DType::f8E4M3B11FNUZ, PJRT_Buffer_Type_F8E4M3B11FNUZ},
    {DType::f8E5M2, PJRT_Buffer_Type_F8E5M2},
    {DType::f8E5M2FNUZ, PJRT_Buffer_Type_F8E5M2FNUZ},
    {DType::f8E8M0FNU, PJRT_Buffer_Type_F8E8M0FNU},
    {DType::token, PJRT_Buffer_Type_TOKEN},
};
static_assert(std::size(kTypes) == static_cast<std::size_t>(DType::token) + 1);
}  // namespace

PJRT_Buffer_Type to_pjrt(DType t) { return kTypes[static_cast<int>(t)].theirs; }

DType from_pjrt(PJRT_Buffer_Type t) {
  for (const auto& p : kTypes)
    if (p.theirs == t) return p.ours;
  throw Error(fmt::format("PJRT element type {} has no HHLO-C++ dtype", static_cast<int>(t)));
}

}  // namespace hhlo::detail
