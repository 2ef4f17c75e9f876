// Private: JAX's exported QR (two LAPACK calls with the Householder vectors between them)
// recognised while an imported program is inlined, so that it differentiates as the QR composite.
#pragma once

#include "hhlo/ir/inline.h"

namespace hhlo::ad::detail {

/// A rewrite for inline_call (one per inlined program; it remembers what it rewrote) that turns
/// JAX's QR lowering into values that differentiate as JAX's qr_jvp_rule:
/// - `lapack_?geqrf_ffi(a)` becomes the same call on stop_gradient(a) for its values, with the
///   upper triangle of the packed result (R, read by JAX's triu) taken from the composite
///   `hhlo.qr` of `a` (np::linalg::qr_composite, thin), and the Householder part (the strict
///   lower triangle and the taus) wrapped in the composite "hhlo.householder_vectors", whose
///   derivative is NaN wherever a nonzero cotangent or tangent would reach it (nothing of ours
///   reads Householder vectors except through the Q that replaces them, so a program that reads
///   them some other way gets NaN, never a silently wrong gradient; JAX has no rule for geqrf);
/// - `lapack_?orgqr_ffi` / `?ungqr_ffi` of such a packed result (straight, sliced to [m, m] or
///   padded with columns, as JAX's lowering does) and its taus becomes the composite's Q
///   (full_matrices when the result is [m, m] with m > n).
/// Other ops (and an orgqr of anything else) are copied as they are.
InlineRewrite jax_qr_rewrite();

}  // namespace hhlo::ad::detail
