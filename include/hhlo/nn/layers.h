// Neural-network layers built from StableHLO ops (through the NumPy layer hhlo/ops), so every
// layer is differentiable by hhlo::ad. Shapes are given as [dims] with the element type of the
// inputs (f32 or f64 unless said otherwise). Errors are the ShapeErrors of the underlying ops.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hhlo/autodiff/params.h"
#include "hhlo/ops/ops.h"

namespace hhlo::nn {

// ---------------------------------------------------------------- activations

/// jax.nn.relu: np::relu (max(x, 0), same shape and dtype; derivative select(x > 0, 1, 0), 0 at
/// 0 as JAX's custom_jvp, not maximum's tie split 0.5).
Tensor relu(Tensor x, Loc loc = Loc::current());
/// GELU, tanh approximation (JAX `approximate=True`): 0.5 x (1 + tanh(sqrt(2/pi)(x + 0.044715
/// x^3))).
Tensor gelu(Tensor x, Loc loc = Loc::current());
/// SiLU / swish: x * logistic(x).
Tensor silu(Tensor x, Loc loc = Loc::current());

// ---------------------------------------------------------------- dense / losses

/// x [..., in] @ w [in, out] + b [out] -> [..., out] (dot_general + broadcast add). `b` optional.
Tensor dense(Tensor x, Tensor w, std::optional<Tensor> b = std::nullopt, Loc loc = Loc::current());
/// dense with parameters `prefix/w` and `prefix/b` from `p`.
Tensor dense(Tensor x, const ad::Params& p, const std::string& prefix, Loc loc = Loc::current());

/// One-hot of integer `labels` [...] into `classes` columns of dtype `dtype`: [..., classes]
/// (iota + compare + convert). Labels outside [0, classes) give an all-zero row.
Tensor one_hot(Tensor labels, int64_t classes, DType dtype, Loc loc = Loc::current());
/// Mean softmax cross-entropy of `logits` [batch, classes] against integer `labels` [batch]
/// (any integer type), computed stably as -mean(sum(one_hot * log_softmax(logits))). Scalar result.
Tensor softmax_cross_entropy(Tensor logits, Tensor labels, Loc loc = Loc::current());

// ---------------------------------------------------------------- convolution / pooling

/// Layout of activations for conv2d and pooling.
enum class Layout : uint8_t { NHWC, NCHW };
/// Padding mode: SAME (output = ceil(in / stride)), VALID (no padding), or explicit pairs.
struct Padding {
  enum class Kind : uint8_t { same, valid, explicit_ } kind = Kind::valid;
  /// For explicit_: {{top, bottom}, {left, right}}.
  std::vector<std::pair<int64_t, int64_t>> pads;
  /// SAME: pad so that output = ceil(input / stride), the odd cell at the end (as XLA / JAX).
  static Padding same() { return {Kind::same, {}}; }
  /// VALID: no padding.
  static Padding valid() { return {Kind::valid, {}}; }
  /// Explicit (low, high) pairs per spatial dimension (may be negative: cropping).
  static Padding explicit_pads(std::vector<std::pair<int64_t, int64_t>> p) {
    return {Kind::explicit_, std::move(p)};
  }
};
/// Options of conv2d.
struct Conv2dOptions {
  Layout layout = Layout::NHWC;
  std::vector<int64_t> stride = {1, 1};
  Padding padding = Padding::valid();
  std::vector<int64_t> dilation = {1, 1};
  /// feature_group_count: input channels and output channels must both divide by it.
  int64_t groups = 1;
};
/// 2-D convolution (stablehlo.convolution). x: [N, H, W, C] (NHWC) or [N, C, H, W] (NCHW);
/// w: [KH, KW, C / groups, O] (HWIO) always; b: [O] optional. Result in x's layout.
Tensor conv2d(Tensor x, Tensor w, std::optional<Tensor> b = std::nullopt,
              const Conv2dOptions& options = {}, Loc loc = Loc::current());
/// Transposed 2-D convolution as jax.lax.conv_transpose (transpose_kernel=False): a convolution
/// with lhs_dilation = stride and padding from `padding` (SAME: output = input * stride; VALID:
/// (input - 1) * stride + kernel; explicit pairs used as given). x in `layout`, w HWIO
/// [KH, KW, C, O], b [O] optional. Dilation and groups of `options` are not used.
Tensor conv2d_transpose(Tensor x, Tensor w, std::optional<Tensor> b = std::nullopt,
                        const Conv2dOptions& options = {}, Loc loc = Loc::current());
/// Options of pooling.
struct PoolOptions {
  Layout layout = Layout::NHWC;
  std::vector<int64_t> window = {2, 2};
  /// Empty: equal to window.
  std::vector<int64_t> stride = {};
  Padding padding = Padding::valid();
};
/// Max pooling over the spatial dims (stablehlo.reduce_window with maximum; -inf padding).
Tensor max_pool(Tensor x, const PoolOptions& options = {}, Loc loc = Loc::current());
/// Average pooling (reduce_window sum / window size; padded cells count, as in flax avg_pool).
Tensor avg_pool(Tensor x, const PoolOptions& options = {}, Loc loc = Loc::current());

// ---------------------------------------------------------------- normalization / regularization

/// Layer norm over the last axis: (x - mean) / sqrt(var + eps) * gamma + beta; gamma/beta [last].
Tensor layer_norm(Tensor x, Tensor gamma, Tensor beta, double eps = 1e-5, Loc loc = Loc::current());
/// Result of batch_norm in training mode.
struct BatchNormResult {
  Tensor y;
  /// Updated running statistics: momentum * old + (1 - momentum) * batch statistic.
  Tensor running_mean, running_var;
};
/// Batch norm over every axis but `feature_axis` (training mode: batch statistics, biased
/// variance). gamma, beta, running_mean, running_var: [features].
BatchNormResult batch_norm_train(Tensor x, Tensor gamma, Tensor beta, Tensor running_mean,
                                 Tensor running_var, int64_t feature_axis = -1,
                                 double momentum = 0.9, double eps = 1e-5,
                                 Loc loc = Loc::current());
/// Batch norm in inference mode with the running statistics.
Tensor batch_norm_infer(Tensor x, Tensor gamma, Tensor beta, Tensor running_mean,
                        Tensor running_var, int64_t feature_axis = -1, double eps = 1e-5,
                        Loc loc = Loc::current());
/// Inverted dropout: keeps each element with probability 1 - rate and scales it by 1/(1 - rate).
/// `key` is a ui64 [2] state for stablehlo.rng_bit_generator (THREE_FRY); returns (y, new key) so
/// the caller threads keys explicitly. rate == 0 returns x and the key unchanged. Throws
/// hhlo::Error for a rate outside [0, 1).
std::pair<Tensor, Tensor> dropout(Tensor x, double rate, Tensor key, Loc loc = Loc::current());
/// Rows of `table` [vocab, dim] selected by integer `ids` [...] -> [..., dim], computed as
/// one_hot(ids) @ table so the gradient is a dense matmul (no scatter needed).
Tensor embedding(Tensor table, Tensor ids, Loc loc = Loc::current());

// ---------------------------------------------------------------- attention

/// Multi-head self/cross attention: q_in [B, Tq, D], kv_in [B, Tk, D]; parameters under `prefix`:
/// q/w, k/w, v/w, o/w ([D, D]) and q/b, k/b, v/b, o/b ([D]). `mask` optional, broadcastable to
/// [B, heads, Tq, Tk], i1 true = attend. Result [B, Tq, D]. Throws hhlo::Error when D % heads != 0.
Tensor multi_head_attention(Tensor q_in, Tensor kv_in, const ad::Params& p,
                            const std::string& prefix, int64_t heads,
                            std::optional<Tensor> mask = std::nullopt, Loc loc = Loc::current());

}  // namespace hhlo::nn
