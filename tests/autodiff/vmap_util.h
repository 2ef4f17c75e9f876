// Checks of vmap against stacking: `vmap(f)(xs)` is compiled and run on the CPU plugin and compared
// with f compiled per example and run once per slice of the inputs, the results stacked.
#pragma once

#include <vector>

#include "hhlo/autodiff/vmap.h"
#include "hhlo/core/array.h"

namespace hhlo::test {

/// a[..., i, ...]: the slice at index `i` of axis `axis`, that axis removed.
Array take(const Array& a, int64_t axis, int64_t i);
/// The arrays (one shape) stacked along a new axis `axis`.
Array stack(const std::vector<Array>& xs, int64_t axis);
/// Expects equal dtypes and dims and values within `tol` (relative to max(1, |want|); exact for
/// integer and pred arrays; NaNs equal). `what` names the comparison in failures.
void expect_close(const Array& got, const Array& want, double tol, const std::string& what);

/// Builds vmap(fn, in_axes, out_axes) over the batched `inputs` (verified), runs it, and compares
/// each result with fn run per example on the slices of the inputs, stacked along out_axes.
/// Returns the batched results.
std::vector<Array> check_vmap(const ad::TraceFn& fn, const std::vector<Array>& inputs,
                              const std::vector<ad::Axis>& in_axes = {},
                              const std::vector<ad::Axis>& out_axes = {}, double tol = 1e-12);

}  // namespace hhlo::test
