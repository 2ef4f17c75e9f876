"""JAX's values of jax.vmap over functions that close over values of the enclosing function
(issue 23): the closed-over values are unbatched (in_axes None) inside the body. f64.

  .venv/bin/python tests/autodiff/gen_vmap_closure_vectors.py OUT_DIR
      # OUT_DIR/vmap_closure_vectors.txt

Run by the test build (tests/CMakeLists.txt, hhlo_test_inputs); nothing it writes is committed.
Lines `<name>|f64|<dims>|<values>` as tests/autodiff/vectors_util.h reads them: in/xs, in/w,
in/ys, then `<case>` (or `<case>/<i>`) per result. tests/autodiff/vmap_closure_test.cc builds
the same functions with hhlo ops."""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)

rng = np.random.default_rng(23)
XS = rng.uniform(-1, 1, (5, 3))   # a batch of 5 examples of dims [3]
W = rng.uniform(-1, 1, (3, 4))    # closed over
YS = rng.uniform(-1, 1, (2,))     # closed over by the inner function of a nested vmap


def layer(w, x):
    return jnp.tanh(x @ w)


def loss(w, x):
    return jnp.sum(layer(w, x) ** 2)


def outer_value(xs, w, ys):
    """The body closes over w and over c, a value the enclosing function computed."""
    c = jnp.sum(w) * 2.0
    return jax.vmap(lambda x: layer(w, x) * c + jnp.sin(x[0]))(xs)


def per_example_grads(xs, w, ys):
    """grad with respect to the closed-over w inside the body: one gradient per example."""
    return jax.vmap(lambda x: jax.grad(loss)(w, x))(xs)


def grad_through_vmap(xs, w, ys):
    """The gradient, outside, with respect to the value the vmapped body closed over."""
    return jax.grad(lambda w: jnp.sum(jax.vmap(lambda x: layer(w, x))(xs) ** 3))(w)


def nested(xs, w, ys):
    """The inner body closes over the outer body's per-example x and the outer closure ys."""
    return jax.vmap(lambda x: jax.vmap(lambda y: jnp.sum(x * y) + y * ys[0])(ys))(xs)


def hessian_in_body(xs, w, ys):
    """jax.hessian inside the body with respect to x, w closed over."""
    return jax.vmap(lambda x: jax.hessian(lambda v: loss(w, v))(x))(xs)


CASES = {f.__name__: f for f in (outer_value, per_example_grads, grad_through_vmap, nested,
                                  hessian_in_body)}


def line(name, x):
    x = np.asarray(x, dtype=np.float64)
    dims = ",".join(str(d) for d in x.shape)
    return f"{name}|f64|{dims}|" + " ".join(repr(float(v)) for v in x.reshape(-1)) + "\n"


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    lines = [line("in/xs", XS), line("in/w", W), line("in/ys", YS)]
    for case, f in CASES.items():
        lines.append(line(case, f(XS, W, YS)))
    with open(os.path.join(out, "vmap_closure_vectors.txt"), "w") as fh:
        fh.writelines(lines)
    print(f"{len(CASES)} vmap closure cases")


if __name__ == "__main__":
    main()
