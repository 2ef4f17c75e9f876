"""Loss functions exported by JAX for the gradient-of-imported-programs tests (issue 9, "Uses that
must work" 3): each loss of (params..., data...) is exported with `jax.export`; JAX computes its
value and gradient (`jax.value_and_grad`), a forward-mode tangent (`jax.jvp`) or a VJP on fixed
inputs.

  .venv/bin/python tests/import/gen_grad_exports.py OUT_DIR

writes OUT_DIR/grad_NAME.mlir and, in OUT_DIR/vectors/, all at build time (nothing here is
committed):
  grad_NAME.inK.npy     inputs (params first, then data)
  grad_NAME.outK.npy    the loss, then d loss / d param k for each param (value_and_grad cases),
                        or the results then their tangents (jvp cases; the tangents are
                        grad_NAME.tanK.npy), or the results then the cotangents of the params
                        (vjp cases; the cotangents of the results are grad_NAME.ctK.npy).
Inputs come from a seeded generator."""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import export, lax
from jax._src.lax import linalg as lax_linalg  # geqrf is not public in JAX 0.10

jax.config.update("jax_enable_x64", False)
jax.config.update("jax_default_matmul_precision", "highest")

CASES = []


def case(name, params, data, mode="grad"):
    def wrap(fn):
        CASES.append((name, fn, params, data, mode))
        return fn
    return wrap


def f32(*shape):
    return (shape, "float32")


# A two-layer MLP classifier: dot_general, broadcast_in_dim, add, relu (maximum, in a private
# function @relu), log_softmax (reduce max / add, exp, log, subtract, in @log_softmax), mean.
@case("mlp", [f32(8, 16), f32(16), f32(16, 4), f32(4)], [f32(5, 8), f32(5, 4)])
def mlp(w1, b1, w2, b2, x, y):
    h = jax.nn.relu(x @ w1 + b1)
    lp = jax.nn.log_softmax(h @ w2 + b2)
    return -jnp.mean(jnp.sum(lp * y, axis=-1))


# A CNN: SAME convolution + bias, relu, 2x2 max pooling (reduce_window maximum), average pooling
# (reduce_window add), reshape, dense, a logistic (sigmoid) / tanh / square loss.
@case("cnn", [f32(3, 3, 2, 4), f32(4), f32(16, 3)], [f32(2, 8, 8, 2), f32(2, 3)])
def cnn(k, b, w, x, y):
    h = lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    h = jax.nn.relu(h + b)
    h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    h = lax.reduce_window(h, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4.0
    logits = h.reshape(h.shape[0], -1) @ w
    p = jax.nn.sigmoid(logits)
    return jnp.mean(jnp.sum((p - y) ** 2, axis=-1)) + 0.1 * jnp.mean(jnp.tanh(logits))


# A strided, padded, NCHW/OIHW convolution with explicit padding and a dilated kernel, then
# log-sum-exp: the other spellings of the conv attributes.
@case("conv_nchw", [f32(4, 3, 3, 3)], [f32(2, 3, 9, 9)])
def conv_nchw(k, x):
    h = lax.conv_general_dilated(x, k, (2, 2), ((1, 2), (0, 1)), rhs_dilation=(1, 2),
                                 dimension_numbers=("NCHW", "OIHW", "NCHW"))
    return jnp.sum(jax.nn.logsumexp(h.reshape(2, -1), axis=-1))


# A transformer block loss: layer norm (mean, variance, rsqrt), attention (einsum batched
# dot_general, transpose, softmax, where/select with a causal mask), tanh-gelu MLP, residuals.
@case("transformer", [f32(8, 24), f32(8, 16), f32(16, 8)], [f32(2, 5, 8)])
def transformer(wqkv, w1, w2, x):
    def norm(h):
        m = jnp.mean(h, -1, keepdims=True)
        return (h - m) * lax.rsqrt(jnp.var(h, -1, keepdims=True) + 1e-5)
    q, k, v = jnp.split(norm(x) @ wqkv, 3, axis=-1)
    s = jnp.einsum("btd,bsd->bts", q, k) / np.sqrt(8.0)
    mask = jnp.tril(jnp.ones((5, 5), bool))
    a = jax.nn.softmax(jnp.where(mask, s, -1e9), axis=-1)
    h = x + jnp.einsum("bts,bsd->btd", a, v)
    out = h + jax.nn.gelu(norm(h) @ w1) @ w2
    return jnp.mean(out ** 2)


# Cumulative reductions (issue 23): jnp.cumsum, jnp.cumprod, lax.cummax / cummin /
# cumlogsumexp, forward and reversed; JAX's CPU lowering is a reduce_window with an add /
# multiply / max / min / logaddexp body over a prefix (or suffix) window.
@case("cumulative", [f32(3, 5)], [f32(3, 5)])
def cumulative(w, x):
    h = jnp.cumsum(w * x, axis=1) + lax.cumsum(w, axis=0, reverse=True)
    p = jnp.cumprod(jnp.tanh(w), axis=1) * lax.cumprod(1.0 + 0.1 * w, axis=0, reverse=True)
    m = lax.cummax(w, axis=1) - lax.cummin(w * x, axis=0, reverse=True)
    lse = lax.cumlogsumexp(w, axis=1) + lax.cumlogsumexp(x * w, axis=0, reverse=True)
    return jnp.sum(h * p) + jnp.sum(m ** 2) + jnp.sum(jnp.sin(lse))


# Forward mode of the same loss (jax.jvp with a tangent for the weights).
@case("cumulative_jvp", [f32(3, 5)], [f32(3, 5)], mode="jvp")
def cumulative_jvp(*args):
    return cumulative(*args)


# Forward mode of the MLP loss (jax.jvp with a tangent for every parameter).
@case("mlp_jvp", [f32(8, 16), f32(16), f32(16, 4), f32(4)], [f32(5, 8), f32(5, 4)], mode="jvp")
def mlp_jvp(*args):
    return mlp(*args)


# A VJP of a vector-valued forward pass (softmax probabilities) with respect to its weights.
@case("mlp_vjp", [f32(6, 8), f32(8, 3)], [f32(4, 6)], mode="vjp")
def mlp_vjp(w1, w2, x):
    return jax.nn.softmax(jnp.tanh(x @ w1) @ w2, axis=-1), jnp.sum(x @ w1)


# An op with no VJP rule on the path: a sliding-window product (a reduce_window with a multiply
# body over a window that is not cumulative), which JAX does not differentiate either.
@case("no_rule", [f32(6)], [], mode="none")
def no_rule(a):
    return jnp.sum(lax.reduce_window(a, 1.0, lax.mul, (2,), (1,), "VALID"))


# Householder vectors read other than through orgqr (lax.linalg.geqrf's packed result whole):
# JAX has no rule for geqrf; ours gives NaN there, never a silent value.
@case("householder", [f32(4, 3)], [], mode="none")
def householder(a):
    return jnp.sum(lax_linalg.geqrf(a)[0] ** 2)


def main():
    out = sys.argv[1]
    vdir = os.path.join(out, "vectors")
    os.makedirs(vdir, exist_ok=True)
    for name, fn, params, data, mode in CASES:
        specs = [jax.ShapeDtypeStruct(s, jnp.dtype(d)) for s, d in params + data]
        text = export.export(jax.jit(fn))(*specs).mlir_module()
        with open(os.path.join(out, f"grad_{name}.mlir"), "w") as f:
            f.write(text)
        if mode == "none":
            continue
        rng = np.random.default_rng(sum(map(ord, name)))
        inputs = [rng.standard_normal(s.shape).astype(np.float32) for s in specs]
        if name in ("mlp", "mlp_jvp"):  # one-hot labels
            inputs[-1] = np.eye(4, dtype=np.float32)[rng.integers(0, 4, 5)]
        n = len(params)
        vecs = {}
        if mode == "grad":
            loss, grads = jax.value_and_grad(fn, argnums=tuple(range(n)))(*inputs)
            vecs["out"] = [loss, *grads]
        elif mode == "jvp":
            tangents = [rng.standard_normal(a.shape).astype(np.float32) for a in inputs[:n]]
            primal, tangent = jax.jvp(lambda *p: fn(*p, *inputs[n:]), tuple(inputs[:n]),
                                      tuple(tangents))
            vecs["tan"] = tangents
            vecs["out"] = [primal, tangent]
        elif mode == "vjp":
            results, pullback = jax.vjp(lambda *p: fn(*p, *inputs[n:]), *inputs[:n])
            cts = [rng.standard_normal(np.shape(r)).astype(np.float32) for r in results]
            vecs["ct"] = cts
            vecs["out"] = [*results, *pullback(tuple(cts))]
        vecs["in"] = inputs
        for kind, arrays in vecs.items():
            for k, a in enumerate(arrays):
                np.save(os.path.join(vdir, f"grad_{name}.{kind}{k}.npy"), np.asarray(a))
    print(f"{len(CASES)} losses in {out}, vectors in {vdir}")


if __name__ == "__main__":
    main()
