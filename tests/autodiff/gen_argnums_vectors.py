"""JAX's values of the transforms with a set of argnums (issue 23, docs/autodiff.md): jax.vjp and
jax.jvp (their argument orders, seeds ct/<i> and tan/<i>), jax.grad,
jax.value_and_grad, jax.jacfwd, jax.jacrev and jax.hessian with `argnums=(a, b)` (a tuple of
results; the Hessian's nested blocks, cross blocks included) and with a single int argnum, in f64.

  .venv/bin/python tests/autodiff/gen_argnums_vectors.py OUT_DIR   # OUT_DIR/argnums_vectors.txt

Run by the test build (tests/CMakeLists.txt, hhlo_test_inputs); nothing it writes is committed.
Lines `<name>|f64|<dims>|<values>` as tests/autodiff/vectors_util.h reads them: in/<i> the
primals, then one line per result of each case (`<case>/<i>`, `<case>/<i>/<k>` for nested
results). tests/autodiff/argnums_test.cc writes the same functions with hhlo ops."""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)

X = np.array([0.3, -1.2, 2.0])
Y = np.array([0.5, 1.5, -0.7])
Z = np.array([0.1, -0.4])


def f(x, y, z):
    """Scalar: x, y, z all interact, so every Hessian block (cross blocks too) is non-zero."""
    return jnp.sum(jnp.sin(x) * y**2) + jnp.sum(x * y) * jnp.sum(jnp.exp(z))


def g(x, y, z):
    """Two results of different dims."""
    return jnp.sin(x) * y**2, jnp.sum(x * y) * jnp.exp(z)


# Seeds of the jax.vjp / jax.jvp cases (the argument orders of issue 23): one cotangent per
# result of g, one tangent per primal.
CT = (np.array([1.0, -2.0, 0.5]), np.array([0.25, 3.0]))
TAN = (np.array([0.2, 0.1, -1.0]), np.array([1.0, 0.0, 0.5]), np.array([-0.3, 0.7]))


def vjp_case(x, y, z):
    outs, pullback = jax.vjp(g, x, y, z)
    return (*outs, *pullback(CT))


def jvp_case(x, y, z):
    outs, tans = jax.jvp(g, (x, y, z), TAN)
    return (*outs, *tans)


CASES = {
    "vjp": vjp_case,
    "jvp": jvp_case,
    "grad_1": jax.grad(f, argnums=1),
    "grad_2_0": jax.grad(f, argnums=(2, 0)),
    "value_and_grad_0_2": jax.value_and_grad(f, argnums=(0, 2)),
    "value_and_grad_2": jax.value_and_grad(f, argnums=2),
    "jacfwd_0_2": jax.jacfwd(g, argnums=(0, 2)),
    "jacrev_2_1": jax.jacrev(g, argnums=(2, 1)),
    "hessian_0_2": jax.hessian(f, argnums=(0, 2)),
    "hessian_1": jax.hessian(f, argnums=1),
}


def line(name, x):
    x = np.asarray(x, dtype=np.float64)
    dims = ",".join(str(d) for d in x.shape)
    return f"{name}|f64|{dims}|" + " ".join(repr(float(v)) for v in x.reshape(-1)) + "\n"


def flatten(name, v, out):
    """A result, a tuple of results or nested tuples, as `name`, `name/i`, `name/i/k` lines."""
    if isinstance(v, (tuple, list)):
        for i, e in enumerate(v):
            flatten(f"{name}/{i}", e, out)
    else:
        out.append(line(name, v))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    lines = [line(f"in/{i}", v) for i, v in enumerate((X, Y, Z))]
    lines += [line(f"ct/{i}", v) for i, v in enumerate(CT)]
    lines += [line(f"tan/{i}", v) for i, v in enumerate(TAN)]
    for case, fn in CASES.items():
        flatten(case, fn(X, Y, Z), lines)
    with open(os.path.join(out, "argnums_vectors.txt"), "w") as fh:
        fh.writelines(lines)
    print(f"{len(CASES)} argnums cases")


if __name__ == "__main__":
    main()
