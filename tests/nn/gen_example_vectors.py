"""Generates tests/nn/data/example_vectors.txt once: for each model of examples/models/models.h,
the inputs, initial parameters, the loss and the parameters after one SGD step (lr 0.1), computed
with the same models in JAX (CPU, f32). Run: .venv/bin/python tests/nn/gen_example_vectors.py
Format as gen_jax_vectors.py: `<case>/<name>|<dims>|<values>`."""
import numpy as np
import jax, jax.numpy as jnp

jax.config.update("jax_default_matmul_precision", "highest")
lines = []
def put(case, name, a):
    a = np.asarray(a)
    vals = " ".join(repr(float(v)) if a.dtype.kind == "f" else str(int(v)) for v in a.reshape(-1))
    lines.append(f"{case}/{name}|{','.join(map(str, a.shape))}|{vals}")
rng = np.random.default_rng(11)
def r(*shape, scale=1.0): return (rng.standard_normal(shape) * scale).astype(np.float32)
def ce(logits, y): return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * jax.nn.one_hot(y, logits.shape[-1]), -1))
def dense(p, n, x): return x @ p[n + "/w"] + p[n + "/b"]
def conv(p, n, x, **kw):
    return jax.lax.conv_general_dilated(x, p[n + "/w"], (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")) + p[n + "/b"]

def emit(case, params, inputs, fn):
    for k, v in params.items(): put(case, "param/" + k, v)
    for k, v in inputs.items(): put(case, "input/" + k, v)
    loss, g = jax.value_and_grad(fn)(params, inputs)
    put(case, "loss", loss)
    for k in params: put(case, "after/" + k, params[k] - 0.1 * g[k])

p = {"fc1/w": r(6, 8, scale=0.5), "fc1/b": r(8, scale=0.1), "fc2/w": r(8, 3, scale=0.5), "fc2/b": r(3, scale=0.1)}
emit("mlp", p, {"x": r(4, 6), "y": np.array([0, 2, 1, 2], np.int32)},
     lambda p, i: ce(dense(p, "fc2", jax.nn.relu(dense(p, "fc1", i["x"]))), i["y"]))

p = {}
for b in ["block1", "block2"]:
    for c in ["conv1", "conv2"]:
        p[f"{b}/{c}/w"] = r(3, 3, 4, 4, scale=0.25); p[f"{b}/{c}/b"] = r(4, scale=0.1)
p["head/w"] = r(4, 3, scale=0.5); p["head/b"] = r(3, scale=0.1)
def resnet(p, i):
    h = i["x"]
    for b in ["block1", "block2"]:
        t = conv(p, f"{b}/conv2", jax.nn.relu(conv(p, f"{b}/conv1", h)))
        h = jax.nn.relu(h + t)
    return ce(dense(p, "head", jnp.mean(h, (1, 2))), i["y"])
emit("resnet", p, {"x": r(2, 5, 5, 4), "y": np.array([1, 2], np.int32)}, resnet)

D, H = 8, 2
p = {"ln1/gamma": 1 + r(D, scale=0.1), "ln1/beta": r(D, scale=0.1), "ln2/gamma": 1 + r(D, scale=0.1), "ln2/beta": r(D, scale=0.1),
     "mlp1/w": r(D, 16, scale=0.3), "mlp1/b": r(16, scale=0.1), "mlp2/w": r(16, D, scale=0.3), "mlp2/b": r(D, scale=0.1)}
for n in ["q", "k", "v", "o"]:
    p[f"attn/{n}/w"] = r(D, D, scale=0.3); p[f"attn/{n}/b"] = r(D, scale=0.1)
def ln(x, g, b):
    mu = jnp.mean(x, -1, keepdims=True); var = jnp.mean((x - mu) ** 2, -1, keepdims=True)
    return (x - mu) / jnp.sqrt(var + 1e-5) * g + b
def mha(p, x):
    B, T, _ = x.shape
    sp = lambda t: t.reshape(B, T, H, D // H).transpose(0, 2, 1, 3)
    q, k, v = sp(dense(p, "attn/q", x)), sp(dense(p, "attn/k", x)), sp(dense(p, "attn/v", x))
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(D // H)
    o = jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, -1), v).transpose(0, 2, 1, 3).reshape(B, T, D)
    return dense(p, "attn/o", o)
def transformer(p, i):
    x = i["x"]
    h = x + mha(p, ln(x, p["ln1/gamma"], p["ln1/beta"]))
    out = h + dense(p, "mlp2", jax.nn.gelu(dense(p, "mlp1", ln(h, p["ln2/gamma"], p["ln2/beta"])), approximate=True))
    return jnp.sum(out * i["w_out"])
emit("transformer", p, {"x": r(2, 4, D), "w_out": r(2, 4, D)}, transformer)

p = {"enc/w": r(3, 3, 2, 4, scale=0.3), "enc/b": r(4, scale=0.1), "mid/w": r(3, 3, 4, 8, scale=0.3), "mid/b": r(8, scale=0.1),
     "up/w": r(2, 2, 8, 4, scale=0.3), "up/b": r(4, scale=0.1), "out/w": r(3, 3, 8, 2, scale=0.3), "out/b": r(2, scale=0.1)}
def unet(p, i):
    e = jax.nn.relu(conv(p, "enc", i["x"]))
    d = jax.lax.reduce_window(e, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    d = jax.nn.relu(conv(p, "mid", d))
    u = jax.lax.conv_transpose(d, p["up/w"], (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")) + p["up/b"]
    out = conv(p, "out", jnp.concatenate([u, e], -1))
    return jnp.mean((out - i["target"]) ** 2)
emit("unet", p, {"x": r(1, 8, 8, 2), "target": r(1, 8, 8, 2)}, unet)

open("tests/nn/data/example_vectors.txt", "w").write("\n".join(lines) + "\n")
print(len(lines), "tensors")
