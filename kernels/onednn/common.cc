// The shared pieces of the oneDNN kernels (common.h).
#include "common.h"

#include <omp.h>

namespace hhlo::onednn {

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

int default_threads() {
  static const int n = omp_get_max_threads();
  return n;
}

int use_threads(int64_t threads) {
  int n = threads > 0 ? static_cast<int>(threads) : default_threads();
  omp_set_num_threads(n);
  return n;
}

dims row_major_strides(ffi::Span<const int64_t> shape) {
  dims s(shape.size());
  int64_t step = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = step;
    step *= shape[i];
  }
  return s;
}

void choose(Operand& o, const dnnl::memory::desc& chosen, bool input) {
  o.chosen = chosen;
  if (chosen == o.plain) return;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // reorders of these sizes need none
  o.reorder = std::make_unique<dnnl::reorder>(
      input ? dnnl::reorder::primitive_desc(engine(), o.plain, engine(), chosen, attr)
            : dnnl::reorder::primitive_desc(engine(), chosen, engine(), o.plain, attr));
}

namespace {

/// Per-thread buffers of the reordered operands and the scratchpad (XLA calls a kernel from
/// several threads; each keeps its own, grown to the largest problem it ran).
struct Buffers {
  std::vector<float> src, wei, dst;
  std::vector<char> scratch;
};

/// The memory of operand `o` over `data` (ours), and the one the primitive reads or writes: the
/// same, or `tmp` (resized) in the chosen layout.
std::pair<dnnl::memory, dnnl::memory> bind_operand(const Operand& o, void* data,
                                                   std::vector<float>& tmp) {
  dnnl::memory ours(o.plain, engine(), data);
  if (!o.reordered()) return {ours, ours};
  size_t n = o.chosen.get_size() / sizeof(float) + 1;
  if (tmp.size() < n) tmp.resize(n);
  return {ours, dnnl::memory(o.chosen, engine(), tmp.data())};
}

}  // namespace

void execute(const Problem& p, void* lhs, void* rhs, void* out) {
  thread_local dnnl::stream stream(engine());
  thread_local Buffers b;
  auto [src_ours, src] = bind_operand(p.src, lhs, b.src);
  auto [wei_ours, wei] = bind_operand(p.wei, rhs, b.wei);
  auto [dst_ours, dst] = bind_operand(p.dst, out, b.dst);
  if (b.scratch.size() < p.scratchpad.get_size()) b.scratch.resize(p.scratchpad.get_size());
  dnnl::memory pad(p.scratchpad, engine(), b.scratch.data());
  if (p.src.reordered()) p.src.reorder->execute(stream, src_ours, src);
  if (p.wei.reordered()) p.wei.reorder->execute(stream, wei_ours, wei);
  p.primitive->execute(stream, {{DNNL_ARG_SRC, src},
                                {DNNL_ARG_WEIGHTS, wei},
                                {DNNL_ARG_DST, dst},
                                {DNNL_ARG_SCRATCHPAD, pad}});
  if (p.dst.reordered()) p.dst.reorder->execute(stream, dst, dst_ours);
  stream.wait();
}

std::vector<int64_t> key_of(std::initializer_list<ffi::Span<const int64_t>> parts,
                            std::initializer_list<int64_t> extra) {
  std::vector<int64_t> k;
  for (const auto& p : parts) {
    k.push_back(static_cast<int64_t>(p.size()));
    k.insert(k.end(), p.begin(), p.end());
  }
  k.insert(k.end(), extra.begin(), extra.end());
  return k;
}

}  // namespace hhlo::onednn
