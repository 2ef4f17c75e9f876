"""Shape-polymorphic JAX exports for the refinement tests (issue 9, "Shape refinement"): each case
is exported once with `jax.export` and symbolic dimensions, then run by JAX at three concrete
sizes; one case with a "2*b" constraint is also called by JAX with an odd size to record JAX's
error message.

  .venv/bin/python tests/import/gen_symbolic.py OUT_DIR

writes, all at build time (nothing here is committed):
  OUT_DIR/NAME.mlir                      the symbolic export (`Exported.mlir_module()`)
  OUT_DIR/NAME.mlirbc                    the same as portable bytecode (`mlir_module_serialized`)
  OUT_DIR/NAME.sK.inI.npy / .outJ.npy    inputs and JAX's outputs at size K = 0, 1, 2
  OUT_DIR/NAME.error.txt                 JAX's message for a call that violates a constraint
  OUT_DIR/NAME.bad.inI.npy               the inputs of that call
Inputs come from a seeded generator."""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import export, lax

jax.config.update("jax_enable_x64", False)
jax.config.update("jax_default_matmul_precision", "highest")

CASES = []


PLATFORMS = {}  # name -> the platforms of a multi-platform export (default: the CPU only)


def case(name, spec, sizes, bad=None, platforms=None):
    """spec: (polymorphic shape string, dtype) per argument; sizes: per size K, a dict of
    dimension variable values; bad: dimension values that violate the constraints; platforms:
    export for these platforms (a `_platform_index` argument first)."""
    def wrap(fn):
        CASES.append((name, fn, spec, sizes, bad))
        if platforms:
            PLATFORMS[name] = platforms
        return fn
    return wrap


def concrete(shape_str, env):
    dims = []
    for d in shape_str.split(","):
        if d.strip():
            dims.append(int(eval(d, {}, dict(env))))  # "b", "8", "2*b"
    return tuple(dims)


@case("poly_mlp", [("b, 6", "float32"), ("6, 8", "float32"), ("8,", "float32"),
                   ("8, 3", "float32")],
      [{"b": 1}, {"b": 3}, {"b": 17}])
def poly_mlp(x, w1, b1, w2):
    return jax.nn.softmax(jax.nn.relu(x @ w1 + b1) @ w2, axis=-1)


@case("poly_cnn", [("b, h, w, 3", "float32"), ("3, 3, 3, 4", "float32"), ("4, 5", "float32")],
      [{"b": 1, "h": 8, "w": 8}, {"b": 2, "h": 6, "w": 10}, {"b": 3, "h": 12, "w": 4}])
def poly_cnn(x, k, w):
    y = lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    y = jax.nn.relu(y)
    y = lax.reduce_window(y, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4.0
    return jnp.mean(y, axis=(1, 2)) @ w


@case("poly_transformer", [("2, t, 8", "float32"), ("8, 24", "float32"), ("8, 16", "float32"),
                           ("16, 8", "float32")],
      [{"t": 1}, {"t": 5}, {"t": 12}])
def poly_transformer(x, wqkv, w1, w2):
    def norm(h):
        m = jnp.mean(h, -1, keepdims=True)
        return (h - m) / jnp.sqrt(jnp.var(h, -1, keepdims=True) + 1e-5)
    t = x.shape[1]
    q, k, v = jnp.split(norm(x) @ wqkv, 3, axis=-1)
    s = jnp.einsum("btd,bsd->bts", q, k) / np.sqrt(8.0)
    mask = jnp.tril(jnp.ones((t, t), bool))
    a = jax.nn.softmax(jnp.where(mask, s, -1e9), axis=-1)
    h = x + jnp.einsum("bts,bsd->btd", a, v)
    return h + jax.nn.gelu(norm(h) @ w1) @ w2


@case("poly_even", [("2*b, 3", "float32")], [{"b": 1}, {"b": 2}, {"b": 5}],
      bad={"b": 3.5})  # 7 rows: not 2*b for an integer b
def poly_even(x):
    pairs = jnp.reshape(x, (-1, 2, 3))
    return pairs.sum(1) * jnp.arange(x.shape[0] // 2, dtype=jnp.float32)[:, None]


@case("poly_scan", [("b, 5", "float32")], [{"b": 1}, {"b": 4}, {"b": 9}])
def poly_scan(x):
    # cumsum: @stablehlo.dynamic_reduce_window; top_k: a composite; scan: a while loop whose
    # carry has the symbolic batch.
    def step(c, row):
        c = jnp.tanh(c * 0.5 + row)
        return c, c.sum()
    carry, sums = lax.scan(step, jnp.zeros(5, x.dtype), x)
    return jnp.cumsum(x, axis=0), lax.top_k(x, 2)[0], carry, sums


@case("poly_indexing", [("b, 4", "float32")], [{"b": 2}, {"b": 5}, {"b": 8}])
def poly_indexing(x):
    b = x.shape[0]
    idx = jnp.argsort(x[:, 0])  # a permutation of range(b)
    return (jnp.pad(x, ((1, 2), (0, 1))), x[idx] * 2.0,
            lax.dynamic_slice_in_dim(x, 1, b // 2, axis=0), jnp.sort(x, axis=0))


@case("poly_rbg", [("b, 4", "float32")], [{"b": 1}, {"b": 3}, {"b": 8}])
def poly_rbg(x):
    # The rbg PRNG draws through rng_bit_generator: a symbolic shape makes it
    # @stablehlo.dynamic_rng_bit_generator.
    return x + jax.random.uniform(jax.random.key(7, impl="rbg"), x.shape)


@case("poly_top_k", [("3, 2*b", "float32")], [{"b": 1}, {"b": 2}, {"b": 5}])
def poly_top_k(x):
    # k = b is symbolic: @stablehlo.dynamic_top_k.
    return lax.top_k(x, x.shape[1] // 2)


# A GRU over a scan whose xs have symbolic time and batch (issue 21): each step reads xs[i]
# through lax.dynamic_slice with slice sizes (1, b, 8), which JAX lowers to
# real_dynamic_slice(xs, start, add(start, sizes), 1) with start clamped into range and sizes
# constant only once b is known; jnp.split of the gates slices with constant starts.
@case("poly_rnn", [("t, b, 8", "float32"), ("b, 16", "float32"), ("8, 48", "float32"),
                   ("16, 48", "float32"), ("48,", "float32")],
      [{"t": 1, "b": 1}, {"t": 4, "b": 3}, {"t": 7, "b": 5}])
def poly_rnn(xs, h0, wx, wh, bias):
    def step(h, x):
        xz, xr, xn = jnp.split(x @ (0.3 * wx) + bias, 3, axis=-1)
        hz, hr, hn = jnp.split(h @ (0.3 * wh), 3, axis=-1)
        z = jax.nn.sigmoid(xz + hz)
        r = jax.nn.sigmoid(xr + hr)
        h = (1 - z) * jnp.tanh(xn + r * hn) + z * h
        return h, h
    return lax.scan(step, h0, xs)


# Symbolic and multi-platform together (issue 21): the CPU branch calls LAPACK, the CUDA branch
# cuSOLVER, both on a symbolic batch; the platform index must be bound before refinement.
@case("poly_multiplatform_solve", [("b, 4, 4", "float32"), ("b, 4", "float32")],
      [{"b": 1}, {"b": 2}, {"b": 5}], platforms=("cpu", "cuda"))
def poly_multiplatform_solve(a, y):
    a = a + 4.0 * jnp.eye(4, dtype=a.dtype)  # well conditioned
    return jnp.linalg.solve(a, y[..., None])[..., 0]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, fn, spec, sizes, bad in CASES:
        scope = export.SymbolicScope()
        specs = [jax.ShapeDtypeStruct(export.symbolic_shape(s, scope=scope), jnp.dtype(d))
                 for s, d in spec]
        exp = export.export(jax.jit(fn), platforms=PLATFORMS.get(name))(*specs)
        with open(os.path.join(out, name + ".mlir"), "w") as f:
            f.write(exp.mlir_module())
        with open(os.path.join(out, name + ".mlirbc"), "wb") as f:
            f.write(exp.mlir_module_serialized)  # portable bytecode: refinement needs the text
        r = np.random.default_rng(sum(map(ord, name)))
        for k, env in enumerate(sizes):
            inputs = [r.standard_normal(concrete(s, env)).astype(d) for s, d in spec]
            outputs = jax.tree_util.tree_leaves(exp.call(*inputs))
            for i, a in enumerate(inputs):
                np.save(os.path.join(out, f"{name}.s{k}.in{i}.npy"), a)
            for j, a in enumerate(outputs):
                np.save(os.path.join(out, f"{name}.s{k}.out{j}.npy"), np.asarray(a))
        if bad:
            inputs = [r.standard_normal(concrete(s, bad)).astype(d) for s, d in spec]
            try:
                exp.call(*inputs)
                raise SystemExit(f"{name}: JAX accepted the bad sizes {bad}")
            except ValueError as e:
                message = str(e)
            for i, a in enumerate(inputs):
                np.save(os.path.join(out, f"{name}.bad.in{i}.npy"), a)
            with open(os.path.join(out, name + ".error.txt"), "w") as f:
                f.write(message)
    print(f"{len(CASES)} symbolic programs in {out}")


if __name__ == "__main__":
    main()
