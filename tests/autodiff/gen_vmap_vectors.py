"""Generates tests/autodiff/data/vmap_vectors.txt: JAX's jax.vmap results for per-example functions
covering the op families with batching rules, which tests/autodiff/vmap_jax_test.cc rebuilds with
hhlo ops (each case's function is written out here and there) and batches with hhlo::ad::vmap.
Run: /work/main/.venv/bin/python tests/autodiff/gen_vmap_vectors.py   (JAX 0.10.2, CPU, x64)

Per case: input/x, input/y (batched as the case's in_axes say), out (jax.vmap(f, in_axes)(x, y)).
Format: one tensor per line, `<case>/<name>|f64|<dims comma-separated>|<values space-separated>`.
"""
import os
import numpy as np
import jax
import jax.numpy as jnp
from jax import lax

jax.config.update("jax_enable_x64", True)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "vmap_vectors.txt")
lines = []
rng = np.random.default_rng(1213)


def put(case, name, a):
    a = np.asarray(a, np.float64)
    vals = " ".join(repr(float(v)) for v in a.reshape(-1))
    lines.append(f"{case}/{name}|f64|{','.join(map(str, a.shape))}|{vals}")


def u(shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(np.float64)


def emit(case, f, x, y, in_axes=(0, 0)):
    out = jax.vmap(f, in_axes=in_axes)(x, y)
    put(case, "input/x", x)
    put(case, "input/y", y)
    put(case, "out", out)


B = 4
emit("elementwise", lambda x, y: jnp.tanh(x) * y + jnp.exp(-x * x), u((B, 2, 3)), u((2, 3)), (0, None))
emit("matvec", lambda x, y: x @ y, u((3, 4)), u((B, 4)), (None, 0))
emit("matmul_both", lambda x, y: x @ y, u((B, 2, 3)), u((3, B, 4)), (0, 1))
emit("softmax_rows", lambda x, y: jax.nn.softmax(x * y, axis=-1), u((B, 2, 5)), u((B, 2, 5)))
emit("conv", lambda x, y: lax.conv_general_dilated(x[None], y, (1, 1), "SAME")[0],
     u((B, 2, 5, 5)), u((B, 3, 2, 3, 3)))
emit("gather_rows", lambda x, y: x[jnp.argmax(y, axis=0)], u((B, 5, 3)), u((B, 5, 2)))
emit("dynamic_slice", lambda x, y: lax.dynamic_slice(x, (jnp.argmax(y).astype(jnp.int32),), (3,)),
     u((B, 6)), u((B, 6)))


def scatter_case(x, y):
    idx = jnp.argsort(y)[:2]
    return x.at[idx].add(y[:2])


emit("scatter_add", scatter_case, u((B, 5)), u((B, 5)))
emit("cumsum_while", lambda x, y: lax.fori_loop(0, 3, lambda i, c: c * x + y, jnp.zeros_like(x)),
     u((B, 3)), u((3,)), (0, None))
emit("while_batched_pred",
     lambda x, y: lax.while_loop(lambda c: jnp.sum(c) > y, lambda c: c * 0.5, x),
     u((B, 3), 1.0, 2.0), np.array([0.1, 1.0, 4.0, 100.0]))
emit("cond", lambda x, y: lax.cond(y > 0, lambda: jnp.sin(x), lambda: jnp.cos(x)), u((B, 3)), u((B,)))
emit("sort", lambda x, y: jnp.sort(x * y), u((B, 6)), u((B, 6)))
emit("maxpool", lambda x, y: lax.reduce_window(x + y, -jnp.inf, lax.max, (2, 2), (1, 1), "VALID"),
     u((B, 4, 4)), u((4, 4)), (0, None))
loss = lambda w, x: jnp.sum(jnp.tanh(x @ w) ** 2)
emit("per_example_grad", jax.grad(loss), u((3, 2)), u((B, 3)), (None, 0))

os.makedirs(os.path.dirname(OUT), exist_ok=True)
with open(OUT, "w") as fh:
    fh.write("\n".join(lines) + "\n")
print(f"wrote {len(lines)} tensors to {OUT}")
