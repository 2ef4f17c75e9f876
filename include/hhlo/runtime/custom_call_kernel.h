// Helpers for writing XLA FFI kernels that HHLO-C++ registers with register_custom_call
// (custom_call.h). Header-only, for kernel libraries: it needs the XLA FFI headers
// (`xla/ffi/api/ffi.h`, third_party/xla_ffi/include after set-up) on the include path, which no
// other public header of ours does.
//
//  - hhlo::kernel::guarded(name, body): runs a handler body, turning any C++ exception into an
//    ffi::Error (XLA is C underneath: an exception escaping a handler terminates the process).
//  - HHLO_FFI_DEFINE_HANDLER_SYMBOL(fn, impl, binding): XLA_FFI_DEFINE_HANDLER_SYMBOL, except that
//    the handler answers XLA's registration probe with the plugin's XLA FFI minor version when
//    that is older than the headers' (same major). Why: the pinned jaxlib headers are XLA FFI 0.3,
//    the pinned CPU plugin implements 0.2, and XLA drops a registration whose handler reports a
//    newer minor version without telling the caller (hhlo::register_custom_call detects that
//    and throws). Minor versions are ABI-compatible additions (c_api.h), so this is sound only
//    for handlers that use nothing added after the plugin's version: buffers, attributes,
//    results, user data, platform stream (all in 0.2). The proper fix is FFI headers from the
//    same XLA version as the plugin.
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

/// After a successful metadata probe, lowers the reported XLA FFI minor version to the
/// framework's (call_frame->api) when the majors agree and the framework's is older.
inline void report_framework_minor_version(XLA_FFI_CallFrame* call_frame) {
  for (XLA_FFI_Extension_Base* e = call_frame->extension_start; e; e = e->next) {
    if (e->type != XLA_FFI_Extension_Metadata) continue;
    XLA_FFI_Metadata* md = reinterpret_cast<XLA_FFI_Metadata_Extension*>(e)->metadata;
    const XLA_FFI_Api_Version& framework = call_frame->api->api_version;
    if (md->api_version.major_version == framework.major_version &&
        md->api_version.minor_version > framework.minor_version)
      md->api_version.minor_version = framework.minor_version;
  }
}

}  // namespace hhlo::kernel

/// Defines `extern "C" XLA_FFI_Error* fn(XLA_FFI_CallFrame*)`, the typed handler of `impl` with
/// `binding` (an xla::ffi::Ffi::Bind() chain), to be registered with hhlo::register_custom_call.
#define HHLO_FFI_DEFINE_HANDLER_SYMBOL(fn, impl, binding)                           \
  extern "C" XLA_FFI_Error* fn(XLA_FFI_CallFrame* call_frame) {                     \
    XLA_FFI_DEFINE_HANDLER(handler, impl, binding);                                 \
    XLA_FFI_Error* error = (*handler)(call_frame);                                  \
    if (!error && call_frame->extension_start)                                      \
      ::hhlo::kernel::report_framework_minor_version(call_frame);                    \
    return error;                                                                   \
  }                                                                                 \
  static_assert(true, "")
