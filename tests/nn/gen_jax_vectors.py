"""Generates tests/nn/data/jax_vectors.txt once: inputs, outputs and gradients of small composite
models computed with JAX (CPU, f32), which tests/nn/jax_crosscheck_test.cc rebuilds with hhlo::nn and
hhlo::ad and compares. Run: .venv/bin/python tests/nn/gen_jax_vectors.py

Format: one tensor per line, `<case>/<name>|<dims comma-separated>|<values space-separated>`.
"""
import numpy as np
import jax, jax.numpy as jnp

jax.config.update("jax_default_matmul_precision", "highest")
lines = []
def put(case, name, a):
    a = np.asarray(a)
    vals = " ".join(repr(float(v)) if a.dtype.kind == "f" else str(int(v)) for v in a.reshape(-1))
    lines.append(f"{case}/{name}|{','.join(map(str, a.shape))}|{vals}")

rng = np.random.default_rng(7)
def r(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)

def ce(logits, y):
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * jax.nn.one_hot(y, logits.shape[-1]), -1))

def emit(case, params, inputs, fn):
    for k, v in params.items(): put(case, "param/" + k, v)
    for k, v in inputs.items(): put(case, "input/" + k, v)
    loss, g = jax.value_and_grad(fn)(params, inputs)
    put(case, "loss", loss)
    for k, v in g.items(): put(case, "grad/" + k, v)

# (a) MLP with softmax cross-entropy.
p = {"dense1/w": r(8, 16, scale=0.4), "dense1/b": r(16, scale=0.1), "dense2/w": r(16, 4, scale=0.4), "dense2/b": r(4, scale=0.1)}
i = {"x": r(5, 8), "y": np.array([0, 3, 1, 2, 3], np.int32)}
emit("mlp", p, i, lambda p, i: ce(jax.nn.relu(i["x"] @ p["dense1/w"] + p["dense1/b"]) @ p["dense2/w"] + p["dense2/b"], i["y"]))

# (b) CNN: conv SAME + bias + relu + max-pool 2 + avg-pool-free dense head.
def cnn(p, i):
    h = jax.lax.conv_general_dilated(i["x"], p["conv/w"], (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")) + p["conv/b"]
    h = jax.nn.relu(h)
    h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    return ce(h.reshape(h.shape[0], -1) @ p["dense/w"] + p["dense/b"], i["y"])
p = {"conv/w": r(3, 3, 2, 4, scale=0.3), "conv/b": r(4, scale=0.1), "dense/w": r(36, 3, scale=0.3), "dense/b": r(3, scale=0.1)}
i = {"x": r(2, 6, 6, 2), "y": np.array([2, 0], np.int32)}
emit("cnn", p, i, cnn)

# (c) Grouped, strided, dilated NCHW convolution with explicit padding, then avg-pool 2 (SAME).
def conv_g(p, i):
    h = jax.lax.conv_general_dilated(i["x"], p["w"], (2, 1), [(1, 2), (0, 1)], rhs_dilation=(1, 2),
                                     dimension_numbers=("NCHW", "HWIO", "NCHW"), feature_group_count=2)
    h = jax.lax.reduce_window(h, 0.0, jax.lax.add, (1, 1, 2, 2), (1, 1, 2, 2), "SAME") / 4.0
    return jnp.sum(jnp.sin(h) * i["w_out"])
p = {"w": r(3, 2, 2, 6, scale=0.4)}
x = r(2, 4, 7, 6)
out_shape = jax.eval_shape(lambda p: jax.lax.reduce_window(jax.lax.conv_general_dilated(x, p["w"], (2, 1), [(1, 2), (0, 1)], rhs_dilation=(1, 2), dimension_numbers=("NCHW", "HWIO", "NCHW"), feature_group_count=2), 0.0, jax.lax.add, (1, 1, 2, 2), (1, 1, 2, 2), "SAME"), p).shape
i = {"x": x, "w_out": r(*out_shape)}
emit("conv_groups", p, i, conv_g)

# (d) Transformer-style block: layer norm, 2-head self-attention, GELU (tanh), residual.
D, H = 8, 2
def attn(p, x):
    B, T, _ = x.shape
    def lin(n, t): return t @ p[n + "/w"] + p[n + "/b"]
    def split(t): return t.reshape(B, T, H, D // H).transpose(0, 2, 1, 3)
    q, k, v = split(lin("attn/q", x)), split(lin("attn/k", x)), split(lin("attn/v", x))
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(D // H)
    o = jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, -1), v).transpose(0, 2, 1, 3).reshape(B, T, D)
    return lin("attn/o", o)
def block(p, i):
    x = i["x"]
    mu = jnp.mean(x, -1, keepdims=True); var = jnp.mean((x - mu) ** 2, -1, keepdims=True)
    h = (x - mu) / jnp.sqrt(var + 1e-5) * p["ln/gamma"] + p["ln/beta"]
    y = x + jax.nn.gelu(attn(p, h), approximate=True)
    return jnp.sum(y * i["w_out"])
p = {"ln/gamma": 1 + r(D, scale=0.1), "ln/beta": r(D, scale=0.1)}
for n in ["q", "k", "v", "o"]:
    p[f"attn/{n}/w"] = r(D, D, scale=0.3); p[f"attn/{n}/b"] = r(D, scale=0.1)
i = {"x": r(2, 3, D), "w_out": r(2, 3, D)}
emit("block", p, i, block)

# (e) Batch norm (training statistics) over NHWC, then SiLU, and an embedding lookup.
def bn(p, i):
    x = i["x"]
    mu = jnp.mean(x, (0, 1, 2)); var = jnp.mean((x - mu) ** 2, (0, 1, 2))
    y = (x - mu) / jnp.sqrt(var + 1e-5) * p["bn/gamma"] + p["bn/beta"]
    e = p["emb"][i["ids"]]
    return jnp.sum(jax.nn.silu(y) * i["w_out"]) + jnp.sum(jnp.tanh(e))
p = {"bn/gamma": 1 + r(3, scale=0.1), "bn/beta": r(3, scale=0.1), "emb": r(5, 4)}
i = {"x": r(2, 3, 3, 3), "w_out": r(2, 3, 3, 3), "ids": np.array([[1, 4], [1, 0]], np.int32)}
emit("bn_emb", p, i, bn)

open("tests/nn/data/jax_vectors.txt", "w").write("\n".join(lines) + "\n")
print(len(lines), "tensors")
