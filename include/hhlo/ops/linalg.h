// hhlo::np::linalg: NumPy/JAX linear algebra on Tensors, built as JAX lowers it on CPU:
// cholesky and triangular_solve on the native StableHLO ops; lu, solve, inv, det, slogdet, eigh,
// svd, qr and lstsq on stablehlo.custom_call to jaxlib's LAPACK targets (the same operand and
// result layouts and attributes as JAX's exports; served by kernels/lapack, which a Session and
// `hhlo run` register) plus native ops for the rest; qr is one stablehlo.composite "hhlo.qr" around
// its two calls. VJP and JVP rules: the native ops', the custom calls' (getrf, syevd/heevd,
// gesdd) and the QR composite's in src/autodiff/rules/linalg.cc.
#pragma once

#include <string_view>

#include "hhlo/ops/tensor.h"

namespace hhlo::np::linalg {

/// jnp.linalg.cholesky: the lower factor L of each trailing [n, n] matrix of `a` (a = L L^H), with
/// zeros above the diagonal (stablehlo.cholesky, lower). As JAX's default, `symmetrize_input`
/// factors (a + a^H) / 2, so both triangles are read and the gradient w.r.t. `a` is symmetric;
/// `symmetrize_input = false` reads only a's lower triangle (the gradient lands there: the
/// off-diagonal part doubled, zeros above). Same dims and dtype as `a`: f32, f64 (complex64,
/// complex128: forward only, no VJP). Throws ShapeError("cholesky", ...) for a non-square or
/// rank < 2 `a`.
Tensor cholesky(Tensor a, bool symmetrize_input = true, Loc loc = Loc::current());

/// The four switches of `triangular_solve`, by name: `{.lower = false, .transpose = true}`
/// (four adjacent bools could be swapped without a compile error).
struct SolveTriangular {
  /// `a` is lower triangular (else upper); only that triangle is read.
  bool lower = true;
  /// op(a) = a^T (else a).
  bool transpose = false;
  /// Assume ones on the diagonal of `a`.
  bool unit_diagonal = false;
  /// Solve op(a) x = b (else x op(a) = b).
  bool left_side = true;
};

/// jax.scipy.linalg.solve_triangular: x with op(a) x = b (`left_side`) or x op(a) = b, a
/// [..., k, k] lower (or upper) triangular (only that triangle is read; `unit_diagonal` assumes
/// ones on the diagonal), op(a) = a^T when `transpose` (stablehlo.triangular_solve). b
/// [..., m, n] with the same batch dims. Throws ShapeError("triangular_solve", ...) on mismatch.
Tensor triangular_solve(Tensor a, Tensor b, SolveTriangular how = {}, Loc loc = Loc::current());

/// jax.lax.linalg.lu: the pivoted LU factorisation of each trailing [m, n] matrix of `a` (f32,
/// f64, complex64, complex128; batch dims outermost), a[..., permutation, :] = L U, through the
/// LAPACK custom call `lapack_?getrf_ffi` (jaxlib's target, served by kernels/lapack).
struct LuResult {
  /// [..., m, n]: L (unit diagonal, below it) and U (diagonal and above) packed in one matrix.
  Tensor lu;
  /// [..., min(m, n)] i32, 0-based: row i was swapped with row pivots[i].
  Tensor pivots;
  /// [..., m] i32: the row permutation the pivots describe.
  Tensor permutation;
};
/// Throws ShapeError("lu", ...) for rank < 2 or an unsupported dtype.
LuResult lu(Tensor a, Loc loc = Loc::current());

/// jax.lax.linalg.lu_pivots_to_permutation: `pivots` [..., k] (i32, 0-based LAPACK row swaps
/// applied in order) as the permutation [..., permutation_size] of iota they produce (one
/// stablehlo.while over k). Throws ShapeError("lu_pivots_to_permutation", ...) for a non-i32 or
/// rank-0 `pivots` or permutation_size < k.
Tensor lu_pivots_to_permutation(Tensor pivots, int64_t permutation_size, Loc loc = Loc::current());

/// jnp.linalg.solve: x with a x = b for a [..., n, n] and b [..., n, k] (batch dims broadcast;
/// result [..., n, k]) or b [n] (one vector for every matrix, as JAX >= 0.5; result [..., n]).
/// Through lu (getrf) and two native stablehlo.triangular_solve. f32, f64, complex64, complex128 (b
/// of a's dtype). A singular a gives infinities / NaNs, as JAX. Throws ShapeError("solve", ...) on
/// shapes or dtypes that do not match.
Tensor solve(Tensor a, Tensor b, Loc loc = Loc::current());

/// jnp.linalg.inv: the inverse of each trailing [n, n] matrix (solve with the identity). Dtypes
/// and errors as solve (ShapeError("inv", ...)).
Tensor inv(Tensor a, Loc loc = Loc::current());

/// jnp.linalg.det: the determinant [...] of each trailing [n, n] matrix, sign * exp(logabsdet)
/// of slogdet as JAX computes it for n > 3 (JAX has closed forms for 2x2 and 3x3; here LU for
/// every n, equal up to rounding). Dtypes as solve; ShapeError("det", ...).
Tensor det(Tensor a, Loc loc = Loc::current());

/// jnp.linalg.slogdet's result.
struct SlogdetResult {
  /// [...]: a's dtype; +-1 (real) or a unit complex number, 0 for a singular matrix.
  Tensor sign;
  /// [...]: real dtype; log |det a|, -inf for a singular matrix.
  Tensor logabsdet;
};
/// jnp.linalg.slogdet (method "lu"): sign and log |det| of each trailing [n, n] matrix, from
/// U's diagonal. Dtypes as solve; ShapeError("slogdet", ...).
SlogdetResult slogdet(Tensor a, Loc loc = Loc::current());

/// jnp.linalg.eigh's result.
struct EighResult {
  /// [..., n], real dtype, ascending.
  Tensor eigenvalues;
  /// [..., n, n], a's dtype: column j belongs to eigenvalue j.
  Tensor eigenvectors;
};
/// The switches of `eigh`, by name: `{.lower = false}` (two adjacent bools could be swapped
/// without a compile error).
struct Eigh {
  /// The kernel reads the lower (else the upper) triangle.
  bool lower = true;
  /// First replace a by (a + a^H) / 2 (JAX's default).
  bool symmetrize_input = true;
};

/// jnp.linalg.eigh: eigenvalues and eigenvectors of each trailing [n, n] Hermitian matrix,
/// through `lapack_?syevd_ffi` / `lapack_?heevd_ffi` (mode 'V'). `symmetrize_input` first
/// replaces a by (a + a^H) / 2 (JAX's default); the kernel then reads the `lower` (or upper)
/// triangle. A failed decomposition (info != 0) gives NaNs, as JAX. f32, f64, complex64,
/// complex128. Throws ShapeError("eigh", ...) for a non-square or rank < 2 `a`.
EighResult eigh(Tensor a, Eigh how = {}, Loc loc = Loc::current());

/// jnp.linalg.svd's result: a = u diag(s) vh.
struct SvdResult {
  /// [..., m, m] (full_matrices) or [..., m, k], a's dtype.
  Tensor u;
  /// [..., k], k = min(m, n), real dtype, descending.
  Tensor s;
  /// [..., n, n] (full_matrices) or [..., k, n], a's dtype.
  Tensor vh;
};
/// jnp.linalg.svd (compute_uv): through `lapack_?gesdd_ffi` (mode 'A' or 'S'); info != 0 gives
/// NaNs, as JAX. f32, f64, complex64, complex128, batch dims outermost. Throws
/// ShapeError("svd", ...) for rank < 2 or an unsupported dtype.
SvdResult svd(Tensor a, bool full_matrices = true, Loc loc = Loc::current());
/// jnp.linalg.svd(a, compute_uv=False) / jnp.linalg.svdvals: the singular values [..., k] only
/// (gesdd mode 'N'). Errors as svd (ShapeError("svdvals", ...)).
Tensor svdvals(Tensor a, Loc loc = Loc::current());

/// jnp.linalg.qr's result: a = q r.
struct QrResult {
  /// [..., m, k] ("reduced", k = min(m, n)) or [..., m, m] ("complete"); empty for "r".
  Tensor q;
  /// [..., k, n] or [..., m, n] ("complete"): upper triangular.
  Tensor r;
};
/// jnp.linalg.qr with `mode` "reduced", "complete" or "r": qr_composite (full_matrices for
/// "complete"; "r" keeps R only). f32, f64, complex64, complex128, batch dims outermost. Throws
/// ShapeError("qr", ...) for rank < 2, an unsupported dtype or another mode.
QrResult qr(Tensor a, std::string_view mode = "reduced", Loc loc = Loc::current());

/// The QR factorisation of each trailing [m, n] matrix of `a` as one `stablehlo.composite
/// "hhlo.qr"` (composite_attributes {full_matrices}, version 0). Its decomposition, a private
/// function `@hhlo_qr_<reduced|complete>_<dtype>_<dims>` added to a's Module (shared by the
/// calls of one type and mode), is JAX's lowering: `lapack_?geqrf_ffi`, then
/// `lapack_?orgqr_ffi` / `lapack_?ungqr_ffi` on the Householder vectors (padded with zero
/// columns to [m, m] when `full_matrices`, sliced to [m, m] when m < n). Returns {q, r}: q
/// [..., m, k] (k = min(m, n)) or [..., m, m], r [..., k, n] or [..., m, n]. JAX emits the two
/// custom calls without a composite; the composite carries QR's VJP, JVP and batching rules
/// (keyed "composite:hhlo.qr"), which the Householder vectors between the calls cannot.
/// Throws ShapeError("qr", ...) as qr.
std::vector<Value> qr_composite(Tensor a, bool full_matrices, Loc loc = Loc::current());

/// jnp.linalg.lstsq's result.
struct LstsqResult {
  /// [n, k] (or [n] for a vector b): the minimum-norm least-squares solution.
  Tensor x;
  /// [k] (or [] for a vector b), real dtype: squared 2-norms of the columns of b - a x (always
  /// computed, as jnp.linalg.lstsq without numpy_resid).
  Tensor residuals;
  /// [] i32: the number of singular values above rcond * s[0].
  Tensor rank;
  /// [min(m, n)], real dtype: a's singular values.
  Tensor s;
};
/// jnp.linalg.lstsq: through the thin SVD (gesdd), with singular values below rcond * s_max
/// dropped; rcond < 0 means JAX's default eps(dtype) * max(m, n). a [m, n], b [m, k] or [m].
/// f32, f64, complex64, complex128. Throws ShapeError("lstsq", ...) for a non-matrix a, a b of
/// another rank, dtype or leading size.
LstsqResult lstsq(Tensor a, Tensor b, double rcond = -1, Loc loc = Loc::current());

}  // namespace hhlo::np::linalg
