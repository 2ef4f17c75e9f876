// Helpers for writing XLA FFI kernels that HHLO-C++ registers with register_custom_call
// (custom_call.h). Header-only, for kernel libraries: it needs the XLA FFI headers
// (`xla/ffi/api/ffi.h`, third_party/xla_ffi/include after set-up) on the include path, which no
// other public header of ours does.
//
//  - hhlo::kernel::guarded(name, body): runs a handler body, turning any C++ exception into an
//    ffi::Error (XLA is C underneath: an exception escaping a handler terminates the process).
// Build kernels with the XLA FFI headers set-up pins (jaxlib 0.9.0, XLA FFI API 0.2, the CPU
// plugin's version) and export handlers with XLA_FFI_DEFINE_HANDLER_SYMBOL: a handler reporting a
// newer minor version is dropped by the plugin, which hhlo::register_custom_call detects and refuses.
#pragma once

#include <exception>
#include <string>

#include "xla/ffi/api/ffi.h"

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
