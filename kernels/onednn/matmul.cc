// The typed XLA FFI handler `hhlo_onednn_matmul` (hhlo/onednn/kernels.h): a StableHLO dot_general
// of f32 tensors seen as a batch of matrix products, src [B..., M, K] x weights [B..., K, N] ->
// dst [B..., M, N], the operands in their own layouts (strides), run by oneDNN's matmul. Each
// distinct problem gets its primitive once, cached for the process; every execution binds the
// buffers to it and runs it on a stream of the calling thread. Where oneDNN has only its
// reference implementation for the operands' strides, the operands are first copied to
// row-major ones (a reorder) and its optimised one runs. Nothing throws into XLA
// (hhlo::kernel::guarded): a malformed call or a problem oneDNN refuses is an INVALID_ARGUMENT
// naming the target.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common.h"
#include "hhlo/onednn/kernels.h"
#include "hhlo/runtime/custom_call_kernel.h"
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace hhlo::onednn {
namespace {

/// The attributes of one call (hhlo/onednn/kernels.h).
struct Attrs {
  ffi::Span<const int64_t> src_dims, src_strides, weights_dims, weights_strides, dst_dims;
  int64_t threads;
};

/// The product of `d`, or -1 when it overflows int64.
int64_t product(ffi::Span<const int64_t> d) {
  int64_t n = 1;
  for (int64_t x : d)
    if (__builtin_mul_overflow(n, x, &n)) return -1;
  return n;
}

/// Whether a tensor of `d` (each at least 1) with strides `s` (each at least 1) stays inside a
/// buffer of `elements` elements; false too when its last offset overflows int64 (a hostile
/// call must not wrap around into a small offset).
bool inside(ffi::Span<const int64_t> d, ffi::Span<const int64_t> s, int64_t elements) {
  int64_t last = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    int64_t step = 0;
    if (__builtin_mul_overflow(d[i] - 1, s[i], &step) || __builtin_add_overflow(last, step, &last))
      return false;
  }
  return last < elements;
}

/// Why the call cannot be described to oneDNN; empty when it can.
std::string malformed(int64_t lhs_elements, int64_t rhs_elements, int64_t out_elements,
                      const Attrs& a) {
  size_t rank = a.src_dims.size();
  if (rank < 2 || rank > DNNL_MAX_NDIMS || a.weights_dims.size() != rank ||
      a.dst_dims.size() != rank || a.src_strides.size() != rank || a.weights_strides.size() != rank)
    return "src, weights and dst need one rank, 2 to 12, and one stride per dimension";
  for (auto d : {a.src_dims, a.weights_dims, a.dst_dims})
    for (int64_t x : d)
      if (x < 1) return "every dimension must be at least 1";
  for (auto s : {a.src_strides, a.weights_strides})
    for (int64_t x : s)
      if (x < 1) return "every stride must be at least 1";
  for (size_t i = 0; i + 2 < rank; ++i)
    if (a.src_dims[i] != a.weights_dims[i] || a.src_dims[i] != a.dst_dims[i])
      return "the batch dimensions differ";
  if (a.src_dims[rank - 1] != a.weights_dims[rank - 2] ||
      a.src_dims[rank - 2] != a.dst_dims[rank - 2] ||
      a.weights_dims[rank - 1] != a.dst_dims[rank - 1])
    return "the dimensions are not [..., M, K] x [..., K, N] -> [..., M, N]";
  if (!inside(a.src_dims, a.src_strides, lhs_elements) ||
      !inside(a.weights_dims, a.weights_strides, rhs_elements))
    return "an operand's dimensions and strides reach past its buffer";
  if (product(a.dst_dims) != out_elements) return "dst_dims do not hold the result's elements";
  if (a.threads < 0) return "threads must be 0 (oneDNN's default) or a positive count";
  return "";
}

dnnl::memory::desc strided(ffi::Span<const int64_t> d, const dims& s) {
  return dnnl::memory::desc(dims(d.begin(), d.end()), dnnl::memory::data_type::f32, s);
}

/// The matmul of `src` x `wei` -> `dst`, the scratchpad ours (per call, as the convolution's).
dnnl::matmul::primitive_desc describe(const dnnl::memory::desc& src, const dnnl::memory::desc& wei,
                                      const dnnl::memory::desc& dst) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, wei, dst), attr, engine());
}

/// The primitive of `a`, made on first use (oneDNN throws dnnl::error for a problem it cannot
/// serve). Where only the reference implementation takes the operands' strides, the inputs are
/// reordered to row-major copies and the matmul made for those.
const Problem& problem(const Attrs& a, int threads) {
  static std::mutex mu;
  static std::map<std::vector<int64_t>, Problem> cache;
  std::vector<int64_t> key =
      key_of({a.src_dims, a.src_strides, a.weights_dims, a.weights_strides, a.dst_dims}, {threads});
  std::lock_guard lock(mu);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  Problem p;
  p.src.plain = strided(a.src_dims, dims(a.src_strides.begin(), a.src_strides.end()));
  p.wei.plain = strided(a.weights_dims, dims(a.weights_strides.begin(), a.weights_strides.end()));
  p.dst.plain = strided(a.dst_dims, row_major_strides(a.dst_dims));
  dnnl::matmul::primitive_desc pd = describe(p.src.plain, p.wei.plain, p.dst.plain);
  if (std::string_view(pd.impl_info_str()).find("ref") != std::string_view::npos)
    pd = describe(strided(a.src_dims, row_major_strides(a.src_dims)),
                  strided(a.weights_dims, row_major_strides(a.weights_dims)), p.dst.plain);
  choose(p.src, pd.src_desc(), true);
  choose(p.wei, pd.weights_desc(), true);
  choose(p.dst, pd.dst_desc(), false);
  p.scratchpad = pd.scratchpad_desc();
  p.primitive = std::make_unique<dnnl::matmul>(pd);
  return cache.emplace(std::move(key), std::move(p)).first->second;
}

ffi::Error matmul(ffi::Buffer<ffi::F32> lhs, ffi::Buffer<ffi::F32> rhs,
                  ffi::ResultBuffer<ffi::F32> out, ffi::Span<const int64_t> src_dims,
                  ffi::Span<const int64_t> src_strides, ffi::Span<const int64_t> weights_dims,
                  ffi::Span<const int64_t> weights_strides, ffi::Span<const int64_t> dst_dims,
                  int64_t threads) {
  return hhlo::kernel::guarded(kOneDnnMatmulTarget, [&]() -> ffi::Error {
    Attrs a{src_dims, src_strides, weights_dims, weights_strides, dst_dims, threads};
    if (std::string why = malformed(static_cast<int64_t>(lhs.element_count()),
                                    static_cast<int64_t>(rhs.element_count()),
                                    static_cast<int64_t>(out->element_count()), a);
        !why.empty())
      return ffi::Error::InvalidArgument(std::string(kOneDnnMatmulTarget) + ": " + why);
    int n = use_threads(threads);  // before the primitive is made: it is made for this count
    const Problem* p = nullptr;
    try {
      p = &problem(a, n);
    } catch (const dnnl::error& e) {
      return ffi::Error::InvalidArgument(std::string(kOneDnnMatmulTarget) +
                                         ": oneDNN refuses the problem: " + e.what());
    }
    execute(*p, lhs.typed_data(), rhs.typed_data(), out->typed_data());
    return ffi::Error::Success();
  });
}

}  // namespace
}  // namespace hhlo::onednn

XLA_FFI_DEFINE_HANDLER_SYMBOL(hhlo_onednn_matmul_ffi, hhlo::onednn::matmul,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Attr<ffi::Span<const int64_t>>("src_dims")
                                  .Attr<ffi::Span<const int64_t>>("src_strides")
                                  .Attr<ffi::Span<const int64_t>>("weights_dims")
                                  .Attr<ffi::Span<const int64_t>>("weights_strides")
                                  .Attr<ffi::Span<const int64_t>>("dst_dims")
                                  .Attr<int64_t>("threads"));
