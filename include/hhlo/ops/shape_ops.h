// NumPy-style shape manipulation, joining/splitting, indexing and linear algebra on Tensors.
#pragma once

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

/// NumPy matmul: 1-D operands promoted and the added axis removed afterwards, batch dimensions
/// broadcast (stablehlo.dot_general). Throws ShapeError("matmul", "") when inner sizes differ.
Tensor matmul(Tensor a, Tensor b, Loc loc = Loc::current());
/// Two-operand einsum such as "bij,bjk->bik" (explicit output required; no ellipsis, no label
/// repeated within one operand). Labels only in one operand and absent from the output are
/// summed first. Throws ShapeError("einsum", "") on a malformed spec or size mismatch.
Tensor einsum(std::string_view spec, Tensor a, Tensor b, Loc loc = Loc::current());

}  // namespace hhlo::np
