// The typed XLA FFI handler `hhlo_onednn_convolution` (hhlo/onednn/kernels.h): a StableHLO
// convolution of f32 tensors in their own layouts, run by oneDNN's forward-inference direct
// convolution. Each distinct problem (dimensions, strides of the three tensors, window and
// groups) gets its primitive once, cached for the process; every execution binds the buffers to
// it and runs it on a stream of the calling thread. Nothing throws into XLA
// (hhlo::kernel::guarded): a problem oneDNN refuses is an INVALID_ARGUMENT naming the target.
#include "hhlo/onednn/kernels.h"

#include <omp.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <vector>

#include "hhlo/runtime/custom_call.h"
#include "hhlo/runtime/custom_call_kernel.h"
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace hhlo::onednn {
namespace {

using dims = dnnl::memory::dims;

/// Row-major strides of a tensor of `shape`.
dims row_major_strides(ffi::Span<const int64_t> shape) {
  dims s(shape.size());
  int64_t step = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = step;
    step *= shape[i];
  }
  return s;
}

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

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

/// One tensor as the primitive takes it: ours (row-major, `plain`) and the one oneDNN chose
/// (`chosen`); a reorder between them when they differ.
struct Operand {
  dnnl::memory::desc plain, chosen;
  std::unique_ptr<dnnl::reorder> reorder;  // plain -> chosen (inputs) or chosen -> plain (output)
  bool reordered() const { return reorder != nullptr; }
};

/// One cached problem: its primitive, its three operands and its scratchpad.
struct Problem {
  std::unique_ptr<dnnl::convolution_forward> primitive;
  Operand src, wei, dst;
  dnnl::memory::desc scratchpad;
};

/// `o.chosen` from what oneDNN chose, with the reorder when it differs from `o.plain`.
void choose(Operand& o, const dnnl::memory::desc& chosen, bool input) {
  o.chosen = chosen;
  if (chosen == o.plain) return;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // reorders of these sizes need none
  o.reorder = std::make_unique<dnnl::reorder>(
      input ? dnnl::reorder::primitive_desc(engine(), o.plain, engine(), chosen, attr)
            : dnnl::reorder::primitive_desc(engine(), chosen, engine(), o.plain, attr));
}

/// The cache key: every number that defines the problem, and the threads it runs on (oneDNN
/// partitions a primitive's work for the thread count at its creation).
std::vector<int64_t> key_of(std::initializer_list<ffi::Span<const int64_t>> parts, int64_t groups,
                            int threads) {
  std::vector<int64_t> k;
  for (const auto& p : parts) {
    k.push_back(static_cast<int64_t>(p.size()));
    k.insert(k.end(), p.begin(), p.end());
  }
  k.push_back(groups);
  k.push_back(threads);
  return k;
}

struct Attrs {
  ffi::Span<const int64_t> input_dims, kernel_dims, output_dims, strides, pad_lo, pad_hi, dilation;
  int64_t groups;
  int64_t threads;
};

/// OpenMP's thread count of a thread that never set one (OMP_NUM_THREADS, else every core), read
/// once at registration, before any call of ours sets one.
int default_threads() {
  static const int n = omp_get_max_threads();
  return n;
}

/// The OpenMP threads this thread's next oneDNN calls use: `threads`, or default_threads() for 0.
/// OpenMP's count is a per-thread setting (nthreads-var), so this changes nothing for XLA's other
/// threads, and every call sets it again.
int use_threads(int64_t threads) {
  int n = threads > 0 ? static_cast<int>(threads) : default_threads();
  omp_set_num_threads(n);
  return n;
}

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
                                    a.groups, threads);
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

/// Per-thread buffers of the reordered operands and the scratchpad (XLA calls a kernel from
/// several threads; each keeps its own, grown to the largest problem it ran).
struct Buffers {
  std::vector<float> src, wei, dst;
  std::vector<char> scratch;
};

/// The memory of operand `o` over `data` (ours), and the one the primitive reads or writes: the
/// same, or `tmp` (resized) in oneDNN's layout.
std::pair<dnnl::memory, dnnl::memory> bind_operand(const Operand& o, void* data,
                                                   std::vector<float>& tmp) {
  dnnl::memory ours(o.plain, engine(), data);
  if (!o.reordered()) return {ours, ours};
  size_t n = o.chosen.get_size() / sizeof(float) + 1;
  if (tmp.size() < n) tmp.resize(n);
  return {ours, dnnl::memory(o.chosen, engine(), tmp.data())};
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
    thread_local dnnl::stream stream(engine());
    thread_local Buffers b;
    auto [src_ours, src] = bind_operand(p->src, lhs.typed_data(), b.src);
    auto [wei_ours, wei] = bind_operand(p->wei, rhs.typed_data(), b.wei);
    auto [dst_ours, dst] = bind_operand(p->dst, out->typed_data(), b.dst);
    if (b.scratch.size() < p->scratchpad.get_size()) b.scratch.resize(p->scratchpad.get_size());
    dnnl::memory pad(p->scratchpad, engine(), b.scratch.data());
    if (p->src.reordered()) p->src.reorder->execute(stream, src_ours, src);
    if (p->wei.reordered()) p->wei.reorder->execute(stream, wei_ours, wei);
    p->primitive->execute(stream, {{DNNL_ARG_SRC, src},
                                   {DNNL_ARG_WEIGHTS, wei},
                                   {DNNL_ARG_DST, dst},
                                   {DNNL_ARG_SCRATCHPAD, pad}});
    if (p->dst.reordered()) p->dst.reorder->execute(stream, dst, dst_ours);
    stream.wait();
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

namespace hhlo {

void register_onednn_kernels(const Plugin& plugin) {
  onednn::default_threads();  // read before any call sets a thread's count
  register_custom_call(plugin, kOneDnnConvolutionTarget,
                       reinterpret_cast<void*>(hhlo_onednn_convolution_ffi), "Host");
}

void register_onednn_kernels(const Client& client) { register_onednn_kernels(client.plugin()); }

}  // namespace hhlo
