"""JAX's values of jax.custom_jvp and jax.custom_vjp functions under jvp, grad (custom_jvp's rule
transposed), hessian, vmap of grad and grad of vmap (issue 23). The rules are deliberately not
the functions' true derivatives, so only a transformation that uses them gets JAX's numbers. f64.

  .venv/bin/python tests/autodiff/gen_custom_rules_vectors.py OUT_DIR
      # OUT_DIR/custom_rules_vectors.txt

Run by the test build (tests/CMakeLists.txt, hhlo_test_inputs); nothing it writes is committed.
Lines `<name>|f64|<dims>|<values>` as tests/autodiff/vectors_util.h reads them: in/x, in/y,
in/tx, in/ty, in/xs, in/txs, then `<case>` or `<case>/<i>` per result.
tests/autodiff/custom_rules_test.cc writes the same functions and rules with hhlo ops."""
import os
import sys
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)

rng = np.random.default_rng(2323)
X, Y, TX, TY = (rng.uniform(-1, 1, (3,)) for _ in range(4))
XS, TXS = rng.uniform(-1, 1, (4, 3)), rng.uniform(-1, 1, (4, 3))


@jax.custom_jvp
def f(x, y):
    return jnp.sin(x) * y


@f.defjvp
def f_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    return f(x, y), 2.0 * jnp.cos(x) * y * tx + x * ty   # not sin(x) y's derivative


@jax.custom_vjp
def g(x, y):
    return jnp.sin(x) * y


def g_fwd(x, y):
    return g(x, y), (jnp.cos(x), y, jnp.sin(x))


def g_bwd(res, ct):
    c, y, s = res
    return ct * c * y * 3.0, ct * s * 0.5   # not sin(x) y's gradient


g.defvjp(g_fwd, g_bwd)


@jax.custom_vjp
def g_none(x, y):
    return jnp.sin(x) * y


g_none.defvjp(g_fwd, lambda res, ct: (ct * res[0] * res[1] * 3.0, None))


@partial(jax.custom_jvp, nondiff_argnums=(1,))
def h(x, s):
    return jnp.sin(x) * s


@h.defjvp
def h_jvp(s, primals, tangents):
    (x,), (tx,) = primals, tangents
    return h(x, s), 3.0 * jnp.cos(x) * s * tx   # not sin(x) s's derivative


def sq(fn):
    return lambda x, y: jnp.sum(fn(x, y) ** 2)


CASES = {
    "jvp_value": lambda: jax.jvp(f, (X, Y), (TX, TY)),
    "jvp_grad": lambda: jax.grad(sq(f), argnums=(0, 1))(X, Y),
    "jvp_hessian": lambda: jax.hessian(lambda x: jnp.sum(f(x, Y) ** 2))(X),
    "jvp_vmap_of_grad": lambda: jax.vmap(jax.grad(sq(f), argnums=(0, 1)), (0, None))(XS, Y),
    "jvp_grad_of_vmap": lambda: jax.grad(
        lambda xs, y: jnp.sum(jax.vmap(f, (0, None))(xs, y) ** 2), argnums=(0, 1))(XS, Y),
    "jvp_jvp_of_vmap": lambda: jax.jvp(jax.vmap(f, (0, None)), (XS, Y), (TXS, TY)),
    "nondiff_jvp": lambda: jax.jvp(h, (X, Y), (TX, TY)),
    "nondiff_grad": lambda: jax.grad(sq(h), argnums=(0, 1))(X, Y),
    "nondiff_vmap_of_grad": lambda: jax.vmap(jax.grad(sq(h), argnums=(0, 1)), (0, None))(XS, Y),
    "vjp_value": lambda: g(X, Y),
    "vjp_grad": lambda: jax.grad(sq(g), argnums=(0, 1))(X, Y),
    "vjp_grad_none": lambda: jax.grad(sq(g_none), argnums=(0, 1))(X, Y),
    "vjp_vmap_of_grad": lambda: jax.vmap(jax.grad(sq(g), argnums=(0, 1)), (0, None))(XS, Y),
    "vjp_grad_of_vmap": lambda: jax.grad(
        lambda xs, y: jnp.sum(jax.vmap(g, (0, None))(xs, y) ** 2), argnums=(0, 1))(XS, Y),
}


def line(name, x):
    x = np.asarray(x, dtype=np.float64)
    dims = ",".join(str(d) for d in x.shape)
    return f"{name}|f64|{dims}|" + " ".join(repr(float(v)) for v in x.reshape(-1)) + "\n"


def flatten(name, v, out):
    if isinstance(v, (tuple, list)):
        for i, e in enumerate(v):
            flatten(f"{name}/{i}", e, out)
    else:
        out.append(line(name, v))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    lines = [line(f"in/{k}", v) for k, v in
             (("x", X), ("y", Y), ("tx", TX), ("ty", TY), ("xs", XS), ("txs", TXS))]
    for case, fn in CASES.items():
        flatten(case, fn(), lines)
    with open(os.path.join(out, "custom_rules_vectors.txt"), "w") as fh:
        fh.writelines(lines)
    print(f"{len(CASES)} custom rule cases")


if __name__ == "__main__":
    main()
