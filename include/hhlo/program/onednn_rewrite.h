// The opt-in rewrite of `stablehlo.convolution` and `stablehlo.dot_general` into oneDNN's kernels
// (issue 26): a program-stage pass that copies a prepared module, replacing each convolution
// and each dot_general oneDNN can run as StableHLO defines it by a call of its kernel
// (`hhlo_onednn_convolution`, `hhlo_onednn_matmul`: kernels/onednn, hhlo/onednn/kernels.h, which
// the client must have registered). Opt-in because it is faster only where measured
// (docs/benchmarks.md, "oneDNN kernels"); `hhlo run` and `hhlo bench` take
// `--onednn-convolution` and `--onednn-dot-general`, and `hhlo tune` tries both.
#pragma once

#include <string>

#include "hhlo/ir/module.h"

namespace hhlo {

/// Which ops rewrite_for_onednn swaps for oneDNN's kernels, and the threads those run on.
struct OneDnnOps {
  /// `stablehlo.convolution` -> `hhlo_onednn_convolution`.
  bool convolution = false;
  /// `stablehlo.dot_general` -> `hhlo_onednn_matmul`.
  bool dot_general = false;
  /// The threads each call runs on (0: oneDNN's default, every core or OMP_NUM_THREADS; 1: the
  /// calling XLA thread alone, which measured fastest for convolutions inside a training step on
  /// 2 cores, where oneDNN's OpenMP threads otherwise contend with XLA's: docs/benchmarks.md).
  /// Convolutions run on OpenMP threads, matmuls on the kernel's own team (hhlo/onednn/kernels.h).
  int threads = 0;
  /// Whether it rewrites anything at all.
  bool any() const { return convolution || dot_general; }
  /// "convolutions", "dot_generals" or "convolutions and dot_generals", with " (N thread(s))"
  /// when threads is not 0; "nothing" when neither.
  std::string describe() const;
  bool operator==(const OneDnnOps&) const = default;
};

/// What rewrite_for_onednn did.
struct OneDnnRewrite {
  /// The copied module: `@main` with every call inlined (attributes of the module, of `@main` and
  /// of its arguments and results kept), its convolutions and dot_generals rewritten where they
  /// can be.
  Module module;
  /// Ops replaced by a kernel's call.
  int rewritten = 0;
  /// Ops of the chosen kinds left as they are, and why not the first of them ("convolution: a
  /// f64 operand"; empty when none was left).
  int kept = 0;
  std::string first_kept_reason;
};

/// Copies `module`'s `@main` (a prepared program: static shapes), replacing, at any region depth
/// (a scan's body too):
/// - with ops.convolution, each `stablehlo.convolution` that oneDNN runs as the spec defines it:
///   f32 operands and result, 1 to 3 spatial dimensions, no lhs dilation (a transposed
///   convolution), no window reversal, batch_group_count 1, non-negative padding;
/// - with ops.dot_general, each `stablehlo.dot_general` of f32 operands and result without a
///   dot algorithm, no empty operand, whose free and contracting dimensions each lie as one
///   matrix dimension in the row-major operands (JAX's matmuls, einsums over adjacent
///   dimensions and attention's batched products do) and with at most 10 batch dimensions of
///   more than one element; the precision config is moot on CPU (f32 is computed in f32).
/// Every other op, and every op of those kinds outside these (counted in `kept`), is copied as
/// it is. A module written for more than one partition (`mhlo.num_partitions` > 1 or
/// `sdy.mesh`es) is returned copied and unchanged: XLA's partitioner cannot split a custom call.
/// Each call carries ops.threads. Throws hhlo::Error when the module has no `@main` that
/// returns or ops.threads < 0, and what inline_call throws (hhlo/ir/inline.h).
OneDnnRewrite rewrite_for_onednn(const Module& module, const OneDnnOps& ops);

}  // namespace hhlo
