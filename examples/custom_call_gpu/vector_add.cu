// Example CUDA kernel library: out = a + b on f32 vectors, exported in both GPU custom-call ABIs.
// Register with hhlo::register_gpu_custom_call(plugin, path, target, api, symbol):
//
//  - hhlo_gpu_vector_add_legacy (GpuCustomCallApi::legacy, PJRT api_version 0): the untyped,
//    status-returning ABI, called from MLIR `api_version = 2 : i32` with the element count as the
//    string backend_config (the legacy ABI passes no shapes):
//      stablehlo.custom_call @target(%a, %b) {api_version = 2 : i32, backend_config = "1024"}
//    It cannot report errors: XlaCustomCallStatusSetFailure lives inside the plugin, which we load
//    RTLD_LOCAL, so a bad opaque launches nothing and leaves the output unwritten.
//  - hhlo_gpu_vector_add_typed (GpuCustomCallApi::typed, PJRT api_version 1): a typed XLA FFI
//    handler, called from MLIR `api_version = 4 : i32`; the length comes from the buffers.
//    Built with the pinned XLA FFI 0.2 headers, so it registers with any plugin of FFI 0.2 or newer.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "hhlo/runtime/custom_call_kernel.h"
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace {

__global__ void vector_add_kernel(const float* a, const float* b, float* out, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x)
    out[i] = a[i] + b[i];
}

cudaError_t launch_vector_add(cudaStream_t stream, const float* a, const float* b, float* out,
                              int64_t n) {
  if (n == 0) return cudaSuccess;
  constexpr int kThreads = 256;
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  vector_add_kernel<<<static_cast<unsigned>(blocks < 65535 ? blocks : 65535), kThreads, 0,
                      stream>>>(a, b, out, n);
  return cudaGetLastError();
}

ffi::Error VectorAddTyped(cudaStream_t stream, ffi::Buffer<ffi::F32> a, ffi::Buffer<ffi::F32> b,
                          ffi::ResultBuffer<ffi::F32> out) noexcept {
  if (a.element_count() != b.element_count() || a.element_count() != out->element_count())
    return ffi::Error::InvalidArgument(
        "hhlo_gpu_vector_add_typed: operands and result differ in element count");
  cudaError_t e = launch_vector_add(stream, a.typed_data(), b.typed_data(), out->typed_data(),
                                    static_cast<int64_t>(a.element_count()));
  if (e != cudaSuccess)
    return ffi::Error::Internal(std::string("hhlo_gpu_vector_add_typed: kernel launch failed: ") +
                                cudaGetErrorString(e));
  return ffi::Error::Success();
}

}  // namespace

extern "C" void hhlo_gpu_vector_add_legacy(cudaStream_t stream, void** buffers, const char* opaque,
                                           std::size_t opaque_len, void* /*XlaCustomCallStatus*/) {
  // opaque: the element count in decimal.
  std::string text(opaque ? opaque : "", opaque ? opaque_len : 0);
  char* end = nullptr;
  long long n = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || n < 0) return;
  launch_vector_add(stream, static_cast<const float*>(buffers[0]),
                    static_cast<const float*>(buffers[1]), static_cast<float*>(buffers[2]), n);
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(hhlo_gpu_vector_add_typed, VectorAddTyped,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<cudaStream_t>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());
