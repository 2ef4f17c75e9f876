"""JAX's values for the cumulative reductions (reduce_window with add / multiply / max / min /
logaddexp bodies) and the jax.numpy functions of issue 23 (sort, argsort, take_along_axis, the
.at[] updates, dynamic_slice, dynamic_update_slice, eye, conj, the trigonometric and hyperbolic
functions): for each case its inputs, cotangent and tangents, and JAX 0.10's forward value, VJP
(one cotangent per input) and JVP, in f64 (c128 for complex cases); for the HVP cases a scalar
loss's Hessian-vector product jax.jvp(jax.grad(f)).

  .venv/bin/python tests/autodiff/gen_np_functions_vectors.py OUT_DIR
      # OUT_DIR/np_functions_vectors.txt

Run by the test build (tests/CMakeLists.txt, hhlo_test_inputs); nothing it writes is committed.
Lines `<case>/<name>|<dtype>|<dims>|<values>` as tests/autodiff/vectors_util.h reads them (values
in Python's repr; complex values as re im pairs), names: in/<i>, ct, t/<i>, out, vjp/<i>, jvp
(and hvp for the HVP cases). Each case is written the same way in
tests/autodiff/np_functions_test.cc with hhlo::np functions; integer indices are constants of
the case, written in both files."""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(23)


def a(*v):
    return np.array(v, dtype=np.float64)


def normal(*shape):
    return RNG.standard_normal(shape)


def uniform(lo, hi, *shape):
    return RNG.uniform(lo, hi, shape)


# Cases with a cotangent and tangents drawn at random for each input's / the output's shape:
# name: (f, inputs).
CASES = {
    # ---- cumulative reductions (prefix and suffix windows; odd and even lengths)
    "cumsum_axis1": (lambda x: jnp.cumsum(x, axis=1), [normal(3, 4)]),
    "cumsum_reverse": (lambda x: lax.cumsum(x, axis=0, reverse=True), [normal(5, 2)]),
    "cumsum_flat": (jnp.cumsum, [normal(2, 3)]),
    "cumprod_axis1": (lambda x: jnp.cumprod(x, axis=1), [normal(2, 7)]),
    "cumprod_zeros": (lambda x: jnp.cumprod(x, axis=1),
                      [np.array([[2, 0, 3, 0.5, 4], [0, 1.5, 2, -1, 3], [1, 2, 0, 0, 3]])]),
    "cumprod_reverse": (lambda x: lax.cumprod(x, axis=0, reverse=True), [normal(8, 2)]),
    "cumprod_length1": (lambda x: jnp.cumprod(x, axis=0), [normal(1, 3)]),
    "cumprod_complex": (lambda z: jnp.cumprod(z, axis=0), [normal(5) + 1j * normal(5)]),
    "cumsum_complex": (lambda z: jnp.cumsum(z, axis=0), [normal(4) + 1j * normal(4)]),
    "cummax_axis0": (lambda x: lax.cummax(x, axis=0), [normal(6, 3)]),
    "cummax_ties": (lambda x: lax.cummax(x, axis=0), [a(1, 3, 3, 2, 3, 0, 5, 5)]),
    "cummin_ties": (lambda x: lax.cummin(x, axis=0), [a(4, 1, 1, 2, 1, 0, 0)]),
    "cummin_reverse": (lambda x: lax.cummin(x, axis=1, reverse=True), [normal(2, 5)]),
    "cumlogsumexp_axis1": (lambda x: lax.cumlogsumexp(x, axis=1), [normal(3, 6)]),
    "cumlogsumexp_wide": (lambda x: lax.cumlogsumexp(x, axis=0),
                          [a(-50, 0, 30, 31, 31, -200, 500)]),
    "cumlogsumexp_reverse": (lambda x: lax.cumlogsumexp(x, axis=0, reverse=True),
                             [normal(5, 2)]),
    # ---- sorting and indexing
    "sort": (lambda x: jnp.sort(x, axis=-1), [normal(2, 5)]),
    "sort_descending_ties": (lambda x: jnp.sort(x, axis=0, descending=True),
                             [a(1, 0, 1, 0.5, 0, 2)]),
    "sort_complex": (jnp.sort, [np.array([1 + 2j, -1 + 0j, 1 - 1j, 0.5 + 3j, -1 - 2j])]),
    "sort_flat": (lambda x: jnp.sort(x, axis=None), [normal(2, 3)]),
    "take_along_axis": (lambda x: jnp.take_along_axis(
        x, jnp.array([[0, 3], [1, 1], [-1, 2]]), axis=1), [normal(3, 4)]),
    "take_along_axis_broadcast": (lambda x: jnp.take_along_axis(
        x, jnp.array([[2, 0, 1, 2]]), axis=0), [normal(3, 4)]),
    "take_along_axis_argsort": (lambda x: jnp.take_along_axis(
        x, jnp.argsort(x, axis=1, descending=True), axis=1), [normal(3, 5)]),
    "at_set": (lambda x, v: x.at[jnp.array([3, 0])].set(v), [normal(5, 2), normal(2, 2)]),
    "at_add": (lambda x, v: x.at[jnp.array([3, 0, 3, -1])].add(v),
               [normal(5, 2), normal(4, 2)]),
    "at_mul": (lambda x, v: x.at[jnp.array([3, 0])].multiply(v, unique_indices=True),
               [normal(5, 2), normal(2, 2)]),
    "at_mul_scalar_index": (lambda x, v: x.at[2].multiply(v, unique_indices=True),
                            [normal(4, 3), normal(3)]),
    # x[1] = 2 is retained against the updates 2 and 1 (a tie of an update with the operand); the
    # updates 7 and 7 at row 3 tie each other; row 0 takes -1.
    "at_max": (lambda x, v: x.at[jnp.array([1, 3, 1, 3, 0])].max(v),
               [a(0.5, 2, -3, 4), a(2, 7, 1, 7, -1)]),
    "at_min": (lambda x, v: x.at[jnp.array([1, 3, 1, 0, 2])].min(v),
               [a(0.5, 2, -3, 4), a(2, -7, 1, 0.25, -3)]),
    # Out-of-range indices (issue 44): the .at[] updates drop them (jnp's default mode "drop"),
    # so nothing flows to or from a dropped update; mode "clip" clamps after wrapping negatives;
    # take_along_axis fills (mode "fill"); lax.scatter_add with FILL_OR_DROP drops a whole window
    # that does not fit (start 4 of a 2-wide window in 5, and -1).
    "at_set_oob": (lambda x, v: x.at[jnp.array([9, 0, -6, -1])].set(v),
                   [normal(4, 2), normal(4, 2)]),
    "at_add_oob": (lambda x, v: x.at[jnp.array([1, 9, -7, -1])].add(v),
                   [normal(4, 2), normal(4, 2)]),
    "at_add_clip": (lambda x, v: x.at[jnp.array([1, 9, -7])].add(v, mode="clip"),
                    [normal(4, 2), normal(3, 2)]),
    "at_mul_oob": (lambda x, v: x.at[jnp.array([3, 7, -5])].multiply(v, unique_indices=True),
                   [normal(4, 2), normal(3, 2)]),
    "at_max_oob": (lambda x, v: x.at[jnp.array([1, 5, -9, 0])].max(v),
                   [a(0.5, 2, -3, 4), a(3, 7, 9, -1)]),
    "at_min_oob": (lambda x, v: x.at[jnp.array([2, 4, 0, -5])].min(v),
                   [a(0.5, 2, -3, 4), a(-3, -7, 0.25, -9)]),
    "take_along_axis_fill": (lambda x: jnp.take_along_axis(
        x, jnp.array([[5, -9, 1], [0, 4, -1]]), axis=1), [normal(2, 4)]),
    "scatter_add_window_oob": (lambda x, u: lax.scatter_add(
        x, jnp.array([[0], [4], [2], [-1]]), u,
        lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(),
                                    scatter_dims_to_operand_dims=(0,)),
        mode=lax.GatherScatterMode.FILL_OR_DROP), [normal(5), normal(4, 2)]),
    "dynamic_slice": (lambda x: lax.dynamic_slice(x, (1, 2), (2, 2)), [normal(4, 5)]),
    "dynamic_slice_clamped": (lambda x: lax.dynamic_slice(x, (3, 4), (2, 3)), [normal(4, 5)]),
    "dynamic_update_slice": (lambda x, u: lax.dynamic_update_slice(x, u, (1, 1)),
                             [normal(4, 5), normal(2, 3)]),
    "eye_mask": (lambda x: x * jnp.eye(3, 4, k=1, dtype=jnp.float64), [normal(3, 4)]),
    "eye_square": (lambda x: x @ jnp.eye(3, dtype=jnp.float64) - 2 * x, [normal(2, 3)]),
    # ---- elementwise math
    "conj_real": (lambda x: jnp.conj(x) * x, [normal(4)]),
    "conj_complex": (lambda z: jnp.conj(z) * z + 2 * jnp.conj(z),
                     [normal(4) + 1j * normal(4)]),
    "sin": (jnp.sin, [normal(5)]),
    "cos": (jnp.cos, [normal(5)]),
    "tan": (jnp.tan, [uniform(-1.2, 1.2, 5)]),
    "arcsin": (jnp.arcsin, [a(-0.9, -0.3, 0, 0.4, 0.8)]),
    "arccos": (jnp.arccos, [a(-0.9, -0.3, 0, 0.4, 0.8)]),
    "arctan": (jnp.arctan, [a(-30, -1, 0, 0.5, 4)]),
    "arctan2": (jnp.arctan2, [normal(5), normal(5)]),
    "sinh": (jnp.sinh, [a(-20, -1, -1e-9, 0, 0.3, 5)]),
    "cosh": (jnp.cosh, [a(-20, -1, 0, 0.3, 5, 700)]),
    "arcsinh": (jnp.arcsinh, [a(-1e10, -3, -1e-9, 0, 0.5, 40, 3e9)]),
    "arccosh": (jnp.arccosh, [a(1.5, 1.0001, 3, 40, 1e9)]),
    "arctanh": (jnp.arctanh, [a(-0.9, -0.3, 0, 1e-8, 0.4, 0.8)]),
    "log1p_expm1": (lambda x: jnp.log1p(x) + jnp.expm1(x), [a(-0.5, -1e-9, 0, 0.3, 2)]),
    "square": (jnp.square, [normal(4)]),
}

# Scalar losses for forward-over-reverse: name: (f, input).
HVP = {
    "cumprod": (lambda x: jnp.sum(jnp.cumprod(x, axis=1) ** 2), normal(2, 5)),
    "cumprod_zeros": (lambda x: jnp.sum(jnp.sin(jnp.cumprod(x))),
                      np.array([1.5, 0, 2, -1, 0.5, 3])),
    "cumlogsumexp": (lambda x: jnp.sum(jnp.sin(lax.cumlogsumexp(x, axis=0))), normal(7)),
    "cummax": (lambda x: jnp.sum(lax.cummax(x, axis=0) ** 3), normal(6)),
    "sort": (lambda x: jnp.sum(jnp.sort(x) ** 2 * jnp.arange(5.0)), normal(5)),
    "at_max": (lambda x: jnp.sum(jnp.exp(x.at[jnp.array([0, 2])].max(x[1:3] * 2.0))),
               normal(4)),
    "arcsinh_arctanh": (lambda x: jnp.sum(jnp.arcsinh(x) * jnp.arctanh(x / 2)), normal(5) * 0.5),
}


def line(name, x):
    x = np.asarray(x)
    dims = ",".join(str(d) for d in x.shape)
    if np.iscomplexobj(x):
        vals = " ".join(f"{float(v.real)!r} {float(v.imag)!r}" for v in x.reshape(-1))
        return f"{name}|c128|{dims}|{vals}\n"
    vals = " ".join(repr(float(v)) for v in np.asarray(x, np.float64).reshape(-1))
    return f"{name}|f64|{dims}|{vals}\n"


def like(x):
    x = np.asarray(x)
    r = RNG.standard_normal(x.shape)
    return r + 1j * RNG.standard_normal(x.shape) if np.iscomplexobj(x) else r


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    lines = []
    for case, (f, ins) in CASES.items():
        ins = [np.asarray(x) for x in ins]
        y, pull = jax.vjp(f, *ins)
        ct = like(y)
        cts = pull(jnp.asarray(ct, dtype=y.dtype))
        ts = [like(x) for x in ins]
        _, jt = jax.jvp(f, tuple(ins), tuple(ts))
        for i, x in enumerate(ins):
            lines.append(line(f"{case}/in/{i}", x))
            lines.append(line(f"{case}/t/{i}", ts[i]))
            lines.append(line(f"{case}/vjp/{i}", cts[i]))
        lines += [line(f"{case}/ct", ct), line(f"{case}/out", y), line(f"{case}/jvp", jt)]
    for case, (f, x) in HVP.items():
        t = like(x)
        x = jnp.asarray(x)
        _, hv = jax.jvp(jax.grad(f), (x,), (t,))
        lines += [line(f"hvp_{case}/in/0", x), line(f"hvp_{case}/t/0", t),
                  line(f"hvp_{case}/out", f(jnp.asarray(x))), line(f"hvp_{case}/hvp", hv)]
    with open(os.path.join(out, "np_functions_vectors.txt"), "w") as fh:
        fh.writelines(lines)
    print(f"{len(CASES)} cases, {len(HVP)} HVP cases")


if __name__ == "__main__":
    main()
