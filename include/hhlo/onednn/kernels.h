// oneDNN's convolution and matmul as typed XLA FFI custom calls (kernels/onednn, `hhlo_onednn`):
// the opt-in kernels that hhlo::rewrite_for_onednn (hhlo/program/onednn_rewrite.h) substitutes for
// `stablehlo.convolution` and `stablehlo.dot_general` where they apply (issue 26). oneDNN is
// Debian's libdnnl (2.6, OpenMP threading), installed by scripts/setup.sh.
//
// Target `hhlo_onednn_convolution`: operands (lhs, rhs) f32, result f32, attributes as the
// rewrite writes them (every one an i64 array unless said):
//   input_dims   [batch, feature, spatial...]  lhs dimension of each logical dimension
//   kernel_dims  [output feature, input feature, spatial...]  rhs dimension of each
//   output_dims  [batch, feature, spatial...]  result dimension of each
//   window_strides, padding_low, padding_high, rhs_dilation: one per spatial dimension
//   feature_group_count: i64
//   threads: i64, the OpenMP threads oneDNN runs this call on: 0 its default (OMP_NUM_THREADS,
//     else every core), n > 0 at most n (1: on the calling XLA thread alone). Set per call on
//     the calling thread (OpenMP's count is per thread), so XLA's other threads are untouched.
// The tensors keep their row-major StableHLO layouts in XLA's buffers: oneDNN chooses the layouts
// its fastest forward-inference direct convolution wants (format `any`), and our operands are
// reordered to and from them around the call where they differ (for NHWC f32 on AVX-512 only
// the weights). The primitive is made once per distinct shape, attribute set and thread count
// and cached for the process; the reordered copies and the scratchpad are per calling thread.
//
// Target `hhlo_onednn_matmul`: operands (lhs, rhs) f32, result f32: a dot_general seen as the
// batched matrix product src [B..., M, K] x weights [B..., K, N] -> dst [B..., M, N] (rank 2 to
// 12; the rewrite merges each group of free and contracting dimensions into one). Attributes,
// i64 arrays but the last:
//   src_dims, src_strides          [B..., M, K] and where each lies in lhs's buffer (elements)
//   weights_dims, weights_strides  [B..., K, N] and where each lies in rhs's buffer
//   dst_dims                       [B..., M, N], row-major in the result's buffer
//   threads: i64, the threads the call runs on: 0 as many as the convolution's default, n > 0 at
//     most n, never more than the cores. Not OpenMP's: the call is cut into parts (along N, else
//     M, else the outermost batch dimension, each part at least some 10^5 multiply-adds), part 0
//     runs on the calling XLA thread and the others on one fork-join team of the process, shared
//     by every caller (a caller that finds it busy runs its parts itself; a part no team thread
//     has taken when the caller ends part 0 runs on the caller too); each part is a
//     one-thread oneDNN matmul. OpenMP teams, one per calling XLA thread, contend for the cores
//     (docs/facts.md).
// oneDNN's matmul reads the operands in place (its AVX-512 brgemm kernels take either of the
// last two dimensions dense); where only its reference implementation takes the strides, the
// operands are first copied row-major (and the result written row-major and copied into place). An
// operand whose dimensions and strides reach past its buffer, or dimensions that do not chain, are
// an INVALID_ARGUMENT naming the target.
#pragma once

#include <string>
#include <vector>

#include "hhlo/runtime/client.h"
#include "hhlo/runtime/plugin.h"

namespace hhlo {

/// The target name the kernel is registered under and the rewrite emits.
inline constexpr const char* kOneDnnConvolutionTarget = "hhlo_onednn_convolution";

/// The matmul kernel's target name.
inline constexpr const char* kOneDnnMatmulTarget = "hhlo_onednn_matmul";

/// Registers `hhlo_onednn_convolution` and `hhlo_onednn_matmul` with `plugin` for platform
/// "Host" (register_custom_call).
/// Idempotent. Throws what register_custom_call throws (hhlo::PluginError when the plugin has no
/// FFI extension).
void register_onednn_kernels(const Plugin& plugin);
/// Same for the plugin of `client`.
void register_onednn_kernels(const Client& client);

}  // namespace hhlo
