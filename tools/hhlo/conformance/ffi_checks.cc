// Typed XLA FFI handlers serving the corpus's check.expect_eq / expect_close / expect_almost_eq
// custom calls (MLIR api_version = 4) inside the plugin. A mismatch returns an FFI error carrying
// compare()'s message, which fails the execution. No exception ever escapes into XLA.
// They are built against the XLA FFI headers pinned at the plugin's FFI version (the plugin
// silently drops a newer handler; register_custom_call refuses one).
#include <fmt/format.h>

#include <exception>
#include <optional>
#include <string>

#include "conformance/compare.h"
#include "conformance/worker.h"
#include "hhlo/core/error.h"
#include "hhlo/runtime/custom_call.h"
#include "xla/ffi/api/ffi.h"

namespace hhlo::conformance {
namespace {

namespace ffi = xla::ffi;

std::optional<DType> to_dtype(ffi::DataType t) {
  switch (t) {
    case ffi::DataType::PRED:
      return DType::pred;
    case ffi::DataType::S8:
      return DType::i8;
    case ffi::DataType::S16:
      return DType::i16;
    case ffi::DataType::S32:
      return DType::i32;
    case ffi::DataType::S64:
      return DType::i64;
    case ffi::DataType::U8:
      return DType::ui8;
    case ffi::DataType::U16:
      return DType::ui16;
    case ffi::DataType::U32:
      return DType::ui32;
    case ffi::DataType::U64:
      return DType::ui64;
    case ffi::DataType::F16:
      return DType::f16;
    case ffi::DataType::BF16:
      return DType::bf16;
    case ffi::DataType::F32:
      return DType::f32;
    case ffi::DataType::F64:
      return DType::f64;
    case ffi::DataType::C64:
      return DType::c64;
    case ffi::DataType::C128:
      return DType::c128;
    default:
      return std::nullopt;
  }
}

ffi::Error check(CheckKind kind, ffi::AnyBuffer actual, ffi::AnyBuffer expected) noexcept {
  try {
    auto dtype = to_dtype(actual.element_type());
    if (!dtype || actual.element_type() != expected.element_type())
      return ffi::Error::InvalidArgument(fmt::format(
          "{}: unsupported or mismatched element types {} and {}", check_target(kind),
          static_cast<int>(actual.element_type()), static_cast<int>(expected.element_type())));
    auto ad = actual.dimensions(), ed = expected.dimensions();
    Dims dims(ad.begin(), ad.end());
    if (dims != Dims(ed.begin(), ed.end()))
      return ffi::Error::InvalidArgument(
          fmt::format("{}: operands have different shapes", check_target(kind)));
    TensorType type{*dtype, dims};
    if (auto mismatch = compare(kind, type, actual.untyped_data(), expected.untyped_data()))
      return ffi::Error(ffi::ErrorCode::kFailedPrecondition, *mismatch);
    return ffi::Error::Success();
  } catch (const std::exception& e) {
    return ffi::Error::Internal(fmt::format("{}: {}", check_target(kind), e.what()));
  } catch (...) {
    return ffi::Error::Internal(fmt::format("{}: unknown exception", check_target(kind)));
  }
}

ffi::Error expect_eq(ffi::AnyBuffer a, ffi::AnyBuffer b) { return check(CheckKind::eq, a, b); }
ffi::Error expect_close(ffi::AnyBuffer a, ffi::AnyBuffer b) {
  return check(CheckKind::close, a, b);
}
ffi::Error expect_almost_eq(ffi::AnyBuffer a, ffi::AnyBuffer b) {
  return check(CheckKind::almost_eq, a, b);
}

}  // namespace
}  // namespace hhlo::conformance

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    hhlo_check_expect_eq, hhlo::conformance::expect_eq,
    xla::ffi::Ffi::Bind().Arg<xla::ffi::AnyBuffer>().Arg<xla::ffi::AnyBuffer>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    hhlo_check_expect_close, hhlo::conformance::expect_close,
    xla::ffi::Ffi::Bind().Arg<xla::ffi::AnyBuffer>().Arg<xla::ffi::AnyBuffer>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    hhlo_check_expect_almost_eq, hhlo::conformance::expect_almost_eq,
    xla::ffi::Ffi::Bind().Arg<xla::ffi::AnyBuffer>().Arg<xla::ffi::AnyBuffer>());

namespace hhlo::conformance {

void register_check_handlers(const Plugin& plugin) {
  register_custom_call(plugin, "check.expect_eq", reinterpret_cast<void*>(&hhlo_check_expect_eq));
  register_custom_call(plugin, "check.expect_close",
                       reinterpret_cast<void*>(&hhlo_check_expect_close));
  register_custom_call(plugin, "check.expect_almost_eq",
                       reinterpret_cast<void*>(&hhlo_check_expect_almost_eq));
}

}  // namespace hhlo::conformance
