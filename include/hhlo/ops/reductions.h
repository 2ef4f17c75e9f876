// NumPy-style reductions over axes (stablehlo.reduce) and the numerically stable softmax family.
#pragma once

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

}  // namespace hhlo::np
