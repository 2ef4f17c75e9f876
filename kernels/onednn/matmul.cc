// The typed XLA FFI handler `hhlo_onednn_matmul` (hhlo/onednn/kernels.h): a StableHLO dot_general
// of f32 tensors seen as a batch of matrix products, src [B..., M, K] x weights [B..., K, N] ->
// dst [B..., M, N], the operands in their own layouts (strides), run by oneDNN's matmul. A call
// is cut into parts, one per thread (along N, else M, else the outermost batch dimension, where
// each part keeps enough work), run on the process's team (team.h), each part a one-thread
// oneDNN matmul over its slice of the buffers. Each distinct call gets its parts and their
// primitives once, cached for the process; every execution binds the buffers to them. Where
// oneDNN has only its reference implementation for the operands' strides, the operands are first
// copied to row-major ones (a reorder) and its optimised one runs. Nothing throws into XLA
// (hhlo::kernel::guarded): a malformed call or a problem oneDNN refuses is an INVALID_ARGUMENT
// naming the target.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common.h"
#include "hhlo/onednn/kernels.h"
#include "hhlo/runtime/custom_call_kernel.h"
#include "team.h"
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

/// One matrix product as oneDNN is told it: dimensions and strides (elements) of src, weights
/// and dst.
struct Shape {
  dims src, src_strides, wei, wei_strides, dst, dst_strides;
};

/// One part of a call: its product and where its operands start in the call's buffers (elements).
struct Part {
  Shape shape;
  int64_t src_at = 0, wei_at = 0, dst_at = 0;
};

// A part gets at least this much work (multiply-adds, tens of microseconds on one core): handing
// a part to the team costs microseconds.
constexpr double kMinMacsPerPart = 1 << 17;
// A cut of N keeps parts a multiple of 16 columns (one AVX-512 vector) and at least 32 wide; a
// cut of M at least 8 rows: narrower parts run oneDNN's kernels at a fraction of their speed.
constexpr int64_t kColumnStep = 16, kMinColumns = 32, kMinRows = 8;

dims to_dims(ffi::Span<const int64_t> d) { return dims(d.begin(), d.end()); }

/// The parts to run on `threads` threads (1 for none): as many as the threads and the work allow,
/// cut along N where the parts stay at least kMinColumns wide, else along M, else along the
/// outermost batch dimension; the last part may be smaller. One part, the whole, when no cut
/// gives two.
std::vector<Part> split(const Shape& s, int threads) {
  size_t r = s.src.size();
  double macs = static_cast<double>(s.src[r - 1]);
  for (int64_t d : s.dst) macs *= static_cast<double>(d);
  int64_t want = std::min<int64_t>(threads, static_cast<int64_t>(macs / kMinMacsPerPart));
  struct Cut {
    size_t src_axis, wei_axis, dst_axis;  // the axis cut in each tensor (r: not cut)
    int64_t chunk;
  };
  auto chunk_of = [&](int64_t n, int64_t step, int64_t least) {
    int64_t c = (n + want - 1) / want;
    c = (c + step - 1) / step * step;
    return c >= least && c < n ? c : int64_t{0};
  };
  Cut cut{r, r, r, 0};
  if (want < 2)
    ;
  else if (int64_t c = chunk_of(s.dst[r - 1], kColumnStep, kMinColumns))
    cut = {r, r - 1, r - 1, c};
  else if (int64_t m = chunk_of(s.dst[r - 2], 1, kMinRows))
    cut = {r - 2, r, r - 2, m};
  else if (int64_t b = r > 2 ? chunk_of(s.dst[0], 1, 1) : 0)
    cut = {0, 0, 0, b};
  if (cut.chunk == 0) return {Part{s}};
  std::vector<Part> parts;
  int64_t n = s.dst[cut.dst_axis];
  for (int64_t start = 0; start < n; start += cut.chunk) {
    Part p{s};
    int64_t len = std::min(cut.chunk, n - start);
    auto narrow = [&](dims& d, const dims& strides, size_t axis, int64_t& at) {
      if (axis == r) return;
      d[axis] = len;
      at = start * strides[axis];
    };
    narrow(p.shape.src, s.src_strides, cut.src_axis, p.src_at);
    narrow(p.shape.wei, s.wei_strides, cut.wei_axis, p.wei_at);
    narrow(p.shape.dst, s.dst_strides, cut.dst_axis, p.dst_at);
    parts.push_back(std::move(p));
  }
  return parts;
}

dnnl::memory::desc strided(const dims& d, const dims& s) {
  return dnnl::memory::desc(d, dnnl::memory::data_type::f32, s);
}

dims row_major(const dims& d) {
  return row_major_strides(ffi::Span<const int64_t>(d.data(), d.size()));
}

/// The matmul of `src` x `wei` -> `dst`, the scratchpad ours (per call, as the convolution's).
dnnl::matmul::primitive_desc describe(const dnnl::memory::desc& src, const dnnl::memory::desc& wei,
                                      const dnnl::memory::desc& dst) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, wei, dst), attr, engine());
}

bool is_reference(const dnnl::matmul::primitive_desc& pd) {
  return std::string_view(pd.impl_info_str()).find("ref") != std::string_view::npos;
}

/// The primitive of `s` (oneDNN throws dnnl::error for a problem it cannot serve). Where only the
/// reference implementation takes the operands' strides, the inputs are reordered to row-major
/// copies, and where it still is, the output is written row-major and reordered into place (a
/// part's dst lies with the whole dst's strides).
std::unique_ptr<Problem> make_problem(const Shape& s) {
  auto p = std::make_unique<Problem>();
  p->src.plain = strided(s.src, s.src_strides);
  p->wei.plain = strided(s.wei, s.wei_strides);
  p->dst.plain = strided(s.dst, s.dst_strides);
  dnnl::memory::desc src_rm = strided(s.src, row_major(s.src));
  dnnl::memory::desc wei_rm = strided(s.wei, row_major(s.wei));
  dnnl::memory::desc dst_rm = strided(s.dst, row_major(s.dst));
  dnnl::matmul::primitive_desc pd = describe(p->src.plain, p->wei.plain, p->dst.plain);
  if (is_reference(pd)) pd = describe(src_rm, wei_rm, p->dst.plain);
  if (is_reference(pd)) pd = describe(src_rm, wei_rm, dst_rm);
  choose(p->src, pd.src_desc(), true);
  choose(p->wei, pd.weights_desc(), true);
  choose(p->dst, pd.dst_desc(), false);
  p->scratchpad = pd.scratchpad_desc();
  p->primitive = std::make_unique<dnnl::matmul>(pd);
  return p;
}

/// A call's parts, each with its primitive (parts of one shape share one).
struct Plan {
  std::vector<Part> parts;
  std::vector<const Problem*> problem;  // of each part
  std::map<std::vector<int64_t>, std::unique_ptr<Problem>> problems;
};

std::vector<int64_t> shape_key(const Shape& s) {
  std::vector<int64_t> k;
  for (const dims* d : {&s.src, &s.src_strides, &s.wei, &s.wei_strides, &s.dst, &s.dst_strides})
    k.insert(k.end(), d->begin(), d->end());
  return k;
}

/// The plan of `a` on `threads` threads, made on first use and cached for the process.
const Plan& plan(const Attrs& a, int threads) {
  static std::mutex mu;
  static std::map<std::vector<int64_t>, Plan> cache;
  std::vector<int64_t> key =
      key_of({a.src_dims, a.src_strides, a.weights_dims, a.weights_strides, a.dst_dims}, {threads});
  std::lock_guard lock(mu);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  use_threads(1);  // oneDNN cuts a primitive's work for the thread count at its creation
  Shape whole{to_dims(a.src_dims),        to_dims(a.src_strides), to_dims(a.weights_dims),
              to_dims(a.weights_strides), to_dims(a.dst_dims),    row_major_strides(a.dst_dims)};
  Plan p;
  p.parts = split(whole, threads);
  for (const Part& part : p.parts) {
    std::unique_ptr<Problem>& made = p.problems[shape_key(part.shape)];
    if (!made) made = make_problem(part.shape);
    p.problem.push_back(made.get());
  }
  return cache.emplace(std::move(key), std::move(p)).first->second;
}

/// The threads a call of `threads` (the attribute) runs on: that many, or default_threads() for
/// 0, and never more than the cores. The core count is read once: glibc's
/// std::thread::hardware_concurrency reads /sys/devices/system/cpu/online on every call, some
/// 20 microseconds, as much as a small dot.
int threads_for(int64_t threads) {
  static const int64_t cores = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<int>(std::min(threads > 0 ? threads : default_threads(), cores));
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
    const Plan* p = nullptr;
    try {
      p = &plan(a, threads_for(threads));
    } catch (const dnnl::error& e) {
      return ffi::Error::InvalidArgument(std::string(kOneDnnMatmulTarget) +
                                         ": oneDNN refuses the problem: " + e.what());
    }
    float *x = lhs.typed_data(), *w = rhs.typed_data(), *y = out->typed_data();
    run_parts(static_cast<int>(p->parts.size()), [&](int i) {
      const Part& part = p->parts[i];
      use_threads(1);  // each part is one thread's: oneDNN's primitives are made for one
      execute(*p->problem[i], x + part.src_at, w + part.wei_at, y + part.dst_at);
    });
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
