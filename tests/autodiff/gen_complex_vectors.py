"""Generates tests/autodiff/data/complex_vectors.txt once: inputs and JAX gradients of real-valued
functions through complex intermediates (and of JAX vjp's with complex cotangents), which
tests/autodiff/complex_test.cc rebuilds with hhlo ops, differentiates with hhlo::ad and compares.
Run: /work/main/.venv/bin/python tests/autodiff/gen_complex_vectors.py   (JAX 0.10.2, CPU, x64)

Format: one tensor per line, `<case>/<name>|<dtype>|<dims comma-separated>|<values space-separated>`;
dtype is f32, f64, c64 or c128; a complex element is written as its real and imaginary parts.
Each case's function is spelled out next to it; complex_test.cc builds the same one.
"""
import os
import numpy as np
import jax
import jax.numpy as jnp
from jax import lax

jax.config.update("jax_enable_x64", True)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "complex_vectors.txt")
NAMES = {np.dtype("float32"): "f32", np.dtype("float64"): "f64",
         np.dtype("complex64"): "c64", np.dtype("complex128"): "c128"}
lines = []


def put(case, name, a):
    a = np.asarray(a)
    flat = a.reshape(-1)
    if np.iscomplexobj(a):
        vals = " ".join(f"{float(v.real)!r} {float(v.imag)!r}" for v in flat)
    else:
        vals = " ".join(repr(float(v)) for v in flat)
    lines.append(f"{case}/{name}|{NAMES[a.dtype]}|{','.join(map(str, a.shape))}|{vals}")


rng = np.random.default_rng(2026)


def u(shape, lo, hi):
    return rng.uniform(lo, hi, shape).astype(np.float64)


def emit(case, fn, inputs, names):
    """inputs: positional arrays named `names`; records inputs, loss and grads w.r.t. all."""
    for n, v in zip(names, inputs):
        put(case, "input/" + n, v)
    loss, grads = jax.value_and_grad(fn, argnums=tuple(range(len(inputs))))(*inputs)
    put(case, "loss", loss)
    for n, g in zip(names, grads):
        put(case, "grad/" + n, g)


def parts_loss(v, w1, w2):
    return jnp.sum(w1 * jnp.real(v) + w2 * jnp.imag(v))


# ---- issue 8 section 4, exactly as filed
ones = np.ones(5, np.float32)
emit("issue/abs_sq", lambda r, i: jnp.sum(jnp.abs(lax.complex(r, i)) * jnp.abs(lax.complex(r, i))),
     [ones, ones], ["r", "i"])
emit("issue/real_imag_sq",
     lambda r, i: jnp.sum(jnp.real(lax.complex(r, i)) ** 2 + jnp.imag(lax.complex(r, i)) ** 2),
     [ones, ones], ["r", "i"])
emit("issue/exp_imag", lambda x: jnp.imag(jnp.exp(lax.complex(jnp.zeros((), jnp.float64), x))),
     [np.array(np.pi / 3, np.float64)], ["x"])

# ---- unary/<op>: z = complex(a, b); loss = sum(w1 * real(op(z)) + w2 * imag(op(z)))
UNARY = {
    "negate": lax.neg, "exponential": lax.exp, "exponential_minus_one": lax.expm1, "log": lax.log,
    "log_plus_one": lax.log1p, "logistic": lax.logistic, "sqrt": lax.sqrt, "rsqrt": lax.rsqrt,
    "sine": lax.sin, "cosine": lax.cos, "tan": lax.tan, "tanh": lax.tanh,
}
for name, op in UNARY.items():
    a, b, w1, w2 = u((2, 3), 0.3, 1.2), u((2, 3), -0.8, 0.8), u((2, 3), 0.5, 1.5), u((2, 3), 0.5, 1.5)
    emit("unary/" + name, lambda a, b, w1, w2, op=op: parts_loss(op(lax.complex(a, b)), w1, w2),
         [a, b, w1, w2], ["a", "b", "w1", "w2"])

# ---- binary/<op>: loss = sum(w1 * real(op(complex(a, b), complex(c, d))) + w2 * imag(...))
BINARY = {"add": lax.add, "subtract": lax.sub, "multiply": lax.mul, "divide": lax.div, "power": lax.pow}
for name, op in BINARY.items():
    a, b, c, d = u((2, 3), 0.3, 1.2), u((2, 3), -0.8, 0.8), u((2, 3), 0.3, 1.2), u((2, 3), -0.8, 0.8)
    w1, w2 = u((2, 3), 0.5, 1.5), u((2, 3), 0.5, 1.5)
    emit("binary/" + name,
         lambda a, b, c, d, w1, w2, op=op: parts_loss(op(lax.complex(a, b), lax.complex(c, d)), w1, w2),
         [a, b, c, d, w1, w2], ["a", "b", "c", "d", "w1", "w2"])

# ---- abs of complex (and at an exact zero, where JAX's gradient is 0)
a, b, w1 = u((2, 3), -1, 1), u((2, 3), -1, 1), u((2, 3), 0.5, 1.5)
a[0, 0] = b[0, 0] = 0.0
emit("abs/complex", lambda a, b, w1: jnp.sum(w1 * jnp.abs(lax.complex(a, b))), [a, b, w1], ["a", "b", "w1"])

# ---- matmul: u = complex(a, b)[2,3] @ complex(c, d)[3,2] (dot_general); parts loss
a, b, c, d = u((2, 3), -1, 1), u((2, 3), -1, 1), u((3, 2), -1, 1), u((3, 2), -1, 1)
w1, w2 = u((2, 2), 0.5, 1.5), u((2, 2), 0.5, 1.5)
emit("struct/matmul", lambda a, b, c, d, w1, w2: parts_loss(lax.complex(a, b) @ lax.complex(c, d), w1, w2),
     [a, b, c, d, w1, w2], ["a", "b", "c", "d", "w1", "w2"])


# ---- shape ops: z = complex(a, b)[2,3]; t = transpose(z)[3,2]; s = t[1:3, :][2,2];
#      r = reshape(s, [4]); q = sum over dim 0 of broadcast_in_dim(r, [3,4], dims {1}) [4];
#      v = concatenate([q, convert(c[4] -> c128)]) [8]; loss = sum(w1 * real(v * v) + w2 * imag(v))
def shapes(a, b, c, w1, w2):
    z = lax.complex(a, b)
    s = lax.slice(z.T, (1, 0), (3, 2))
    q = jnp.sum(jnp.broadcast_to(s.reshape(4), (3, 4)), axis=0)
    v = jnp.concatenate([q, c.astype(jnp.complex128)])
    return jnp.sum(w1 * jnp.real(v * v) + w2 * jnp.imag(v))


emit("struct/shapes", shapes, [u((2, 3), -1, 1), u((2, 3), -1, 1), u((4,), -1, 1), u((8,), 0.5, 1.5),
                               u((8,), 0.5, 1.5)], ["a", "b", "c", "w1", "w2"])

# ---- select: z1 = complex(a, b), z2 = complex(c, d); v = select(a > c, z1 * z2, exp(z1)); parts loss
a, b, c, d = u((2, 3), -1, 1), u((2, 3), -1, 1), u((2, 3), -1, 1), u((2, 3), -1, 1)
w1, w2 = u((2, 3), 0.5, 1.5), u((2, 3), 0.5, 1.5)
emit("struct/select",
     lambda a, b, c, d, w1, w2: parts_loss(
         lax.select(a > c, lax.complex(a, b) * lax.complex(c, d), jnp.exp(lax.complex(a, b))), w1, w2),
     [a, b, c, d, w1, w2], ["a", "b", "c", "d", "w1", "w2"])

# ---- gradients with respect to a complex input (JAX's convention: df/dx - i df/dy)
z = (u((3,), -1, 1) + 1j * u((3,), -1, 1)).astype(np.complex128)
emit("wrt_complex/abs_sq", lambda z: jnp.sum(jnp.abs(z) * jnp.abs(z)), [z], ["z"])
w1 = u((3,), 0.5, 1.5)
emit("wrt_complex/real_exp_imag_sq", lambda z, w1: jnp.sum(w1 * jnp.real(jnp.exp(z)) + jnp.imag(z * z)),
     [z, w1], ["z", "w1"])

# ---- vjp with a complex cotangent of a holomorphic function (pins the convention: ct * f'(z))
ct = (u((3,), -1, 1) + 1j * u((3,), -1, 1)).astype(np.complex128)
z2 = (u((3,), -1, 1) + 1j * u((3,), -1, 1)).astype(np.complex128)
put("vjp/exp", "input/z", z)
put("vjp/exp", "input/ct", ct)
put("vjp/exp", "grad/z", jax.vjp(jnp.exp, z)[1](ct)[0])
put("vjp/multiply", "input/z", z)
put("vjp/multiply", "input/z2", z2)
put("vjp/multiply", "input/ct", ct)
gz, gz2 = jax.vjp(lambda x, y: x * y, z, z2)[1](ct)
put("vjp/multiply", "grad/z", gz)
put("vjp/multiply", "grad/z2", gz2)

with open(OUT, "w") as f:
    f.write("\n".join(lines) + "\n")
print(f"wrote {len(lines)} tensors to {OUT}")
