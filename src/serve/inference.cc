// The Open Inference Protocol's datatype names and status mapping (hhlo/serve/inference.h).
#include "hhlo/serve/inference.h"

#include <array>
#include <utility>

namespace hhlo::serve {
namespace {

constexpr std::array<std::pair<DType, std::string_view>, 13> kDatatypes{{
    {DType::pred, "BOOL"},
    {DType::ui8, "UINT8"},
    {DType::ui16, "UINT16"},
    {DType::ui32, "UINT32"},
    {DType::ui64, "UINT64"},
    {DType::i8, "INT8"},
    {DType::i16, "INT16"},
    {DType::i32, "INT32"},
    {DType::i64, "INT64"},
    {DType::f16, "FP16"},
    {DType::bf16, "BF16"},
    {DType::f32, "FP32"},
    {DType::f64, "FP64"},
}};

}  // namespace

std::optional<std::string_view> datatype_name(DType dtype) {
  for (const auto& [d, name] : kDatatypes)
    if (d == dtype) return name;
  return std::nullopt;
}

std::optional<DType> dtype_of_datatype(std::string_view datatype) {
  for (const auto& [d, name] : kDatatypes)
    if (name == datatype) return d;
  return std::nullopt;
}

int http_status(Status status) {
  switch (status) {
    case Status::invalid_argument:
      return 400;
    case Status::not_found:
      return 404;
    case Status::unavailable:
      return 503;
    case Status::internal:
      break;
  }
  return 500;
}

}  // namespace hhlo::serve
