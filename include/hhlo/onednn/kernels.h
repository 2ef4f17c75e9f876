// oneDNN's convolution as a typed XLA FFI custom call (kernels/onednn, `hhlo_onednn`): the opt-in
// kernel that hhlo::rewrite_convolutions_for_onednn (hhlo/program/onednn_rewrite.h) substitutes for
// `stablehlo.convolution` where it applies (issue 26 item 4). oneDNN is Debian's libdnnl (2.6,
// OpenMP threading), installed by scripts/setup.sh.
//
// Target `hhlo_onednn_convolution`: operands (lhs, rhs) f32, result f32, attributes as the
// rewrite writes them (every one an i64 array unless said):
//   input_dims   [batch, feature, spatial...]  lhs dimension of each logical dimension
//   kernel_dims  [output feature, input feature, spatial...]  rhs dimension of each
//   output_dims  [batch, feature, spatial...]  result dimension of each
//   window_strides, padding_low, padding_high, rhs_dilation: one per spatial dimension
//   feature_group_count: i64
// The tensors stay in their row-major StableHLO layouts: each is described to oneDNN by its
// dimensions in oneDNN's logical order and the matching strides (no copy, no reorder), and the
// primitive is oneDNN's forward-inference direct convolution, created once per distinct shape and
// attribute set and cached for the process.
#pragma once

#include <string>
#include <vector>

#include "hhlo/runtime/client.h"
#include "hhlo/runtime/plugin.h"

namespace hhlo {

/// The target name the kernel is registered under and the rewrite emits.
inline constexpr const char* kOneDnnConvolutionTarget = "hhlo_onednn_convolution";

/// Registers `hhlo_onednn_convolution` with `plugin` for platform "Host" (register_custom_call).
/// Idempotent. Throws what register_custom_call throws (hhlo::PluginError when the plugin has no
/// FFI extension).
void register_onednn_kernels(const Plugin& plugin);
/// Same for the plugin of `client`.
void register_onednn_kernels(const Client& client);

}  // namespace hhlo
