// Helpers for writing XLA FFI kernels that HHLO-C++ registers with register_custom_call
// (custom_call.h). Header-only, for kernel libraries: it needs the XLA FFI headers
// (`xla/ffi/api/ffi.h`, third_party/xla_ffi/include after set-up) on the include path, which no
// other public header of ours does.
//
//  - HHLO_CUSTOM_CALL_TARGETS({"target", handler, "Host"}, ...): lists the library's targets
//    under the well-known symbol that hhlo::register_kernel_library and `hhlo run
//    --custom-call-library lib.so` read;
//  - hhlo::kernel::guarded(name, body): runs a handler body, turning any C++ exception into an
//    ffi::Error (XLA is C underneath: an exception escaping a handler terminates the process).
// Build kernels with the XLA FFI headers set-up pins (jaxlib 0.9.0, XLA FFI API 0.2, the CPU
// plugin's version) and export handlers with XLA_FFI_DEFINE_HANDLER_SYMBOL: a handler reporting a
// newer minor version is dropped by the plugin, which hhlo::register_custom_call detects and
// refuses.
#pragma once

#include <exception>
#include <string>

#include "hhlo/runtime/custom_call.h"
#include "xla/ffi/api/ffi.h"

/// Defines the library's target list, `extern "C" const HhloCustomCallTarget*
/// hhlo_custom_call_targets(size_t* count)`, from `{"target", handler, "Host"}` entries (handler:
/// a symbol made with XLA_FFI_DEFINE_HANDLER_SYMBOL, cast to void*; platform null means "Host").
/// Use once per library.
#define HHLO_CUSTOM_CALL_TARGETS(...)                                              \
  extern "C" const HhloCustomCallTarget* hhlo_custom_call_targets(size_t* count) { \
    static const HhloCustomCallTarget targets[] = {__VA_ARGS__};                   \
    *count = sizeof(targets) / sizeof(targets[0]);                                 \
    return targets;                                                                \
  }

namespace hhlo::kernel {

/// Runs `body` (returning xla::ffi::Error); an escaping C++ exception becomes an INTERNAL error
/// "<kernel>: C++ exception: <what>".
template <typename F>
::xla::ffi::Error guarded(const char* kernel, F&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    return ::xla::ffi::Error::Internal(std::string(kernel) + ": C++ exception: " + e.what());
  } catch (...) {
    return ::xla::ffi::Error::Internal(std::string(kernel) + ": unknown C++ exception");
  }
}

}  // namespace hhlo::kernel
