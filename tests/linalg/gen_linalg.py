"""JAX's CPU linear algebra, exported (issue 10): every jnp.linalg function that lowers to
jaxlib's LAPACK custom calls, in f32/f64/c64/c128, unbatched and batched, on well- and
ill-conditioned inputs, with JAX's own outputs.

  .venv/bin/python tests/linalg/gen_linalg.py OUT_DIR

writes OUT_DIR/NAME.mlir (jax.export text), NAME.inK.npy, NAME.outK.npy (JAX's outputs, run by
JAX on CPU here) and OUT_DIR/manifest.json: per case its dtype, how each output is compared
("close"; "cols"/"rows": up to one unit-modulus factor per column/row, as eigenvectors and
singular vectors are defined; "eigvecs": columns matched to the eigenvalues of output 0) and the
input's condition number, which scales the tolerance. Run by the test build (never committed)."""
import json
import os
import sys

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
from jax import export

jax.config.update("jax_enable_x64", True)

DTYPES = ["float32", "float64", "complex64", "complex128"]


def rand(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def well(rng, batch, n, dtype):  # diagonally dominated: condition number O(1)
    return (rand(rng, batch + (n, n), dtype) + 4 * np.eye(n)).astype(dtype)


def spd(rng, batch, n, dtype):
    a = rand(rng, batch + (n, n), dtype)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


def graded(rng, batch, n, dtype, cond):  # U diag(1 .. 1/cond) V^H: condition number `cond`
    q1, _ = np.linalg.qr(rand(rng, batch + (n, n), dtype))
    q2, _ = np.linalg.qr(rand(rng, batch + (n, n), dtype))
    s = np.logspace(0, -np.log10(cond), n)
    return ((q1 * s[..., None, :]) @ q2).astype(dtype)


def singular(rng, batch, n, dtype):  # exactly rank-deficient: row 1 = 2 * row 0 (small integers)
    a = rng.integers(-3, 4, batch + (n, n)).astype(dtype) + 5 * np.eye(n, dtype=dtype)
    a[..., 1, :] = 2 * a[..., 0, :]
    return a


def cond_of(a):
    return float(np.max(np.linalg.cond(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64))))


def cases():
    out = []
    tri = lambda lower, trans: (lambda a, b: jsl.solve_triangular(a, b, lower=lower, trans=trans))
    for dt in DTYPES:
        real = np.dtype(dt).kind == "f"
        for batch in [(), (3,)]:
            tag = f"{dt}_{'b' if batch else 'u'}"
            rng = np.random.default_rng(len(out) + 1)
            A = well(rng, batch, 4, dt)
            B = rand(rng, batch + (4, 2), dt)
            S = spd(rng, batch, 4, dt)
            R = rand(rng, batch + (5, 3), dt)
            W = rand(rng, batch + (3, 5), dt)
            L = np.tril(A)
            c = lambda *m: list(m)
            out += [
                (f"solve_{tag}", jnp.linalg.solve, [A, B], c("close")),
                (f"inv_{tag}", jnp.linalg.inv, [A], c("close")),
                (f"det_{tag}", jnp.linalg.det, [A], c("close")),
                (f"slogdet_{tag}", lambda a: tuple(jnp.linalg.slogdet(a)), [A], c("close", "close")),
                (f"cholesky_{tag}", jnp.linalg.cholesky, [S], c("close")),
                (f"eigh_{tag}", lambda a: tuple(jnp.linalg.eigh(a)), [S], c("close", "cols")),
                (f"svd_full_{tag}", lambda a: tuple(jnp.linalg.svd(a)), [R], c("cols", "close", "rows")),
                (f"svd_thin_{tag}", lambda a: tuple(jnp.linalg.svd(a, full_matrices=False)), [W],
                 c("cols", "close", "rows")),
                (f"svdvals_{tag}", lambda a: jnp.linalg.svd(a, compute_uv=False), [R], c("close")),
                (f"qr_{tag}", lambda a: tuple(jnp.linalg.qr(a)), [R], c("close", "close")),
                (f"qr_wide_{tag}", lambda a: tuple(jnp.linalg.qr(a)), [W], c("close", "close")),
                (f"qr_complete_{tag}", lambda a: tuple(jnp.linalg.qr(a, mode="complete")), [R],
                 c("close", "close")),
                (f"pinv_{tag}", jnp.linalg.pinv, [R], c("close")),
                (f"eig_{tag}", lambda a: tuple(jnp.linalg.eig(a)), [A], c("eigvals", "eigvecs")),
                (f"trsolve_lower_{tag}", tri(True, 0), [L, B], c("close")),
                (f"trsolve_upper_t_{tag}", tri(False, 1 if real else 2),
                 [np.swapaxes(L, -1, -2).copy(), B], c("close")),
            ]
            if not batch:  # lstsq takes one matrix
                out.append((f"lstsq_{tag}", lambda a, b: tuple(jnp.linalg.lstsq(a, b)),
                            [R, rand(rng, (5, 2), dt)], c("close", "close", "close", "close")))
            # ill-conditioned and singular inputs: JAX's NaNs/infs, reproduced
            G = graded(rng, batch, 4, dt, 1e3 if np.dtype(dt) in (np.float32, np.complex64) else 1e8)
            Z = singular(rng, batch, 4, dt)
            N = (S - 10 * S.shape[-1] * np.eye(4)).astype(dt)  # indefinite
            out += [
                (f"solve_illcond_{tag}", jnp.linalg.solve, [G, B], c("close")),
                (f"inv_illcond_{tag}", jnp.linalg.inv, [G], c("close")),
                (f"det_singular_{tag}", jnp.linalg.det, [Z], c("close")),
                (f"slogdet_singular_{tag}", lambda a: tuple(jnp.linalg.slogdet(a)), [Z],
                 c("close", "close")),
                (f"cholesky_not_pd_{tag}", jnp.linalg.cholesky, [N], c("close")),
                (f"svdvals_illcond_{tag}", lambda a: jnp.linalg.svd(a, compute_uv=False), [G],
                 c("close")),
            ]
    return out


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    manifest = []
    for name, fn, args, compare in cases():
        spec = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in args]
        exp = export.export(jax.jit(fn), platforms=["cpu"])(*spec)
        with open(os.path.join(out_dir, name + ".mlir"), "w") as f:
            f.write(exp.mlir_module())
        res = jax.jit(fn)(*args)
        res = list(res) if isinstance(res, (tuple, list)) else [res]
        assert len(res) == len(compare), name
        for k, a in enumerate(args):
            np.save(os.path.join(out_dir, f"{name}.in{k}.npy"), a)
        for k, r in enumerate(res):
            np.save(os.path.join(out_dir, f"{name}.out{k}.npy"), np.asarray(r))
        sq = [a for a in args if a.shape[-1] == a.shape[-2]]
        cond = cond_of(args[0]) if args[0].shape[-1] == args[0].shape[-2] and np.all(
            np.isfinite(np.linalg.cond(args[0].astype(np.complex128)))) else 1.0
        manifest.append({"name": name, "dtype": str(args[0].dtype), "compare": compare,
                         "cond": cond, "outputs": len(res)})
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()
