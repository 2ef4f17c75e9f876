"""Generates tests/autodiff/data/jvp_vectors.txt once: JAX's forward-mode results for functions of
two f64 inputs x, y (shape [2, 3] unless noted) covering every op family, which
tests/autodiff/jvp_jax_test.cc rebuilds with hhlo ops (each case's function is written out here
and there) and compares with hhlo::ad::jvp, hvp, jacfwd and hessian.
Run: /work/main/.venv/bin/python tests/autodiff/gen_jvp_vectors.py   (JAX 0.10.2, CPU, x64)

Per case: input/x, input/y, tangent/x, tangent/y, w (weights of the loss L = sum(w * f(x, y))),
out = f(x, y), jvp = the tangent of f, hvp/x, hvp/y = H(L) (tx, ty); some cases add jacfwd/x
(d f / d x, dims f.shape + x.shape) and hessian/x (of L in x, dims x.shape + x.shape).
Format: one tensor per line, `<case>/<name>|f64|<dims comma-separated>|<values space-separated>`.
"""
import os
import numpy as np
import jax
import jax.numpy as jnp
from jax import lax

jax.config.update("jax_enable_x64", True)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "jvp_vectors.txt")
lines = []


def put(case, name, a):
    a = np.asarray(a, np.float64)
    vals = " ".join(repr(float(v)) for v in a.reshape(-1))
    lines.append(f"{case}/{name}|f64|{','.join(map(str, a.shape))}|{vals}")


rng = np.random.default_rng(1212)


def u(shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(np.float64)


def emit(case, f, x, y, jac=False):
    tx, ty = u(x.shape), u(y.shape)
    out, tan = jax.jvp(f, (x, y), (tx, ty))
    w = u(out.shape, 0.5, 1.5)
    loss = lambda a, b: jnp.sum(w * f(a, b))
    _, (hx, hy) = jax.jvp(jax.grad(loss, argnums=(0, 1)), (x, y), (tx, ty))
    for n, v in [("input/x", x), ("input/y", y), ("tangent/x", tx), ("tangent/y", ty), ("w", w),
                 ("out", out), ("jvp", tan), ("hvp/x", hx), ("hvp/y", hy)]:
        put(case, n, v)
    if jac:
        put(case, "jacfwd/x", jax.jacfwd(f, argnums=0)(x, y))
        put(case, "hessian/x", jax.hessian(loss, argnums=0)(x, y))


S = (2, 3)
X, Y = u(S), u(S)
P, Q = u(S, 0.5, 1.5), u(S, 0.5, 1.5)  # positive inputs
emit("sin_mul", lambda x, y: jnp.sin(x) * y, X, Y, jac=True)
emit("exp_div", lambda x, y: jnp.exp(x) / (1.0 + y * y), X, Y)
emit("logistic_log1p", lambda x, y: jax.nn.sigmoid(x) * jnp.log1p(y * y), X, Y)
emit("sqrt_rsqrt", lambda x, y: jnp.sqrt(x * x + 1.0) + lax.rsqrt(y * y + 1.0), X, Y)
emit("tanh_cos_tan", lambda x, y: jnp.tanh(x) * jnp.cos(y) + jnp.tan(0.5 * x), X, Y)
emit("expm1_log_cbrt", lambda x, y: jnp.expm1(x) + jnp.log(y) * jnp.cbrt(y), X, P)
emit("max_min", lambda x, y: jnp.maximum(x, y) * jnp.minimum(x, y) + jnp.maximum(x, y), X, Y)
emit("power", lambda x, y: lax.pow(x, y), P, Y)
emit("atan2_abs", lambda x, y: jnp.arctan2(x, y) * jnp.abs(x), X, P)
emit("matmul_tanh", lambda x, y: jnp.tanh(x @ y.T), X, Y, jac=True)
emit("reduce_sum_max", lambda x, y: jnp.sum(x * y, axis=1) + jnp.max(x * y, axis=1), X, Y)
emit("reduce_min_prod", lambda x, y: jnp.min(x * y, axis=0) * jnp.prod(x + 2.0, axis=0), X, Y)
emit("shapes", lambda x, y: jnp.sin(jnp.concatenate([x.T.reshape(6), y[:, 1:].reshape(4)])) *
     jnp.broadcast_to(x[0, 0], (10,)), X, Y)
emit("pad_reverse", lambda x, y: lax.pad(x * y, 0.5, ((1, 0, 0), (0, 2, 1))) *
     jnp.flip(lax.pad(y, 0.0, ((1, 0, 0), (0, 2, 1))), axis=1), X, Y)
emit("select", lambda x, y: jnp.where(x > y, x * y, jnp.cos(x)), X, Y)
emit("clamp", lambda x, y: jnp.clip(x * y + x, -0.4, 0.4) * y, X, Y)
emit("while_fixed", lambda x, y: lax.fori_loop(0, 3, lambda i, c: jnp.tanh(c * y + x), x), X, Y)
emit("cond_true", lambda x, y: lax.cond(jnp.sum(x) > -100.0, lambda: jnp.sin(x) * y, lambda: x + y), X, Y)
emit("cond_false", lambda x, y: lax.cond(jnp.sum(x) > 100.0, lambda: jnp.sin(x) * y, lambda: x * x + y), X, Y)
emit("gather_dynamic_slice", lambda x, y: x[jnp.array([1, 0, 1])] * lax.dynamic_slice(y, (0, 1), (1, 3)), X, Y)
emit("sort", lambda x, y: (lambda s: s[0] * jnp.sin(s[1]))(lax.sort((x, y), dimension=1, num_keys=1)), X, Y)
emit("scatter_add", lambda x, y: (x * x).at[jnp.array([1, 0, 1])].add(y[jnp.array([0, 1, 1])] * x[0]), X, Y)
X4, Y4 = u((1, 4, 4, 2)), u((2, 2, 2, 3))
emit("conv", lambda x, y: jnp.tanh(lax.conv_general_dilated(x, y, (1, 1), ((1, 0), (0, 1)),
                                                             dimension_numbers=("NHWC", "HWIO", "NHWC"))), X4, Y4)
emit("pools", lambda x, y: lax.reduce_window(x * y, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 1, 1, 1), "VALID") +
     lax.reduce_window(x * x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "SAME").sum() , u((1, 4, 4, 2)),
     u((1, 4, 4, 2)))
emit("complex_exp", lambda x, y: jnp.real(jnp.exp(lax.complex(x, y)) * lax.complex(y, x)) +
     jnp.imag(lax.complex(x, y) ** 2), X, Y)
emit("complex_abs", lambda x, y: jnp.abs(lax.complex(x, y) * lax.complex(x, 1.0 + y)), X, Y)
emit("logsumexp", lambda x, y: jnp.log(jnp.sum(jnp.exp(x * y), axis=1)), X, Y, jac=True)
emit("layer_norm", lambda x, y: (lambda c: c * lax.rsqrt(jnp.mean(c * c, axis=1, keepdims=True) + 1e-3) * y)(
    x - jnp.mean(x, axis=1, keepdims=True)), X, Y, jac=True)
emit("mlp", lambda x, y: jnp.sum(jnp.tanh(x @ y.T) ** 2, axis=1), X, Y)
emit("remainder_floor", lambda x, y: lax.rem(x * 3.0, y) + jnp.floor(x) * y, X, P)

# StableHLO 1.23/1.24's exp2, log2 and fma (JAX 0.10.2 lowers these to exp/log and a multiply; the
# derivatives are the same): hhlo builds them with exp2, log2 and fma(x, y, exp2(y)).
emit("exp2_log2_fma", lambda x, y: jnp.exp2(x) * jnp.log2(y * y + 1.0) + (x * y + jnp.exp2(y)), X, Y,
     jac=True)

os.makedirs(os.path.dirname(OUT), exist_ok=True)
with open(OUT, "w") as f:
    f.write("\n".join(lines) + "\n")
print(f"wrote {len(lines)} tensors to {OUT}")
