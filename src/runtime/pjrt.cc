#include "pjrt.h"

#include <fmt/format.h>

#include <cstring>

namespace hhlo::detail {

std::string take_error(const PJRT_Api* api, PJRT_Error* error, int* code) {
  auto m = args<PJRT_Error_Message_Args>();
  m.error = error;
  api->PJRT_Error_Message(&m);
  std::string message(m.message, m.message_size);
  auto c = args<PJRT_Error_GetCode_Args>();
  c.error = error;
  PJRT_Error* code_error = api->PJRT_Error_GetCode(&c);
  *code = code_error ? static_cast<int>(PJRT_Error_Code_UNKNOWN) : static_cast<int>(c.code);
  auto d = args<PJRT_Error_Destroy_Args>();
  if (code_error) {
    d.error = code_error;
    api->PJRT_Error_Destroy(&d);
  }
  d.error = error;
  api->PJRT_Error_Destroy(&d);
  return message;
}

void check(const PJRT_Api* api, PJRT_Error* error, const char* function) {
  if (!error) return;
  int code = 0;
  std::string message = take_error(api, error, &code);
  throw PjrtError(function, code, message);
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

ClientState::~ClientState() {
  auto a = args<PJRT_Client_Destroy_Args>();
  a.client = client;
  if (PJRT_Error* e = api->PJRT_Client_Destroy(&a)) {
    int code;
    take_error(api, e, &code);  // nothing sensible to do in a destructor
  }
}

namespace {
struct TypePair {
  DType ours;
  PJRT_Buffer_Type theirs;
};
constexpr TypePair kTypes[] = {
    {DType::pred, PJRT_Buffer_Type_PRED}, {DType::i8, PJRT_Buffer_Type_S8},
    {DType::i16, PJRT_Buffer_Type_S16},   {DType::i32, PJRT_Buffer_Type_S32},
    {DType::i64, PJRT_Buffer_Type_S64},   {DType::ui8, PJRT_Buffer_Type_U8},
    {DType::ui16, PJRT_Buffer_Type_U16},  {DType::ui32, PJRT_Buffer_Type_U32},
    {DType::ui64, PJRT_Buffer_Type_U64},  {DType::f16, PJRT_Buffer_Type_F16},
    {DType::bf16, PJRT_Buffer_Type_BF16}, {DType::f32, PJRT_Buffer_Type_F32},
    {DType::f64, PJRT_Buffer_Type_F64},   {DType::c64, PJRT_Buffer_Type_C64},
    {DType::c128, PJRT_Buffer_Type_C128},
};
}  // namespace

PJRT_Buffer_Type to_pjrt(DType t) { return kTypes[static_cast<int>(t)].theirs; }

DType from_pjrt(PJRT_Buffer_Type t) {
  for (const auto& p : kTypes)
    if (p.theirs == t) return p.ours;
  throw Error(fmt::format("PJRT element type {} has no HHLO-C++ dtype", static_cast<int>(t)));
}

}  // namespace hhlo::detail
