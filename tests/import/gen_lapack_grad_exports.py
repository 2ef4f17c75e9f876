"""Losses that call jaxlib's LAPACK targets, exported by JAX, with JAX's derivatives (issue 23,
"Imported linear algebra"): jax.scipy.linalg.solve_triangular and lax.linalg.triangular_solve
(lapack_?trsm_ffi), cho_factor / cho_solve and a Gaussian-process negative log likelihood
(lapack_?potrf_ffi, trsm), jnp.linalg.qr in its modes (geqrf, then orgqr on the Householder
vectors), the SVD with the QR algorithm (lapack_?gesvd_ffi; exported with that target's
compatibility check disabled, as JAX refuses it by default) and eigenvalues and eigenvectors of a
non-symmetric matrix (lapack_?geev_ffi; the eigenvectors with JAX's enable_eigvec_derivs, which
the exported text does not record).

  .venv/bin/python tests/import/gen_lapack_grad_exports.py OUT_DIR

For each case NAME and dtype DT (float32, float64; complex64, complex128 for the *_complex cases) writes OUT_DIR/lapack_NAME_DT.mlir and, in
OUT_DIR/vectors/ (nothing committed, all at build time):
  lapack_NAME_DT.inK.npy    inputs (params first, then data), from a seeded generator
  lapack_NAME_DT.outK.npy   jax.value_and_grad: the loss, then d loss / d param k
  lapack_NAME_DT.tanK.npy   a tangent per param;  .joutK.npy: jax.jvp's (loss, loss tangent)
  lapack_NAME_DT.vinK.npy   params stacked over a batch of 3 (the data shared);
  lapack_NAME_DT.voutK.npy  jax.vmap(jax.grad(loss, params), in_axes=(0,.., None,..)) of them."""
import os
import sys

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
from jax import export, lax

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_default_matmul_precision", "highest")

CASES = []


def case(name, params, data, disabled=(), dtypes=("float32", "float64")):
    def wrap(fn):
        CASES.append((name, fn, params, data, disabled, dtypes))
        return fn
    return wrap


def eye(n, like):
    return jnp.eye(n, dtype=like.dtype)


# lapack_?trsm_ffi in each configuration JAX emits: lower and upper, transposed, right side,
# unit diagonal; the matrix made well conditioned inside the loss (a linear shift).
@case("trsm", [(4, 4), (4, 3)], [])
def trsm(a, b):
    t = a + 4 * eye(4, a)
    x1 = jsl.solve_triangular(t, b, lower=True)
    x2 = jsl.solve_triangular(t, b, lower=False, trans=1)
    x3 = lax.linalg.triangular_solve(t, b.T, left_side=False, lower=True, transpose_a=True,
                                     unit_diagonal=True)
    return jnp.sum(jnp.sin(x1)) + jnp.sum(x2 ** 2) + jnp.sum(jnp.cos(x3) * x3)


# cho_factor (potrf, lower and upper, no symmetrization) and cho_solve (two trsm calls) of a
# symmetric positive-definite matrix built from the parameter, plus jnp.linalg.cholesky (which
# symmetrizes its input) of the same matrix.
@case("cho_solve", [(4, 4), (4, 2)], [])
def cho_solve(m, b):
    a = m @ m.T + 4 * eye(4, m)
    lo = jsl.cho_solve(jsl.cho_factor(a, lower=True), b)
    up = jsl.cho_solve(jsl.cho_factor(a, lower=False), b)
    c = jnp.linalg.cholesky(a)
    return jnp.sum(jnp.sin(lo)) + jnp.sum(up * b) + jnp.sum(jnp.log(jnp.diag(c)))


# A Gaussian-process negative log marginal likelihood (squared-exponential kernel with noise)
# with respect to the log length scale, the log signal variance and the inputs.
@case("gp_nll", [(), (), (6, 2)], [(6,)])
def gp_nll(log_l, log_sf, x, y):
    d2 = jnp.sum((x[:, None, :] - x[None, :, :]) ** 2, axis=-1)
    k = jnp.exp(log_sf) * jnp.exp(-d2 / (2 * jnp.exp(2 * log_l))) + 0.1 * eye(6, x)
    c = jnp.linalg.cholesky(k)
    alpha = jsl.cho_solve((c, True), y)
    return 0.5 * y @ alpha + jnp.sum(jnp.log(jnp.diag(c))) + 3 * jnp.log(2 * jnp.pi)


# jnp.linalg.qr: reduced (tall), complete (tall: orgqr on the padded vectors), wide (orgqr on
# the sliced ones), and mode "r" (geqrf alone).
@case("qr", [(5, 3), (3, 5), (4, 3)], [])
def qr(a, w, t):
    q1, r1 = jnp.linalg.qr(a)
    q2, r2 = jnp.linalg.qr(a, mode="complete")
    q3, r3 = jnp.linalg.qr(w)
    r4 = jnp.linalg.qr(t, mode="r")
    return (jnp.sum(jnp.sin(q1)) + jnp.sum(r1 ** 2) + jnp.sum(jnp.cos(q2) * q2) + jnp.sum(r2)
            + jnp.sum(jnp.sin(q3)) + jnp.sum(jnp.sin(r3)) + jnp.sum(r4 ** 3))


def gesvd(a):
    return lax.linalg.svd(a, full_matrices=False, algorithm=lax.linalg.SvdAlgorithm.QR)


# The SVD with the QR algorithm (lapack_?gesvd_ffi), tall and wide.
@case("gesvd", [(5, 3), (3, 4)], [], disabled=("gesvd",))
def svd_qr(a, w):
    u1, s1, vt1 = gesvd(a)
    u2, s2, vt2 = gesvd(w)
    return (jnp.sum(s1 ** 2) + jnp.sum(jnp.sin(u1)) + jnp.sum(jnp.cos(vt1)) + jnp.sum(s2)
            + jnp.sum(jnp.sin(u2) * u2) + jnp.sum(vt2 ** 3))


# Eigenvalues of a non-symmetric matrix (geev without eigenvectors: complex pairs) and, with
# right and left eigenvectors, JAX's eigenvector derivatives.
@case("eig", [(4, 4), (3, 3)], [])
def eig(a, b):
    w = jnp.linalg.eigvals(a)
    wb, vl, vr = lax.linalg.eig(b, compute_left_eigenvectors=True, enable_eigvec_derivs=True)
    return (jnp.sum(jnp.real(w) ** 2) + jnp.sum(jnp.abs(w)) + jnp.sum(jnp.imag(w) ** 2 * jnp.real(w))
            + jnp.sum(jnp.real(wb)) + jnp.sum(jnp.real(vr) * jnp.arange(3).astype(b.dtype)) + jnp.sum(jnp.imag(vr) ** 2)
            + jnp.sum(jnp.abs(vl[0])))


# The same of complex matrices (geev's complex variant: {w, vl, vr, info}); a real loss, JAX's
# gradient convention for complex inputs (dL/dx - i dL/dy).
@case("eig_complex", [(3, 3)], [], dtypes=("complex64", "complex128"))
def eig_complex(a):
    w, vl, vr = lax.linalg.eig(a, compute_left_eigenvectors=True, enable_eigvec_derivs=True)
    return (jnp.sum(jnp.real(w) ** 2) + jnp.sum(jnp.imag(w)) + jnp.sum(jnp.abs(vr[1]) ** 2 * jnp.real(vr[0]))
            + jnp.sum(jnp.real(vl[2])))


# Cholesky and cho_solve of a Hermitian positive-definite complex matrix (potrf and trsm's complex
# variants, trsm with trans_x 'C').
@case("cho_complex", [(3, 3), (3, 2)], [], dtypes=("complex64", "complex128"))
def cho_complex(m, b):
    a = m @ jnp.conj(m.T) + 4 * eye(3, m)
    c = jnp.linalg.cholesky(a)
    x = jsl.cho_solve((c, True), b)
    return jnp.sum(jnp.real(c) * jnp.imag(c)) + jnp.sum(jnp.abs(x) ** 2) + jnp.sum(jnp.real(x))


def sample(rng, shape, dt):
    x = rng.standard_normal(shape)
    if np.issubdtype(np.dtype(dt), np.complexfloating):
        x = x + 1j * rng.standard_normal(shape)
    return np.asarray(x, dtype=dt)


def main():
    out = sys.argv[1]
    vdir = os.path.join(out, "vectors")
    os.makedirs(vdir, exist_ok=True)
    for name, fn, params, data, disabled, dtypes in CASES:
        for dt in dtypes:
            shapes = params + data
            specs = [jax.ShapeDtypeStruct(s, jnp.dtype(dt)) for s in shapes]
            checks = [export.DisabledSafetyCheck.custom_call(f"lapack_{'s' if dt == 'float32' else 'd'}{r}_ffi")
                      for r in disabled]
            text = export.export(jax.jit(fn), disabled_checks=checks)(*specs).mlir_module()
            stem = f"lapack_{name}_{dt}"
            with open(os.path.join(out, stem + ".mlir"), "w") as f:
                f.write(text)
            rng = np.random.default_rng(sum(map(ord, name)))
            inputs = [sample(rng, s, dt) for s in shapes]
            n = len(params)
            argnums = tuple(range(n))
            loss, grads = jax.value_and_grad(fn, argnums=argnums)(*inputs)
            tangents = [sample(rng, s, dt) for s in params]
            primal, tangent = jax.jvp(lambda *p: fn(*p, *inputs[n:]), tuple(inputs[:n]),
                                      tuple(tangents))
            batched = [np.stack([x + 0.1 * sample(rng, x.shape, dt) for _ in range(3)])
                       for x in inputs[:n]]
            vgrads = jax.vmap(jax.grad(fn, argnums=argnums),
                              in_axes=(0,) * n + (None,) * len(data))(*batched, *inputs[n:])
            vecs = {"in": inputs, "out": [loss, *grads], "tan": tangents,
                    "jout": [primal, tangent], "vin": batched, "vout": list(vgrads)}
            for kind, arrays in vecs.items():
                for k, a in enumerate(arrays):
                    np.save(os.path.join(vdir, f"{stem}.{kind}{k}.npy"), np.asarray(a))
    print(f"{sum(len(c[5]) for c in CASES)} LAPACK losses in {out}, vectors in {vdir}")


if __name__ == "__main__":
    main()
