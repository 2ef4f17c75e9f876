// The typed XLA FFI handler `hhlo_onednn_convolution` (hhlo/onednn/kernels.h): a StableHLO
// convolution of f32 tensors in their own layouts, run by oneDNN's forward-inference direct
// convolution. Each distinct problem (dimensions, strides of the three tensors, window and
// groups) gets its primitive once, cached for the process; every execution binds the buffers to
// it and runs it on a stream of the calling thread. Nothing throws into XLA
// (hhlo::kernel::guarded): a problem oneDNN refuses is an INVALID_ARGUMENT naming the target.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <vector>

#include "common.h"
#include "hhlo/onednn/kernels.h"
#include "hhlo/runtime/custom_call_kernel.h"
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace hhlo::onednn {
namespace {

/// The dimensions and strides of a row-major tensor of `shape` in the logical order `order`
/// (order[k]: the tensor dimension that is oneDNN's k-th).
struct Logical {
  dims d, s;
};
Logical logical(ffi::Span<const int64_t> shape, ffi::Span<const int64_t> order) {
  dims strides = row_major_strides(shape);
  Logical l;
  for (int64_t k : order) {
    l.d.push_back(shape[k]);
    l.s.push_back(strides[k]);
  }
  return l;
}

dnnl::memory::desc permuted(ffi::Span<const int64_t> shape, ffi::Span<const int64_t> order) {
  Logical l = logical(shape, order);
  return dnnl::memory::desc(l.d, dnnl::memory::data_type::f32, l.s);
}

/// The weights descriptor: (O, I, spatial...) or, with groups G > 1, (G, O/G, I, spatial...)
/// where the output features split as G major, O/G minor (StableHLO's feature_group_count).
dnnl::memory::desc weights(ffi::Span<const int64_t> shape, ffi::Span<const int64_t> order,
                           int64_t groups) {
  Logical l = logical(shape, order);
  if (groups == 1) return dnnl::memory::desc(l.d, dnnl::memory::data_type::f32, l.s);
  dims gd = {groups, l.d[0] / groups}, gs = {l.s[0] * (l.d[0] / groups), l.s[0]};
  gd.insert(gd.end(), l.d.begin() + 1, l.d.end());
  gs.insert(gs.end(), l.s.begin() + 1, l.s.end());
  return dnnl::memory::desc(gd, dnnl::memory::data_type::f32, gs);
}

struct Attrs {
  ffi::Span<const int64_t> input_dims, kernel_dims, output_dims, strides, pad_lo, pad_hi, dilation;
  int64_t groups;
  int64_t threads;
};

/// Whether `order` holds each of 0 .. rank-1 once.
bool permutation(ffi::Span<const int64_t> order, size_t rank) {
  std::vector<bool> seen(rank, false);
  for (int64_t k : order) {
    if (k < 0 || static_cast<size_t>(k) >= rank || seen[k]) return false;
    seen[k] = true;
  }
  return order.size() == rank;
}

/// Why (lhs, rhs, out, a) is not a convolution this kernel can describe; empty when it is.
std::string malformed(ffi::Span<const int64_t> lhs, ffi::Span<const int64_t> rhs,
                      ffi::Span<const int64_t> out, const Attrs& a) {
  size_t rank = lhs.size();
  if (rank < 3 || rank > 5 || rhs.size() != rank || out.size() != rank)
    return "operands and result must have one rank, 3 to 5";
  if (!permutation(a.input_dims, rank) || !permutation(a.kernel_dims, rank) ||
      !permutation(a.output_dims, rank))
    return "input_dims, kernel_dims and output_dims must each order every dimension once";
  for (auto s : {a.strides, a.pad_lo, a.pad_hi, a.dilation})
    if (s.size() != rank - 2) return "the window attributes need one entry per spatial dimension";
  int64_t in_features = lhs[a.input_dims[1]], out_features = rhs[a.kernel_dims[0]];
  if (a.groups < 1 || in_features % a.groups != 0 || out_features % a.groups != 0 ||
      rhs[a.kernel_dims[1]] * a.groups != in_features)
    return "feature_group_count does not divide the features";
  if (a.threads < 0) return "threads must be 0 (oneDNN's default) or a positive count";
  return "";
}

/// The primitive of (lhs, rhs, out, a), made on first use (oneDNN throws dnnl::error for a
/// problem it cannot serve).
const Problem& problem(ffi::Span<const int64_t> lhs, ffi::Span<const int64_t> rhs,
                       ffi::Span<const int64_t> out, const Attrs& a, int threads) {
  static std::mutex mu;
  static std::map<std::vector<int64_t>, Problem> cache;
  std::vector<int64_t> key = key_of({lhs, rhs, out, a.input_dims, a.kernel_dims, a.output_dims,
                                     a.strides, a.pad_lo, a.pad_hi, a.dilation},
                                    {a.groups, threads});
  std::lock_guard lock(mu);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  Problem p;
  p.src.plain = permuted(lhs, a.input_dims);
  p.wei.plain = weights(rhs, a.kernel_dims, a.groups);
  p.dst.plain = permuted(out, a.output_dims);
  auto any = [](const dnnl::memory::desc& m) {
    return dnnl::memory::desc(m.dims(), dnnl::memory::data_type::f32,
                              dnnl::memory::format_tag::any);
  };
  dims dil;
  for (int64_t d : a.dilation) dil.push_back(d - 1);  // oneDNN counts the holes: 0 is dense
  // oneDNN chooses the layouts its fastest implementation wants (blocked ones for AVX-512 direct
  // convolutions); ours are reordered to and from them around the call.
  dnnl::convolution_forward::desc d(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, any(p.src.plain),
      any(p.wei.plain), any(p.dst.plain), dims(a.strides.begin(), a.strides.end()), dil,
      dims(a.pad_lo.begin(), a.pad_lo.end()), dims(a.pad_hi.begin(), a.pad_hi.end()));
  // The scratchpad is ours, per call: XLA runs the executions of one executable on any of its
  // threads, and a primitive's library-managed scratchpad is not safe across threads (a crash
  // otherwise; docs/facts.md).
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  dnnl::convolution_forward::primitive_desc pd(d, attr, engine());
  choose(p.src, pd.src_desc(), true);
  choose(p.wei, pd.weights_desc(), true);
  choose(p.dst, pd.dst_desc(), false);
  p.scratchpad = pd.scratchpad_desc();
  p.primitive = std::make_unique<dnnl::convolution_forward>(pd);
  return cache.emplace(std::move(key), std::move(p)).first->second;
}

ffi::Error convolution(ffi::Buffer<ffi::F32> lhs, ffi::Buffer<ffi::F32> rhs,
                       ffi::ResultBuffer<ffi::F32> out, ffi::Span<const int64_t> input_dims,
                       ffi::Span<const int64_t> kernel_dims, ffi::Span<const int64_t> output_dims,
                       ffi::Span<const int64_t> window_strides,
                       ffi::Span<const int64_t> padding_low, ffi::Span<const int64_t> padding_high,
                       ffi::Span<const int64_t> rhs_dilation, int64_t feature_group_count,
                       int64_t threads) {
  return hhlo::kernel::guarded(kOneDnnConvolutionTarget, [&]() -> ffi::Error {
    Attrs a{input_dims,   kernel_dims,  output_dims,         window_strides, padding_low,
            padding_high, rhs_dilation, feature_group_count, threads};
    if (std::string why = malformed(lhs.dimensions(), rhs.dimensions(), out->dimensions(), a);
        !why.empty())
      return ffi::Error::InvalidArgument(std::string(kOneDnnConvolutionTarget) + ": " + why);
    int n = use_threads(threads);  // before the primitive is made: it is made for this count
    const Problem* p = nullptr;
    try {
      p = &problem(lhs.dimensions(), rhs.dimensions(), out->dimensions(), a, n);
    } catch (const dnnl::error& e) {
      return ffi::Error::InvalidArgument(std::string(kOneDnnConvolutionTarget) +
                                         ": oneDNN refuses the problem: " + e.what());
    }
    execute(*p, lhs.typed_data(), rhs.typed_data(), out->typed_data());
    return ffi::Error::Success();
  });
}

}  // namespace
}  // namespace hhlo::onednn

XLA_FFI_DEFINE_HANDLER_SYMBOL(hhlo_onednn_convolution_ffi, hhlo::onednn::convolution,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Attr<ffi::Span<const int64_t>>("input_dims")
                                  .Attr<ffi::Span<const int64_t>>("kernel_dims")
                                  .Attr<ffi::Span<const int64_t>>("output_dims")
                                  .Attr<ffi::Span<const int64_t>>("window_strides")
                                  .Attr<ffi::Span<const int64_t>>("padding_low")
                                  .Attr<ffi::Span<const int64_t>>("padding_high")
                                  .Attr<ffi::Span<const int64_t>>("rhs_dilation")
                                  .Attr<int64_t>("feature_group_count")
                                  .Attr<int64_t>("threads"));
