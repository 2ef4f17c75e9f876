// The shared pieces of the oneDNN kernels (common.h).
#include "common.h"

#include <omp.h>

#include <unordered_map>

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

/// `tmp` grown to hold a tensor of `d`, and its data.
void* room_for(const dnnl::memory::desc& d, std::vector<float>& tmp) {
  size_t n = d.get_size() / sizeof(float) + 1;
  if (tmp.size() < n) tmp.resize(n);
  return tmp.data();
}

/// One thread's memory objects of one problem, made on its first execution there and kept:
/// making them costs allocations inside oneDNN, a few microseconds a call, more than a small
/// dot's work. Each execution only points them at its buffers.
struct Bound {
  explicit Bound(const Problem& p)
      : src_ours(p.src.plain, engine(), nullptr),
        wei_ours(p.wei.plain, engine(), nullptr),
        dst_ours(p.dst.plain, engine(), nullptr),
        src(p.src.reordered() ? dnnl::memory(p.src.chosen, engine(), nullptr) : src_ours),
        wei(p.wei.reordered() ? dnnl::memory(p.wei.chosen, engine(), nullptr) : wei_ours),
        dst(p.dst.reordered() ? dnnl::memory(p.dst.chosen, engine(), nullptr) : dst_ours),
        pad(p.scratchpad, engine(), nullptr),
        args{{DNNL_ARG_SRC, src},
             {DNNL_ARG_WEIGHTS, wei},
             {DNNL_ARG_DST, dst},
             {DNNL_ARG_SCRATCHPAD, pad}} {}
  dnnl::memory src_ours, wei_ours, dst_ours;  // over XLA's buffers
  dnnl::memory src, wei, dst;                 // what the primitive reads and writes
  dnnl::memory pad;
  std::unordered_map<int, dnnl::memory> args;
};

}  // namespace

void execute(const Problem& p, void* lhs, void* rhs, void* out) {
  thread_local dnnl::stream stream(engine());
  thread_local Buffers b;
  thread_local std::unordered_map<const Problem*, Bound> bound;  // problems live for the process
  Bound& m = bound.try_emplace(&p, p).first->second;
  m.src_ours.set_data_handle(lhs);
  m.wei_ours.set_data_handle(rhs);
  m.dst_ours.set_data_handle(out);
  if (p.src.reordered()) m.src.set_data_handle(room_for(p.src.chosen, b.src));
  if (p.wei.reordered()) m.wei.set_data_handle(room_for(p.wei.chosen, b.wei));
  if (p.dst.reordered()) m.dst.set_data_handle(room_for(p.dst.chosen, b.dst));
  if (b.scratch.size() < p.scratchpad.get_size()) b.scratch.resize(p.scratchpad.get_size());
  m.pad.set_data_handle(b.scratch.data());
  if (p.src.reordered()) p.src.reorder->execute(stream, m.src_ours, m.src);
  if (p.wei.reordered()) p.wei.reorder->execute(stream, m.wei_ours, m.wei);
  p.primitive->execute(stream, m.args);
  if (p.dst.reordered()) p.dst.reorder->execute(stream, m.dst, m.dst_ours);
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
