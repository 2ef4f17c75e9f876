"""JAX peer of the digits training step (bench/train_*): same MLP / CNN, same batch size, jit on CPU.

Usage: .venv/bin/python bench/train_jax.py [--model mlp|cnn] [--epochs N] [--batch B] [--steps S]
Prints per-epoch test accuracy and the median time per training step (ms) as `step_ms=<x>`.
"""
import argparse, gzip, time
import numpy as np
import jax, jax.numpy as jnp

p = argparse.ArgumentParser()
p.add_argument("--model", default="mlp")
p.add_argument("--epochs", type=int, default=20)
p.add_argument("--batch", type=int, default=32)
p.add_argument("--hidden", type=int, default=256)
p.add_argument("--lr", type=float, default=2e-3)
p.add_argument("--steps", type=int, default=2000, help="timed steps")
p.add_argument("--lower", default="", help="write the lowered StableHLO of the step to this file and exit")
a = p.parse_args()

d = np.loadtxt(gzip.open("third_party/data/digits.csv.gz"), delimiter=",", dtype=np.float32)
x, y = d[:, :64] / 16.0, d[:, 64].astype(np.int32)
perm = np.random.default_rng(0).permutation(len(x))
ntest = 360
xte, yte, xtr, ytr = x[perm[:ntest]], y[perm[:ntest]], x[perm[ntest:]], y[perm[ntest:]]

def glorot(k, shape):
    lim = np.sqrt(6.0 / (shape[0] + shape[-1]))
    return jax.random.uniform(k, shape, jnp.float32, -lim, lim)

k = jax.random.split(jax.random.PRNGKey(0), 4)
if a.model == "mlp":
    params = {"w1": glorot(k[0], (64, a.hidden)), "b1": jnp.zeros(a.hidden),
              "w2": glorot(k[1], (a.hidden, 10)), "b2": jnp.zeros(10)}
    def fwd(p, x):
        h = jax.nn.relu(x @ p["w1"] + p["b1"])
        return h @ p["w2"] + p["b2"]
else:
    he = lambda k, s: jax.random.normal(k, s) * np.sqrt(2.0 / np.prod(s[:-1]))
    params = {"c1": he(k[0], (3, 3, 1, 16)), "cb1": jnp.zeros(16),
              "c2": he(k[1], (3, 3, 16, 32)), "cb2": jnp.zeros(32),
              "dense_w": glorot(k[2], (2 * 2 * 32, 10)), "dense_b": jnp.zeros(10)}
    def fwd(p, x):
        x = x.reshape(-1, 8, 8, 1)
        dn = ("NHWC", "HWIO", "NHWC")
        h = jax.lax.conv_general_dilated(x, p["c1"], (1, 1), "SAME", dimension_numbers=dn) + p["cb1"]
        h = jax.nn.relu(h)
        h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        h = jax.lax.conv_general_dilated(h, p["c2"], (1, 1), "SAME", dimension_numbers=dn) + p["cb2"]
        h = jax.nn.relu(h)
        h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        return h.reshape(h.shape[0], -1) @ p["dense_w"] + p["dense_b"]

def loss_fn(p, x, y):
    logits = fwd(p, x)
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * jax.nn.one_hot(y, 10), -1))

b1, b2, eps = 0.9, 0.999, 1e-8
def step(p, m, v, t, x, y):
    l, g = jax.value_and_grad(loss_fn)(p, x, y)
    t = t + 1
    m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, m, g)
    v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, v, g)
    lr = a.lr * jnp.sqrt(1 - b2 ** t) / (1 - b1 ** t)
    p = jax.tree.map(lambda p, m, v: p - lr * m / (jnp.sqrt(v) + eps), p, m, v)
    return p, m, v, t, l
step = jax.jit(step, donate_argnums=(0, 1, 2, 3))
acc = jax.jit(lambda p, x, y: jnp.mean(jnp.argmax(fwd(p, x), -1) == y))

m = jax.tree.map(jnp.zeros_like, params); v = jax.tree.map(jnp.zeros_like, params)
t = jnp.zeros((), jnp.float32)
if a.lower:
    open(a.lower, "w").write(step.lower(params, m, v, t, xtr[:a.batch], ytr[:a.batch]).as_text())
    raise SystemExit(0)
nb = len(xtr) // a.batch
t0 = time.perf_counter()
rng = np.random.default_rng(1)
for e in range(a.epochs):
    order = rng.permutation(len(xtr))
    for i in range(nb):
        idx = order[i * a.batch:(i + 1) * a.batch]
        params, m, v, t, l = step(params, m, v, t, xtr[idx], ytr[idx])
    print(f"epoch {e+1} loss {float(l):.4f} test_acc {float(acc(params, xte, yte)):.4f}")
print(f"train_wall_s={time.perf_counter()-t0:.2f}")
# Timing: fixed batch on device, one call per step, the scalar loss copied to the host each step (as ours).
xb, yb = jax.device_put(xtr[:a.batch]), jax.device_put(ytr[:a.batch])
times = []
for i in range(50):
    params, m, v, t, l = step(params, m, v, t, xb, yb)
    float(l)  # the loss to the host every step, as ours
for i in range(a.steps):
    s = time.perf_counter()
    params, m, v, t, l = step(params, m, v, t, xb, yb)
    float(l)  # the loss to the host every step, as ours
    times.append(time.perf_counter() - s)
print(f"step_ms={np.median(times)*1e3:.4f}")
print(f"step_ms_p25={np.percentile(times, 25)*1e3:.4f}")
