"""Writes the StableHLO text of JAX's vmap of the functions of bench/transforms_bench.cc
(`jax.jit(jax.vmap(f, in_axes)).lower(...).as_text()`, f32, CPU), one file per function, for the
bench to parse with our parser and run next to our own vmap of the same function, in the same
process. The functions mirror the C++ ones op for op.
Usage: vmap_jax.py OUT_DIR   (writes OUT_DIR/{mlp_grad,conv,attention}.mlir)
"""
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

B = 128  # the vmapped axis
f32 = jnp.float32
S = jax.ShapeDtypeStruct


def mlp_loss(w1, w2, x, y):  # x [64], y [10], w1 [64, 128], w2 [128, 10]
    h = jnp.tanh(lax.dot_general(x, w1, (((0,), (0,)), ((), ()))))
    d = lax.dot_general(h, w2, (((0,), (0,)), ((), ()))) - y
    return jnp.sum(d * d)


def conv(x, k):  # x [3, 16, 16], k [8, 3, 3, 3] (OIHW)
    o = lax.conv_general_dilated(x[None], k, (1, 1), ((1, 1), (1, 1)),
                                 dimension_numbers=("NCHW", "OIHW", "NCHW"))
    return jnp.sum(jnp.tanh(o[0]), axis=(1, 2))


def attention(q, k, v):  # [32, 16] each
    s = lax.dot_general(q, k, (((1,), (1,)), ((), ()))) * 0.25
    m = jnp.max(s, axis=1, keepdims=True)
    e = jnp.exp(s - m)
    p = e / jnp.sum(e, axis=1, keepdims=True)
    return lax.dot_general(p, v, (((1,), (0,)), ((), ())))


CASES = {
    "mlp_grad": (jax.grad(mlp_loss, argnums=(0, 1)), (None, None, 0, 0),
                 [S((64, 128), f32), S((128, 10), f32), S((B, 64), f32), S((B, 10), f32)]),
    "conv": (conv, (0, None), [S((B, 3, 16, 16), f32), S((8, 3, 3, 3), f32)]),
    "attention": (attention, (0, 0, 0), [S((B, 32, 16), f32)] * 3),
}

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, (f, axes, args) in CASES.items():
    text = jax.jit(jax.vmap(f, in_axes=axes)).lower(*args).as_text()
    with open(os.path.join(out, name + ".mlir"), "w") as fh:
        fh.write(text)
print(f"wrote {len(CASES)} JAX vmap programs to {out}", file=sys.stderr)
