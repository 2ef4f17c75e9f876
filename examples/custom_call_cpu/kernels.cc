// Example CPU kernel library: typed XLA FFI handlers, each exported as an `extern "C"` symbol by
// XLA_FFI_DEFINE_HANDLER_SYMBOL (xla/ffi/api/ffi.h), registered at run time with
// hhlo::register_custom_call_library and called from StableHLO as `stablehlo.custom_call
// @<symbol>(...) {api_version = 4 : i32}`.
//
// Every body runs inside hhlo::kernel::guarded: a C++ exception must never cross into XLA (it is C
// underneath and would terminate the process), so it becomes an ffi::Error that reaches the user
// as hhlo::PjrtError. hhlo_example_negate_newer_ffi answers XLA's registration probe with an
// XLA FFI minor version one newer than the plugin's, as a handler built with newer headers would:
// the test that pins the version mismatch uses it.
#include "kernels.h"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "hhlo/runtime/custom_call_kernel.h"
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

XLA_FFI_TypeId HhloExampleScale::id = {};

extern "C" void hhlo_example_set_scale_type_id(int64_t type_id) {
  HhloExampleScale::id.type_id = type_id;
}

namespace {

using hhlo::kernel::guarded;

std::string dims_text(ffi::AnyBuffer::Dimensions dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

// rms_norm over the last dimension: y[..., i] = x[..., i] / sqrt(mean_j(x[..., j]^2) + epsilon).
// Any rank >= 1; `epsilon` comes from the backend_config dictionary (an f32 attribute).
ffi::Error RmsNormImpl(ffi::Buffer<ffi::F32> x, float epsilon, ffi::ResultBuffer<ffi::F32> y) {
  return guarded("hhlo_example_rms_norm", [&]() -> ffi::Error {
    auto dims = x.dimensions();
    if (dims.size() == 0)
      return ffi::Error::InvalidArgument("hhlo_example_rms_norm: x must have rank >= 1");
    if (!(epsilon >= 0.0f))
      return ffi::Error::InvalidArgument("hhlo_example_rms_norm: epsilon must be >= 0, got " +
                                         std::to_string(epsilon));
    const int64_t n = dims.back();
    const int64_t rows = n == 0 ? 0 : static_cast<int64_t>(x.element_count()) / n;
    const float* in = x.typed_data();
    float* out = y->typed_data();
    for (int64_t r = 0; r < rows; ++r) {
      double sum = 0.0;
      for (int64_t i = 0; i < n; ++i) sum += double(in[r * n + i]) * in[r * n + i];
      const float inv = 1.0f / std::sqrt(static_cast<float>(sum / n) + epsilon);
      for (int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * inv;
    }
    return ffi::Error::Success();
  });
}

// The VJP of rms_norm: for each row, with r = 1 / sqrt(mean(x^2) + epsilon) and y = x * r,
// dx_i = r * dy_i - x_i * r^3 * (sum_j dy_j * x_j) / n. Paired with hhlo_example_rms_norm
// through hhlo::ad::register_custom_vjp("hhlo_example_rms_norm", "hhlo_example_rms_norm_grad").
ffi::Error RmsNormGradImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> dy, float epsilon,
                           ffi::ResultBuffer<ffi::F32> dx) {
  return guarded("hhlo_example_rms_norm_grad", [&]() -> ffi::Error {
    auto dims = x.dimensions();
    if (dims.size() == 0 || x.element_count() != dy.element_count())
      return ffi::Error::InvalidArgument("hhlo_example_rms_norm_grad: x " + dims_text(dims) +
                                         " and dy " + dims_text(dy.dimensions()) +
                                         " must have the same dims, rank >= 1");
    const int64_t n = dims.back();
    const int64_t rows = n == 0 ? 0 : static_cast<int64_t>(x.element_count()) / n;
    const float* in = x.typed_data();
    const float* g = dy.typed_data();
    float* out = dx->typed_data();
    for (int64_t r = 0; r < rows; ++r) {
      double sum_sq = 0.0, dot = 0.0;
      for (int64_t i = 0; i < n; ++i) {
        sum_sq += double(in[r * n + i]) * in[r * n + i];
        dot += double(g[r * n + i]) * in[r * n + i];
      }
      const double inv = 1.0 / std::sqrt(sum_sq / n + epsilon);
      const double k = inv * inv * inv * dot / n;
      for (int64_t i = 0; i < n; ++i)
        out[r * n + i] = static_cast<float>(inv * g[r * n + i] - k * in[r * n + i]);
    }
    return ffi::Error::Success();
  });
}

// out = a + b elementwise; the length comes from the buffers (any rank, same dims).
ffi::Error VectorAddImpl(ffi::Buffer<ffi::F32> a, ffi::Buffer<ffi::F32> b,
                         ffi::ResultBuffer<ffi::F32> out) {
  return guarded("hhlo_example_vector_add", [&]() -> ffi::Error {
    if (a.element_count() != b.element_count())
      return ffi::Error::InvalidArgument("hhlo_example_vector_add: operands have dims " +
                                         dims_text(a.dimensions()) + " and " +
                                         dims_text(b.dimensions()));
    const float* __restrict x = a.typed_data();
    const float* __restrict y = b.typed_data();
    float* __restrict z = out->typed_data();
    const std::size_t n = a.element_count();
    for (std::size_t i = 0; i < n; ++i) z[i] = x[i] + y[i];
    return ffi::Error::Success();
  });
}

// out = in for a buffer of any dtype and rank (byte copy).
ffi::Error CopyImpl(ffi::AnyBuffer in, ffi::Result<ffi::AnyBuffer> out) {
  return guarded("hhlo_example_copy", [&]() -> ffi::Error {
    if (in.element_type() != out->element_type() || in.size_bytes() != out->size_bytes())
      return ffi::Error::InvalidArgument("hhlo_example_copy: result type differs from operand");
    if (in.size_bytes()) std::memcpy(out->untyped_data(), in.untyped_data(), in.size_bytes());
    return ffi::Error::Success();
  });
}

// out = scale->factor * in, with the factor from user data passed through the execute context.
ffi::Error ScaleImpl(HhloExampleScale* scale, ffi::Buffer<ffi::F32> in,
                     ffi::ResultBuffer<ffi::F32> out) {
  return guarded("hhlo_example_scale", [&]() -> ffi::Error {
    if (!scale) return ffi::Error::InvalidArgument("hhlo_example_scale: no user data");
    const float* x = in.typed_data();
    float* y = out->typed_data();
    for (std::size_t i = 0; i < in.element_count(); ++i) y[i] = scale->factor * x[i];
    ++scale->calls;
    return ffi::Error::Success();
  });
}

// Always fails with FAILED_PRECONDITION and a message carrying the `reason` attribute.
ffi::Error FailImpl(ffi::AnyBuffer, std::string_view reason, ffi::Result<ffi::AnyBuffer>) {
  return ffi::Error(ffi::ErrorCode::kFailedPrecondition,
                    "hhlo_example_fail: " + std::string(reason));
}

// Throws a C++ exception inside its body; `guarded` turns it into an error.
ffi::Error ThrowImpl(ffi::AnyBuffer, ffi::Result<ffi::AnyBuffer>) {
  return guarded("hhlo_example_throw",
                 []() -> ffi::Error { throw std::runtime_error("thrown inside the kernel"); });
}

// out = -in; registered in a test under a target that already has another handler.
ffi::Error NegateImpl(ffi::Buffer<ffi::F32> in, ffi::ResultBuffer<ffi::F32> out) {
  const float* x = in.typed_data();
  float* y = out->typed_data();
  for (std::size_t i = 0; i < in.element_count(); ++i) y[i] = -x[i];
  return ffi::Error::Success();
}

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(hhlo_example_rms_norm, RmsNormImpl,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Attr<float>("epsilon")
                                  .Ret<ffi::Buffer<ffi::F32>>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(hhlo_example_rms_norm_grad, RmsNormGradImpl,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Attr<float>("epsilon")
                                  .Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(hhlo_example_vector_add, VectorAddImpl,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(hhlo_example_copy, CopyImpl,
                              ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(hhlo_example_scale, ScaleImpl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::UserData<HhloExampleScale>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    hhlo_example_fail, FailImpl,
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Attr<std::string_view>("reason").Ret<ffi::AnyBuffer>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(hhlo_example_throw, ThrowImpl,
                              ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    hhlo_example_negate, NegateImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());

// hhlo_example_negate as if built with XLA FFI headers one minor version newer than the framework
// that probes it (the plugin's XLA FFI, whatever its version: 0.2 on the 0.81 CPU plugin, 0.4 on
// the 0.115 one).
extern "C" XLA_FFI_Error* hhlo_example_negate_newer_ffi(XLA_FFI_CallFrame* call_frame) {
  XLA_FFI_Error* error = hhlo_example_negate(call_frame);
  for (XLA_FFI_Extension_Base* e = call_frame->extension_start; !error && e; e = e->next)
    if (e->type == XLA_FFI_Extension_Metadata) {
      XLA_FFI_Api_Version& v =
          reinterpret_cast<XLA_FFI_Metadata_Extension*>(e)->metadata->api_version;
      v.major_version = call_frame->api->api_version.major_version;
      v.minor_version = call_frame->api->api_version.minor_version + 1;
    }
  return error;
}

// The library's target list, read by hhlo::register_kernel_library and `hhlo run
// --custom-call-library` (the handlers that need user data or test failures are left out).
HHLO_CUSTOM_CALL_TARGETS({"hhlo_example_rms_norm", reinterpret_cast<void*>(hhlo_example_rms_norm),
                          "Host"},
                         {"hhlo_example_rms_norm_grad",
                          reinterpret_cast<void*>(hhlo_example_rms_norm_grad), "Host"})
