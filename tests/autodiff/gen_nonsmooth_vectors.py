"""JAX's values of gradients at non-smooth points (docs/autodiff.md, "Gradients at non-smooth
points"): for each case, its inputs, cotangent and tangents, and JAX 0.10's forward value, VJP
(one cotangent per input) and JVP, in f64.

  .venv/bin/python tests/autodiff/gen_nonsmooth_vectors.py OUT_DIR   # OUT_DIR/nonsmooth_vectors.txt

Run by the test build (tests/CMakeLists.txt, hhlo_test_inputs); nothing it writes is committed.
Lines `<case>/<name>|f64|<dims>|<values>` as tests/autodiff/vectors_util.h reads them (values in
Python's repr: nan, inf and -0.0 kept), names: in/<i>, ct, t/<i>, out, vjp/<i>, jvp. Each case is
written the same way in tests/autodiff/nonsmooth_test.cc with hhlo ops."""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

jax.config.update("jax_enable_x64", True)
NAN, INF = float("nan"), float("inf")


def a(*v):
    return np.array(v, dtype=np.float64)


def max_pool(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (2, 2), "VALID")


# name: (f, inputs, cotangent, tangents)
CASES = {
    "abs": (jnp.abs, [a(0.0, -0.0, 2, -2, NAN)], a(1, 1, 1, 1, 1), [a(-1, -1, 1, 1, 1)]),
    "relu": (jax.nn.relu, [a(0.0, -0.0, 1, -1, NAN)], a(1, 1, 1, 1, 1), [a(1, -1, 2, 1, 1)]),
    "maximum_ties": (lax.max, [a(1, 2, 3, -0.0), a(1, 0, 3, 0.0)], a(1, 1, 1, 1),
                     [a(1, 1, 1, 1), a(2, 2, 2, 2)]),
    "minimum_ties": (lax.min, [a(1, 2, 3, -0.0), a(1, 0, 3, 0.0)], a(1, 1, 1, 1),
                     [a(1, 1, 1, 1), a(2, 2, 2, 2)]),
    "maximum_same_operand": (lambda x: lax.max(x, x), [a(1, -2)], a(1, 1), [a(1, 1)]),
    "reduce_max_ties": (jnp.max, [a(3, 1, 3, 2)], np.float64(1), [a(1, 2, 3, 4)]),
    "reduce_min_ties": (jnp.min, [a(1, 3, 1, 2)], np.float64(1), [a(1, 2, 3, 4)]),
    "max_pool_ties": (max_pool, [np.array([[1, 1, 2, 0], [1, 1, 2, 2]], np.float64)],
                      np.array([[1, 1]], np.float64),
                      [np.array([[1, 2, 3, 4], [5, 6, 7, 8]], np.float64)]),
    "sort_ties": (lambda x: jnp.sort(x, stable=True), [a(1, 0, 1, 0.5, 0)], a(1, 2, 3, 4, 5),
                  [a(10, 20, 30, 40, 50)]),
    "clamp_at_bounds": (lax.clamp, [a(0, 0, 0, 0, 0), a(0, 1, 0.5, -1, 2), a(1, 1, 1, 1, 1)],
                        a(1, 1, 1, 1, 1), [a(1, 1, 1, 1, 1), a(2, 2, 2, 2, 2), a(3, 3, 3, 3, 3)]),
    "sqrt_at_zero": (jnp.sqrt, [a(0.0, -0.0, 4)], a(1, 1, 1), [a(0, 1, 1)]),
    "cbrt_at_zero": (jnp.cbrt, [a(0.0, -0.0, 8, -8)], a(1, 1, 1, 1), [a(1, 0, 1, 1)]),
    "pow_at_zero": (lax.pow, [a(0, 0, 0, 0, 0, 0), a(0, 0.5, 1, 2, 3, -1)], a(1, 1, 1, 1, 1, 1),
                    [a(1, 1, 1, 1, 1, 1), a(1, 1, 1, 1, 1, 1)]),
    "atan2_at_origin": (lax.atan2, [a(0, 1), a(0, 0)], a(1, 1), [a(1, 1), a(1, 1)]),
    "where_log_unselected": (lambda x: jnp.where(x > 0, jnp.log(x), 0.0), [a(0, -1, 2)],
                             a(1, 1, 1), [a(1, 1, 1)]),
    "where_sqrt_unselected": (lambda x: jnp.where(x > 0, jnp.sqrt(x), 0.0), [a(-1, 0, 4)],
                              a(1, 1, 1), [a(1, 1, 1)]),
    "where_double_where": (
        lambda x: jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0), [a(-1, 0, 4)],
        a(1, 1, 1), [a(1, 1, 1)]),
    "sign_floor_round": (lambda x: jnp.sign(x) + jnp.floor(x) + jnp.round(x),
                         [a(0.0, -0.0, 1, 0.5, 2.5)], a(1, 1, 1, 1, 1), [a(1, 1, 1, 1, 1)]),
}


def line(name, x):
    x = np.asarray(x, dtype=np.float64)
    dims = ",".join(str(d) for d in x.shape)
    return f"{name}|f64|{dims}|" + " ".join(repr(float(v)) for v in x.reshape(-1)) + "\n"


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    lines = []
    for case, (f, ins, ct, ts) in CASES.items():
        y, pull = jax.vjp(f, *ins)
        cts = pull(ct)
        _, jt = jax.jvp(f, tuple(ins), tuple(ts))
        for i, x in enumerate(ins):
            lines.append(line(f"{case}/in/{i}", x))
            lines.append(line(f"{case}/t/{i}", ts[i]))
            lines.append(line(f"{case}/vjp/{i}", cts[i]))
        lines += [line(f"{case}/ct", ct), line(f"{case}/out", y), line(f"{case}/jvp", jt)]
    with open(os.path.join(out, "nonsmooth_vectors.txt"), "w") as fh:
        fh.writelines(lines)
    print(f"{len(CASES)} non-smooth cases")


if __name__ == "__main__":
    main()
