// NumPy-style shape manipulation, joining/splitting, indexing and linear algebra on Tensors.
#pragma once

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "hhlo/ops/tensor.h"

namespace hhlo::np {

/// Reshape; one entry may be -1 (inferred). Throws ShapeError("reshape", ...) on a size mismatch.
Tensor reshape(Tensor x, Dims shape, Loc loc = Loc::current());
/// Transpose; empty `axes` reverses the axes.
Tensor transpose(Tensor x, std::vector<int64_t> axes = {}, Loc loc = Loc::current());
/// Inserts a size-1 axis at `axis` (negative counts from the end of the result).
Tensor expand_dims(Tensor x, int64_t axis, Loc loc = Loc::current());
/// Removes size-1 axes (all of them when `axes` is empty). Throws ShapeError("squeeze", "") if a
/// named axis is not of size 1.
Tensor squeeze(Tensor x, std::vector<int64_t> axes = {}, Loc loc = Loc::current());
/// Joins along an existing axis (stablehlo.concatenate).
Tensor concatenate(const std::vector<Tensor>& xs, int64_t axis = 0, Loc loc = Loc::current());
/// Joins equally-shaped tensors along a new axis.
Tensor stack(const std::vector<Tensor>& xs, int64_t axis = 0, Loc loc = Loc::current());
/// Splits into `sections` equal parts along `axis`. Throws ShapeError("split", "") when the axis
/// size is not divisible.
std::vector<Tensor> split(Tensor x, int64_t sections, int64_t axis = 0, Loc loc = Loc::current());
/// Splits at the given ascending indices along `axis` (NumPy's array_split with indices).
std::vector<Tensor> split_at(Tensor x, const std::vector<int64_t>& indices, int64_t axis = 0,
                             Loc loc = Loc::current());
/// Elements of `x` at integer `indices` along `axis` (stablehlo.gather); result shape
/// x.shape[:axis] + indices.shape + x.shape[axis+1:]. Negative indices count from the end (NumPy);
/// indices still out of range are clamped (XLA), not reported.
Tensor take(Tensor x, Tensor indices, int64_t axis = 0, Loc loc = Loc::current());
/// The k largest entries along the last axis, in descending order, and their indices (i32), via
/// a two-operand stablehlo.sort. Throws ShapeError("topk", "") when k exceeds the axis size.
std::pair<Tensor, Tensor> topk(Tensor x, int64_t k, Loc loc = Loc::current());

/// jnp.sort(x, axis, stable=True, descending): `x` sorted along `axis` (no axis: x flattened
/// first), same dtype. Lowered as JAX's: a stable one-operand `stablehlo.sort` whose comparator
/// maps -0.0 to 0.0 and every NaN to one NaN and compares with TOTALORDER (NaNs last), then
/// `stablehlo.reverse` for descending. Its gradient permutes the cotangent back (the sort rules,
/// src/autodiff/rules/indexing.cc); ties keep their order. Integer, float, complex (by real part,
/// then imaginary part, each canonicalized so) and pred types; throws ShapeError("sort", "") for a
/// rank-0 x with an axis, or an axis out of range.
Tensor sort(Tensor x, std::optional<int64_t> axis = -1, bool descending = false,
            Loc loc = Loc::current());
/// jnp.argsort(x, axis, stable=True, descending): the indices (`index_type`, jnp's int32 without
/// x64) that sort `x` along `axis` (no axis: x flattened), equal elements in their original
/// order also when descending (JAX's: the reversed x sorted stably with a reversed iota, then
/// reversed). Types and errors as sort (ShapeError("argsort", "")).
Tensor argsort(Tensor x, std::optional<int64_t> axis = -1, bool descending = false,
               DType index_type = DType::i32, Loc loc = Loc::current());
/// jnp.take_along_axis(x, indices, axis): out[..., j, ...] = x[..., indices[..., j, ...], ...]
/// along `axis`; x and indices have the same rank and their other axes broadcast together (the
/// result's shape: that broadcast with indices' size on `axis`). Negative indices count from the
/// end; indices still out of range give jnp's mode "fill" value: NaN for float and complex x,
/// the lowest value for signed integers, the highest for unsigned ones, true for pred. One
/// `stablehlo.gather` with operand_batching_dims and a select, as JAX emits; its gradient is
/// gather's (a scatter-add; nothing reaches x from a filled entry). Throws
/// ShapeError("take_along_axis", "") for non-integer indices, a rank mismatch or shapes that do not
/// broadcast.
Tensor take_along_axis(Tensor x, Tensor indices, int64_t axis, Loc loc = Loc::current());

/// The `.at[indices]` updates of jax.numpy as functions (JAX's _scatter_update): `x` with the
/// rows x[indices[j]] (along axis 0) replaced by (set), or combined with (add, multiply as
/// `mul`, minimum as `min`, maximum as `max`), `values` broadcast to indices.shape +
/// x.shape[1:] and cast to x's dtype. `indices` is an integer tensor of any rank (a scalar
/// updates one row); negative indices count from the end; out-of-range updates are dropped
/// (jnp's default mode for updates). One `stablehlo.scatter` with the combining body; repeated
/// indices all apply for add / mul / min / max, and one of them wins for set (which, unspecified,
/// as in XLA). Gradients: the scatter rules (src/autodiff/rules/indexing.cc; JAX's), where
/// at_mul's gradient w.r.t. `values` needs `unique_indices` (JAX's scatter_mul neither), and
/// at_min / at_max split ties as JAX's _scatter_extremal_jvp. `unique_indices` is a promise
/// (jnp's keyword of the same name). Throws ShapeError("at_set", "") (at_add, ...) for non-integer
/// indices, a rank-0 x or values that do not broadcast.
Tensor at_set(Tensor x, Tensor indices, Tensor values, bool unique_indices = false,
              Loc loc = Loc::current());
/// x.at[indices].add(values); see at_set.
Tensor at_add(Tensor x, Tensor indices, Tensor values, bool unique_indices = false,
              Loc loc = Loc::current());
/// x.at[indices].multiply(values) (jnp's .mul); see at_set.
Tensor at_mul(Tensor x, Tensor indices, Tensor values, bool unique_indices = false,
              Loc loc = Loc::current());
/// x.at[indices].min(values); see at_set.
Tensor at_min(Tensor x, Tensor indices, Tensor values, bool unique_indices = false,
              Loc loc = Loc::current());
/// x.at[indices].max(values); see at_set.
Tensor at_max(Tensor x, Tensor indices, Tensor values, bool unique_indices = false,
              Loc loc = Loc::current());

/// jax.lax.dynamic_slice(x, start_indices, slice_sizes): the [slice_sizes] window of `x` at
/// run-time scalar integer starts (one per axis; each clamped so that the window fits, as XLA
/// and JAX). Starts of different integer types are converted to i32 (JAX converts to a common
/// type). One `stablehlo.dynamic_slice`; its gradient is a dynamic_update_slice of zeros, its
/// batching a gather when the starts are batched. Throws ShapeError("dynamic_slice", ...) for a
/// wrong count of starts, non-scalar or non-integer starts, or sizes larger than x's.
Tensor dynamic_slice(Tensor x, const std::vector<Tensor>& start_indices, const Dims& slice_sizes,
                     Loc loc = Loc::current());
/// jax.lax.dynamic_update_slice(x, update, start_indices): x with the window at the (clamped)
/// starts replaced by `update` (cast to x's dtype). One `stablehlo.dynamic_update_slice`; starts
/// as dynamic_slice. Throws ShapeError("dynamic_update_slice", ...) for a wrong count of starts,
/// an update of another rank or larger than x.
Tensor dynamic_update_slice(Tensor x, Tensor update, const std::vector<Tensor>& start_indices,
                            Loc loc = Loc::current());

/// NumPy matmul: 1-D operands promoted and the added axis removed afterwards, batch dimensions
/// broadcast (stablehlo.dot_general). Throws ShapeError("matmul", "") when inner sizes differ.
Tensor matmul(Tensor a, Tensor b, Loc loc = Loc::current());
/// Two-operand einsum such as "bij,bjk->bik" (explicit output required; no ellipsis, no label
/// repeated within one operand). Labels only in one operand and absent from the output are
/// summed first. Throws ShapeError("einsum", "") on a malformed spec or size mismatch.
Tensor einsum(std::string_view spec, Tensor a, Tensor b, Loc loc = Loc::current());

}  // namespace hhlo::np
