"""JAX's values for np::linalg (issue 10): jnp.linalg's solve, inv, det, slogdet, eigh, svd,
svdvals, qr and lstsq on fixed inputs in f32, f64, complex64 and complex128, unbatched and batched
(cholesky with and without symmetrize_input; no complex gradients),
with JAX's outputs and, in f64 and complex128, jax.grad of a weighted sum of the outputs w.r.t.
every input (real(sum(out * w)) with complex weights for complex outputs: a real loss).

  .venv/bin/python tests/linalg/gen_np_linalg.py OUT_DIR

writes OUT_DIR/NAME.inK.npy, NAME.outK.npy, NAME.wK.npy (the loss weights of output K),
NAME.gradK.npy (d loss / d input K), NAME.tanK.npy and NAME.jvpK.npy (jax.jvp: a random input
tangent K, the tangent of inexact output K) where there are gradients, for batched cases NAME.vmapK.npy (jax.vmap of the function
over the leading axis of every input of rank >= 3; solve_vec's vector is shared), and
OUT_DIR/manifest.json (per case: name, function, dtype, number of inputs and outputs, whether it
has gradients and vmap outputs). Eigenvectors and singular
vectors are defined up to sign (a phase), so those outputs are |v|^2, |u|^2 and |vh|^2;
the loss is sum_K real(sum(out_K * w_K)) over the float and complex outputs. Run by the test build (never
committed); tests/linalg/np_linalg_test.cc builds the same functions with np::linalg."""
import json
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)


def sq(x):  # |x|^2: free of the sign (phase) eigen- and singular vectors are defined up to
    return jnp.abs(x) ** 2


def eigh(a):
    w, v = jnp.linalg.eigh(a)
    return w, sq(v)


def svd_thin(a):
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    return sq(u), s, sq(vh)


def svd_full(a):
    u, s, vh = jnp.linalg.svd(a, full_matrices=True)
    return sq(u), s, sq(vh)


def lower_mirrored(a):  # tril(a) + tril(a, -1)^T: what cholesky(a, symmetrize_input=False) reads
    return jnp.tril(a) + jnp.swapaxes(jnp.tril(a, -1), -1, -2)


FUNCS = {
    "solve": lambda a, b: (jnp.linalg.solve(a, b),),
    "solve_vec": lambda a, b: (jnp.linalg.solve(a, b),),
    "inv": lambda a: (jnp.linalg.inv(a),),
    "det": lambda a: (jnp.linalg.det(a),),
    "slogdet": lambda a: tuple(jnp.linalg.slogdet(a)),
    "eigh": eigh,
    "svd_thin": svd_thin,
    "svd_full": svd_full,
    "svdvals": lambda a: (jnp.linalg.svd(a, compute_uv=False),),
    "qr": lambda a: tuple(jnp.linalg.qr(a)),
    "qr_complete": lambda a: tuple(jnp.linalg.qr(a, mode="complete")),
    "lstsq": lambda a, b: tuple(jnp.linalg.lstsq(a, b)),
    "cholesky": lambda a: (jnp.linalg.cholesky(a),),  # symmetrize_input=True, JAX's default
    # symmetrize_input=False reads only a's lower triangle, but JAX's cholesky_p JVP applies its
    # formula to the whole tangent, so jax.grad of that function has an upper part it never
    # reads. These vectors are JAX's derivative of the function as it reads a (the lower triangle
    # mirrored: the same forward value), which np::linalg::cholesky(a, false) differentiates.
    "cholesky_lower": lambda a: (jnp.linalg.cholesky(lower_mirrored(a), symmetrize_input=False),),
}
NO_GRAD = {"svd_full"}  # JAX has no full_matrices SVD rule


def cases():
    out, chol = [], []
    for dt in ["float32", "float64", "complex64", "complex128"]:
        for batch in [(), (3,)]:
            rng = np.random.default_rng(100 + len(out))
            cplx = np.dtype(dt).kind == "c"
            r = lambda *s: (rng.uniform(-1, 1, batch + s) +
                            (1j * rng.uniform(-1, 1, batch + s) if cplx else 0)).astype(dt)
            tag = f"{dt}_{'b' if batch else 'u'}"
            square = r(4, 4)  # random: getrf pivots
            out += [
                ("solve", tag, [square, r(4, 2)]),
                ("solve_vec", tag, [square, r(4)[(0,) * len(batch)]]),
                ("inv", tag, [square]),
                ("det", tag, [square]),
                ("slogdet", tag, [square]),
                ("eigh", tag, [r(4, 4)]),
                ("svd_thin", tag + "_tall", [r(5, 3)]),
                ("svd_thin", tag + "_wide", [r(3, 5)]),
                ("svd_full", tag, [r(5, 3)]),
                ("svdvals", tag, [r(4, 3)]),
                ("qr", tag + "_tall", [r(5, 3)]),
                ("qr", tag + "_wide", [r(3, 5)]),
                ("qr_complete", tag, [r(5, 3)]),
            ]
            if not batch:
                out.append(("lstsq", tag, [r(5, 3), r(5, 2)]))
            # cholesky (own list and seeds, so the other cases' inputs stay as they were): a
            # positive definite matrix plus an asymmetric upper part, which symmetrize_input
            # averages in and the lower-only form ignores (complex: forward and vmap only, there
            # is no complex cholesky VJP)
            rng = np.random.default_rng(200 + len(chol))
            m = r(4, 4)
            pd = m @ np.conj(np.swapaxes(m, -1, -2)) + 4 * np.eye(4, dtype=dt)
            asym = (pd + 0.3 * np.triu(r(4, 4), 1)).astype(dt)
            chol += [("cholesky", tag, [asym]), ("cholesky_lower", tag, [asym])]
    return out + chol


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    manifest = []
    for fn_name, tag, args in cases():
        name = f"{fn_name}_{tag}"
        fn = FUNCS[fn_name]
        outs = [np.asarray(o) for o in jax.jit(fn)(*args)]
        for k, a in enumerate(args):
            np.save(os.path.join(d, f"{name}.in{k}.npy"), a)
        wrng = np.random.default_rng(7)
        ws = []
        for k, o in enumerate(outs):
            np.save(os.path.join(d, f"{name}.out{k}.npy"), o)
            w = wrng.uniform(0.5, 1.5, o.shape)
            if np.iscomplexobj(o):
                w = w + 1j * wrng.uniform(-1, 1, o.shape)
            w = w.astype(o.dtype)
            np.save(os.path.join(d, f"{name}.w{k}.npy"), w)
            ws.append(w)
        batched = tag.split("_")[1] == "b"
        if batched:  # jax.vmap over the leading axis of the batched inputs (rank >= 3)
            axes = tuple(0 if a.ndim >= 3 else None for a in args)
            for k, o in enumerate(jax.jit(jax.vmap(fn, in_axes=axes))(*args)):
                np.save(os.path.join(d, f"{name}.vmap{k}.npy"), np.asarray(o))
        grad = args[0].dtype in (np.float64, np.complex128) and fn_name not in NO_GRAD and not (
            fn_name.startswith("cholesky") and np.iscomplexobj(args[0]))
        if grad:
            def loss(*xs):
                res = fn(*xs)
                return sum(jnp.real(jnp.sum(o * w)) for o, w in zip(res, ws)
                           if jnp.issubdtype(o.dtype, jnp.inexact))
            gs = jax.grad(loss, argnums=tuple(range(len(args))))(*args)
            for k, g in enumerate(gs):
                np.save(os.path.join(d, f"{name}.grad{k}.npy"), np.asarray(g))
            # jax.jvp in a random direction (the inexact outputs' tangents).
            trng = np.random.default_rng(11)
            ts = []
            for k, a in enumerate(args):
                t = trng.uniform(-1, 1, a.shape)
                if np.iscomplexobj(a):
                    t = t + 1j * trng.uniform(-1, 1, a.shape)
                ts.append(t.astype(a.dtype))
                np.save(os.path.join(d, f"{name}.tan{k}.npy"), ts[-1])
            _, touts = jax.jvp(fn, tuple(args), tuple(ts))
            for k, (o, t) in enumerate(zip(outs, touts)):
                if np.issubdtype(o.dtype, np.inexact):
                    np.save(os.path.join(d, f"{name}.jvp{k}.npy"), np.asarray(t))
        manifest.append({"name": name, "function": fn_name, "dtype": str(args[0].dtype),
                         "inputs": len(args), "outputs": len(outs), "grad": bool(grad),
                         "vmap": batched})
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print(f"{len(manifest)} cases in {d}")


if __name__ == "__main__":
    main()
