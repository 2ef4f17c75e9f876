// register_onednn_kernels (hhlo/onednn/kernels.h): every kernel of kernels/onednn with a plugin.
#include "common.h"
#include "hhlo/onednn/kernels.h"
#include "hhlo/runtime/custom_call.h"
#include "xla/ffi/api/ffi.h"

XLA_FFI_DECLARE_HANDLER_SYMBOL(hhlo_onednn_convolution_ffi);
XLA_FFI_DECLARE_HANDLER_SYMBOL(hhlo_onednn_matmul_ffi);

namespace hhlo {

void register_onednn_kernels(const Plugin& plugin) {
  onednn::default_threads();  // read before any call sets a thread's count
  register_custom_call(plugin, kOneDnnConvolutionTarget,
                       reinterpret_cast<void*>(hhlo_onednn_convolution_ffi), "Host");
  register_custom_call(plugin, kOneDnnMatmulTarget, reinterpret_cast<void*>(hhlo_onednn_matmul_ffi),
                       "Host");
}

void register_onednn_kernels(const Client& client) { register_onednn_kernels(client.plugin()); }

}  // namespace hhlo
