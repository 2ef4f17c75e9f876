// Element-wise comparison with the StableHLO reference interpreter's rules for the conformance
// corpus's `check.expect_eq / expect_close / expect_almost_eq` custom calls (see
// ../shared/conformance/README.md). Shared by the host-side comparison and the FFI handlers.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "hhlo/core/tensor_type.h"

namespace hhlo::conformance {

/// Which check a `check.*` custom call performs.
enum class CheckKind {
  /// `check.expect_eq`: equal elements (floats: equal values or both NaN).
  eq,
  /// `check.expect_close`: at most kMaxUlp units in the last place apart per element (complex:
  /// the larger of the real and imaginary distances); NaN matches any NaN; any other non-finite
  /// value must match bit for bit. Integers and booleans: equal.
  close,
  /// `check.expect_almost_eq`: |actual - expected| <= kAlmostEqTolerance when both have the same
  /// sign or one is zero (complex: each part); NaN matches NaN. Integers and booleans: equal.
  almost_eq,
};

/// ULP budget of CheckKind::close.
inline constexpr int kMaxUlp = 3;
/// Absolute tolerance of CheckKind::almost_eq.
inline constexpr double kAlmostEqTolerance = 1e-3;

/// The kind for a custom-call target such as "check.expect_close"; nullopt for other targets.
std::optional<CheckKind> check_kind(std::string_view target);
/// The target name of `kind`: "check.expect_eq", "check.expect_close", "check.expect_almost_eq".
std::string_view check_target(CheckKind kind);

/// Compares two dense row-major arrays of `type` element by element with `kind`'s rule.
/// Returns nullopt when every element passes, else a message naming the check, how many elements
/// differ, and the first one (multi-index, actual, expected, distance), e.g.
/// "check.expect_close: 2 of 400 elements differ; first at [0, 3]: actual 1.5, expected 1.25
/// (4194304 ULP apart, at most 3 allowed)". Throws hhlo::Error for a dynamic shape.
std::optional<std::string> compare(CheckKind kind, const TensorType& type, const void* actual,
                                   const void* expected);

}  // namespace hhlo::conformance
