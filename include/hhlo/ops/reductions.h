// NumPy-style reductions over axes (stablehlo.reduce), the cumulative reductions
// (stablehlo.reduce_window, as JAX lowers them on CPU) and the numerically stable softmax family.
#pragma once

#include <optional>
#include <vector>

#include "hhlo/ops/tensor.h"

namespace hhlo::np {

/// Axes to reduce: empty means all axes. Negative axes count from the end. Throws
/// ShapeError(op, "") for an axis out of range.
using Axes = std::vector<int64_t>;

/// Sum over `axes` (stablehlo.reduce with add). keepdims keeps reduced axes as size 1.
Tensor sum(Tensor x, Axes axes = {}, bool keepdims = false, Loc loc = Loc::current());
/// Mean over `axes` (sum / count in x's dtype; integer division for integers).
Tensor mean(Tensor x, Axes axes = {}, bool keepdims = false, Loc loc = Loc::current());
/// Maximum over `axes` (init: -inf for floats, the lowest value for integers).
Tensor max(Tensor x, Axes axes = {}, bool keepdims = false, Loc loc = Loc::current());
/// Minimum over `axes`.
Tensor min(Tensor x, Axes axes = {}, bool keepdims = false, Loc loc = Loc::current());
/// Index of the maximum along `axis` (first one on ties; NaN counts as maximal), as `index_type`.
Tensor argmax(Tensor x, int64_t axis, bool keepdims = false, DType index_type = DType::i32,
              Loc loc = Loc::current());
/// Index of the minimum along `axis` (first one on ties; NaN counts as minimal).
Tensor argmin(Tensor x, int64_t axis, bool keepdims = false, DType index_type = DType::i32,
              Loc loc = Loc::current());
/// exp(x - max) / sum(exp(x - max)) along `axis` (float types).
Tensor softmax(Tensor x, int64_t axis = -1, Loc loc = Loc::current());
/// x - max - log(sum(exp(x - max))) along `axis` (float types).
Tensor log_softmax(Tensor x, int64_t axis = -1, Loc loc = Loc::current());
/// log(sum(exp(x))) along `axes`, computed stably.
Tensor logsumexp(Tensor x, Axes axes = {}, bool keepdims = false, Loc loc = Loc::current());

/// jnp.cumsum(x, axis) (lax.cumsum with `reverse`): element i of `axis` is the sum of elements
/// 0..i (i..n-1 when reverse) in x's dtype (pred becomes i32, as jnp's); no axis means x
/// flattened first (result [size]). Lowered as JAX lowers it on CPU (cumred_reduce_window_impl):
/// one `stablehlo.reduce_window` with an add body, window n along `axis`, padding (n-1, 0) (or
/// (0, n-1)), init 0; its VJP, JVP and vmap rules are reduce_window's (docs/autodiff.md).
/// Throws ShapeError("cumsum", "") for an axis out of range.
Tensor cumsum(Tensor x, std::optional<int64_t> axis = std::nullopt, bool reverse = false,
              Loc loc = Loc::current());
/// jnp.cumprod (lax.cumprod): cumulative products, a reduce_window with a multiply body and init
/// 1; its gradient is JAX's (the derivative of the prefix scan), exact where x has zeros.
/// Shapes, dtypes and errors as cumsum (ShapeError("cumprod", "")).
Tensor cumprod(Tensor x, std::optional<int64_t> axis = std::nullopt, bool reverse = false,
               Loc loc = Loc::current());
/// jax.lax.cummax / jnp.maximum.accumulate: cumulative maxima, a reduce_window with a maximum
/// body and init -inf (the lowest value for integers); at ties its gradient is JAX's
/// (lax.max's tie split through the prefix scan). Shapes and errors as cumsum
/// (ShapeError("cummax", "")); pred is not accepted.
Tensor cummax(Tensor x, std::optional<int64_t> axis = std::nullopt, bool reverse = false,
              Loc loc = Loc::current());
/// jax.lax.cummin: cumulative minima (init +inf, the highest value for integers); as cummax.
Tensor cummin(Tensor x, std::optional<int64_t> axis = std::nullopt, bool reverse = false,
              Loc loc = Loc::current());
/// jax.lax.cumlogsumexp: log(cumsum(exp(x))) computed stably, a reduce_window whose body is
/// jax.lax.logaddexp's (max(a, b) + log1p(exp(-|a - b|)), a + b where a - b is NaN), init -inf.
/// Float types only (ShapeError("cumlogsumexp", "") otherwise); shapes as cumsum.
Tensor cumlogsumexp(Tensor x, std::optional<int64_t> axis = std::nullopt, bool reverse = false,
                    Loc loc = Loc::current());

}  // namespace hhlo::np
