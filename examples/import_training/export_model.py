"""Exports the loss of a small MLP classifier with `jax.export` and makes synthetic data for the
import-training example (examples/import_training/main.cc), plus JAX's own training trajectory
on the same data (the reference the example's test compares with).

  .venv/bin/python examples/import_training/export_model.py OUT_DIR [--steps N] [--lr LR]

Writes to OUT_DIR:
  mlp_loss.mlir            loss(w1, b1, w2, b2, x, y) as JAX exports it (StableHLO text)
  param0.npy .. param3.npy initial parameters (w1, b1, w2, b2)
  x.npy, y.npy             a synthetic batch: x ~ N(0, 1), y = one-hot labels of a random teacher
  jax_losses.npy           the loss before each of N steps of SGD with momentum 0.9 (JAX)
"""
import argparse
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import export

jax.config.update("jax_default_matmul_precision", "highest")

IN, HIDDEN, CLASSES, BATCH = 10, 32, 4, 128


def loss(w1, b1, w2, b2, x, y):
    h = jax.nn.relu(x @ w1 + b1)
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(h @ w2 + b2) * y, axis=-1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--momentum", type=float, default=0.9)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)

    rng = np.random.default_rng(7)
    params = [
        (rng.standard_normal((IN, HIDDEN)) * np.sqrt(2.0 / IN)).astype(np.float32),
        np.zeros((HIDDEN,), np.float32),
        (rng.standard_normal((HIDDEN, CLASSES)) * np.sqrt(1.0 / HIDDEN)).astype(np.float32),
        np.zeros((CLASSES,), np.float32),
    ]
    x = rng.standard_normal((BATCH, IN)).astype(np.float32)
    teacher = rng.standard_normal((IN, CLASSES)).astype(np.float32)
    y = np.eye(CLASSES, dtype=np.float32)[np.argmax(np.tanh(x @ teacher) + 0.1 * x[:, :CLASSES], 1)]

    specs = [jax.ShapeDtypeStruct(p.shape, p.dtype) for p in params + [x, y]]
    with open(os.path.join(a.out, "mlp_loss.mlir"), "w") as f:
        f.write(export.export(jax.jit(loss))(*specs).mlir_module())
    for k, p in enumerate(params):
        np.save(os.path.join(a.out, f"param{k}.npy"), p)
    np.save(os.path.join(a.out, "x.npy"), x)
    np.save(os.path.join(a.out, "y.npy"), y)

    # JAX's trajectory: v = momentum * v + g; p -= lr * v (hhlo::nn::sgd's update).
    step = jax.jit(jax.value_and_grad(loss, argnums=(0, 1, 2, 3)))
    p = [jnp.asarray(q) for q in params]
    v = [jnp.zeros_like(q) for q in p]
    losses = []
    for _ in range(a.steps):
        value, grads = step(*p, x, y)
        losses.append(float(value))
        v = [a.momentum * vi + g for vi, g in zip(v, grads)]
        p = [pi - a.lr * vi for pi, vi in zip(p, v)]
    np.save(os.path.join(a.out, "jax_losses.npy"), np.asarray(losses, np.float32))
    print(f"exported mlp_loss.mlir and data to {a.out}; JAX loss {losses[0]:.4f} -> {losses[-1]:.4f}")


if __name__ == "__main__":
    main()
