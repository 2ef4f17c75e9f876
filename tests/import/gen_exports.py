"""Real JAX programs for the import tests (issue 9): each case is exported with `jax.export` (or
lowered with `jax.jit(f).lower`), and run by JAX on fixed inputs.

  .venv/bin/python tests/import/gen_exports.py OUT_DIR

writes OUT_DIR/NAME.mlir and the vectors OUT_DIR/vectors/NAME.inK.npy (inputs) and NAME.outK.npy
(JAX's outputs), all at build time: nothing here is committed. Inputs come from a seeded
generator."""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import export, lax

jax.config.update("jax_enable_x64", False)
jax.config.update("jax_default_matmul_precision", "highest")

CASES = []


def case(name, *shapes, lower="export"):
    def wrap(fn):
        CASES.append((name, fn, shapes, lower))
        return fn
    return wrap


def rng_for(name):
    return np.random.default_rng(sum(map(ord, name)))


def make_input(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f" or dtype == jnp.bfloat16:
        return rng.standard_normal(shape).astype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0, 8, shape).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    raise ValueError(dtype)


@case("mlp", ((4, 6), "float32"), ((6, 8), "float32"), ((8,), "float32"), ((8, 3), "float32"))
def mlp(x, w1, b1, w2):
    return jax.nn.softmax(jax.nn.relu(x @ w1 + b1) @ w2, axis=-1)


@case("cnn", ((2, 8, 8, 3), "float32"), ((3, 3, 3, 4), "float32"), ((4, 5), "float32"))
def cnn(x, k, w):
    y = lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    y = jax.nn.relu(y)
    y = lax.reduce_window(y, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4.0
    return jnp.mean(y, axis=(1, 2)) @ w


@case("transformer_block", ((2, 5, 8), "float32"), ((8, 24), "float32"), ((8, 16), "float32"),
      ((16, 8), "float32"))
def transformer_block(x, wqkv, w1, w2):
    def norm(h):
        m = jnp.mean(h, -1, keepdims=True)
        return (h - m) / jnp.sqrt(jnp.var(h, -1, keepdims=True) + 1e-5)
    q, k, v = jnp.split(norm(x) @ wqkv, 3, axis=-1)
    s = jnp.einsum("btd,bsd->bts", q, k) / np.sqrt(8.0)
    mask = jnp.tril(jnp.ones((5, 5), bool))
    a = jax.nn.softmax(jnp.where(mask, s, -1e9), axis=-1)
    h = x + jnp.einsum("bts,bsd->btd", a, v)
    return h + jax.nn.gelu(norm(h) @ w1) @ w2


@case("scan", ((6, 3), "float32"), ((3,), "float32"))
def scan(xs, c0):
    def step(c, x):
        c = jnp.tanh(c * 0.5 + x)
        return c, c.sum()
    return lax.scan(step, c0, xs)


@case("while", ((4,), "float32"), ((), "int32"))
def while_loop(x, n):
    return lax.fori_loop(0, n, lambda i, v: v * 1.5 + i.astype(jnp.float32), x)


@case("cond", ((), "bool"), ((3,), "float32"), lower="jit")
def cond(p, x):
    return lax.cond(p, lambda v: jnp.sin(v), lambda v: jnp.cos(v) * 2.0, x)


@case("gather_scatter", ((7, 3), "float32"), ((4,), "int32"), ((4, 3), "float32"))
def gather_scatter(x, idx, v):
    return x[idx] * 2.0, x.at[idx].add(v)


@case("sort", ((3, 6), "float32"))
def sort(x):
    return jnp.sort(x, axis=-1), jnp.argsort(x, axis=0), lax.top_k(x, 2)[0]


@case("rng", ((2,), "uint32"))
def rng(key):
    k = jax.random.wrap_key_data(key, impl="threefry2x32")
    return jax.random.normal(k, (3, 4)), jax.random.randint(k, (5,), 0, 10)


@case("fft", ((8,), "float32"), ((4, 4), "float32"))
def fft(x, y):
    f = jnp.fft.fft(x.astype(jnp.complex64))
    return jnp.real(f), jnp.imag(f), jnp.abs(jnp.fft.rfft2(y))


@case("low_precision", ((4, 4), "bfloat16"), ((4, 4), "float16"))
def low_precision(a, b):
    return (a @ a.T) * 0.5, jnp.exp(b * 0.25) + b.astype(jnp.float16)


@case("int8", ((6,), "int8"), ((6,), "int8"), ((6,), "float32"), lower="jit")
def int8(a, b, x):
    q = jnp.clip(jnp.round(x * 16), -128, 127).astype(jnp.int8)
    return a * b + q, (a.astype(jnp.int32) * 1000).astype(jnp.int8), q.astype(jnp.float32) / 16


def program_text(fn, specs, lower):
    if lower == "jit":
        return jax.jit(fn).lower(*specs).as_text()
    return export.export(jax.jit(fn))(*specs).mlir_module()


def main():
    out = sys.argv[1]
    vdir = os.path.join(out, "vectors")
    os.makedirs(vdir, exist_ok=True)
    for name, fn, shapes, lower in CASES:
        specs = [jax.ShapeDtypeStruct(s, jnp.dtype(d)) for s, d in shapes]
        with open(os.path.join(out, name + ".mlir"), "w") as f:
            f.write(program_text(fn, specs, lower))
        r = rng_for(name)
        inputs = [make_input(r, s, d) for s, d in shapes]
        if name == "while":
            inputs[1] = np.array(5, np.int32)
        if name == "rng":
            inputs[0] = np.array([0, 42], np.uint32)
        outputs = jax.tree_util.tree_leaves(jax.jit(fn)(*inputs))
        for k, a in enumerate(inputs):
            np.save(os.path.join(vdir, f"{name}.in{k}.npy"), np.asarray(a))
        for k, a in enumerate(outputs):
            np.save(os.path.join(vdir, f"{name}.out{k}.npy"), np.asarray(a))
    print(f"{len(CASES)} programs in {out}, vectors in {vdir}")


if __name__ == "__main__":
    main()
