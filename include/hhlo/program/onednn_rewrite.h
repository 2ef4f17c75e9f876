// The opt-in rewrite of `stablehlo.convolution` into oneDNN's convolution (issue 26 item 4): a
// program-stage pass that copies a prepared module, replacing each convolution oneDNN can run as
// StableHLO defines it by a call of the `hhlo_onednn_convolution` custom call (served by
// kernels/onednn, hhlo/onednn/kernels.h, which the client must have registered). Opt-in because
// it is faster only where measured (docs/benchmarks.md, "oneDNN convolutions"); `hhlo run` and
// `hhlo bench` take `--onednn-convolution`.
#pragma once

#include "hhlo/ir/module.h"

namespace hhlo {

/// What rewrite_convolutions_for_onednn did.
struct OneDnnRewrite {
  /// The copied module: `@main` with every call inlined (attributes of the module, of `@main` and
  /// of its arguments and results kept), its convolutions rewritten where they can be.
  Module module;
  /// Convolutions replaced by `hhlo_onednn_convolution`.
  int rewritten = 0;
  /// Convolutions left as they are, and why not the first of them (empty when none was left).
  int kept = 0;
  std::string first_kept_reason;
};

/// Copies `module`'s `@main` (a prepared program: static shapes), replacing each
/// `stablehlo.convolution` that oneDNN runs as the spec defines it: f32 operands and result, 1 to
/// 3 spatial dimensions, no lhs dilation (a transposed convolution), no window reversal,
/// batch_group_count 1, non-negative padding, no precision beyond the default. Every other op,
/// and every convolution outside these (counted in `kept`), is copied as it is. A module written
/// for more than one partition (`mhlo.num_partitions` > 1 or `sdy.mesh`es) is returned copied and
/// unchanged: XLA's partitioner cannot split a custom call. Each call carries `threads`, the
/// OpenMP threads oneDNN runs it on (0: oneDNN's default, every core or OMP_NUM_THREADS; 1: the
/// calling XLA thread alone, which measured fastest inside a training step on 2 cores, where
/// oneDNN's threads otherwise contend with XLA's: docs/benchmarks.md "oneDNN convolutions").
/// Throws hhlo::Error when the module has no `@main` that returns or `threads` < 0, and what
/// inline_call throws (hhlo/ir/inline.h).
OneDnnRewrite rewrite_convolutions_for_onednn(const Module& module, int threads = 0);

}  // namespace hhlo
