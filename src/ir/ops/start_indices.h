// Internal to src/ir/ops: unsigned start indices made signed before they reach the plugin.
//
// XLA's CPU plugins (xla-cpu-pjrt 0.0.1 and the 0.115 plugin alike, and jaxlib's XLA:CPU) misread
// a *constant* unsigned start index: dynamic_slice(iota(200), constant ui8 128, sizes = [1])
// gives [0] where the spec says [128] (docs/facts.md). The builders of dynamic_slice,
// dynamic_update_slice, gather and scatter therefore never emit an unsigned start index: they
// clamp it in the unsigned domain, then convert it to a signed type wide enough for every value
// left, which gives the program the spec's meaning whatever the plugin does with unsigned ones.
#pragma once

#include <cstdint>
#include <vector>

#include "hhlo/ir/ops.h"

namespace hhlo::detail {

/// The signed type unsigned indices become: ui8 -> i16, ui16 -> i32, ui32 and ui64 -> i64.
DType signed_index_type(DType unsigned_type);

/// A scalar start index of an unsigned type `u` as a signed one: minimum(index, bound) when
/// `bound` (the largest start the op can use, dim - size; INT64_MAX when unknown) is below the
/// largest value of `u`, then convert to signed_index_type(u). Signed indices are returned as
/// they are. Appends to the index's function at `loc`.
Value signed_start_index(Value index, int64_t bound, Loc loc);

/// The same for a tensor of start indices whose component k along `index_vector_dim` (==
/// rank for scalar components) starts operand dimension k's slice, with `bounds[k]` its largest
/// useful start: clamped component-wise (one scalar clamp when the bounds are equal or the shape
/// is dynamic: then with the largest bound, which still keeps every value below INT64_MAX and
/// leaves the rest to the op's own clamping), then converted.
Value signed_start_indices(Value indices, int64_t index_vector_dim,
                           const std::vector<int64_t>& bounds, Loc loc);

}  // namespace hhlo::detail
