// What the oneDNN kernels of kernels/onednn share (internal): the CPU engine, the per-call
// OpenMP thread count, an operand in our layout and in the one a primitive takes, and the
// per-thread buffers of reordered copies and scratchpads.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <utility>
#include <vector>

#include "xla/ffi/api/ffi.h"

namespace hhlo::onednn {

namespace ffi = ::xla::ffi;
using dims = dnnl::memory::dims;

/// The process's CPU engine.
dnnl::engine& engine();

/// OpenMP's thread count of a thread that never set one (OMP_NUM_THREADS, else every core), read
/// once, at registration, before any call of ours sets one.
int default_threads();

/// Sets the OpenMP threads this thread's next oneDNN calls use: `threads`, or default_threads()
/// for 0, and returns that count. OpenMP's count is a per-thread setting (nthreads-var), so this
/// changes nothing for XLA's other threads; every call sets it again.
int use_threads(int64_t threads);

/// Row-major strides of a tensor of `shape`.
dims row_major_strides(ffi::Span<const int64_t> shape);

/// One tensor as a primitive takes it: ours (in XLA's buffer, `plain`) and the one the primitive
/// reads or writes (`chosen`); a reorder between them when they differ.
struct Operand {
  dnnl::memory::desc plain, chosen;
  std::unique_ptr<dnnl::reorder> reorder;  // plain -> chosen (inputs) or chosen -> plain (output)
  bool reordered() const { return reorder != nullptr; }
};

/// Sets `o.chosen`, with the reorder when it differs from `o.plain` (`input`: plain -> chosen,
/// else chosen -> plain).
void choose(Operand& o, const dnnl::memory::desc& chosen, bool input);

/// One cached problem of a kernel: its primitive (src, weights -> dst), its three operands and its
/// scratchpad.
struct Problem {
  std::unique_ptr<dnnl::primitive> primitive;
  Operand src, wei, dst;
  dnnl::memory::desc scratchpad;
};

/// Runs `p` over XLA's buffers on the calling thread's stream: the inputs reordered into
/// per-thread copies where the primitive takes another layout, the output reordered back, the
/// memory objects kept per thread and problem (`p` must live for the process), the scratchpad
/// per thread (a primitive's library-managed scratchpad is not safe across threads,
/// and XLA runs the executions of one executable on any of its threads: docs/facts.md).
void execute(const Problem& p, void* lhs, void* rhs, void* out);

/// A primitive cache key: each part with its length, then `extra` (counts such as the groups
/// and the threads: oneDNN partitions a primitive's work for the thread count at its creation).
std::vector<int64_t> key_of(std::initializer_list<ffi::Span<const int64_t>> parts,
                            std::initializer_list<int64_t> extra);

}  // namespace hhlo::onednn
