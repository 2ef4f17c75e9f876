// hhlo::np::linalg: NumPy/JAX linear algebra on Tensors. So far the functions the native
// StableHLO ops cover (differentiable: their VJP and JVP rules are in
// src/autodiff/rules/linalg.cc); the LAPACK-backed ones (solve, inv, det, slogdet, eigh, svd,
// qr, lstsq) run today through jax.export programs and kernels/lapack.
#pragma once

#include "hhlo/ops/tensor.h"

namespace hhlo::np::linalg {

/// jnp.linalg.cholesky: the lower factor L of each trailing [n, n] matrix of `a` (a = L L^T; only
/// a's lower triangle is read), with zeros above the diagonal (stablehlo.cholesky, lower). f32,
/// f64 (complex: no VJP). Throws ShapeError("cholesky", ...) for a non-square or rank < 2 `a`.
Tensor cholesky(Tensor a, Loc loc = Loc::current());

/// jax.scipy.linalg.solve_triangular: x with op(a) x = b (`left_side`) or x op(a) = b, a
/// [..., k, k] lower (or upper) triangular (only that triangle is read; `unit_diagonal` assumes
/// ones on the diagonal), op(a) = a^T when `transpose` (stablehlo.triangular_solve). b
/// [..., m, n] with the same batch dims. Throws ShapeError("triangular_solve", ...) on mismatch.
Tensor triangular_solve(Tensor a, Tensor b, bool lower = true, bool transpose = false,
                        bool unit_diagonal = false, bool left_side = true,
                        Loc loc = Loc::current());

}  // namespace hhlo::np::linalg
