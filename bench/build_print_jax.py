"""Time to build and print the models of bench/build_print_bench.cc with JAX (its peer):
`jax.jit(f).lower(*args)` (trace + lower to StableHLO: "build") then `.as_text()` ("print"),
a fresh Python function every repetition so that no tracing or lowering cache hides the work.
The models mirror the C++ ones op for op (jnp.maximum for relu, tanh-approximate GELU, softmax
and layer norm written out, lax.dot_general with the same dimension numbers); every weight is a
function argument (jax.ShapeDtypeStruct), so no constant array is printed.

Prints one JSON object: {"jax_version", "reps", "mlp": {...}, "transformer": {...}} where each
model has median/min of lower_ms, text_ms, total_ms, the op count and its histogram.
Usage: build_print_jax.py [--reps N] [--dump DIR] (DIR/{mlp,transformer}_jax.mlir)
"""
import argparse
import collections
import json
import math
import os
import re
import statistics
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

MLP = dict(layers=1000, width=64, batch=8)
TRANSFORMER = dict(layers=12, d_model=256, heads=4, seq=128, batch=1, ffn=1024)
# Per-layer parameters in argument order (same as block_params() in build_print_bench.cc);
# kind: 0 = [D], 1 = [D, D], 2 = [D, F], 3 = [F], 4 = [F, D].
BLOCK = [("ln1/g", 0), ("ln1/b", 0), ("attn/q/w", 1), ("attn/q/b", 0), ("attn/k/w", 1),
         ("attn/k/b", 0), ("attn/v/w", 1), ("attn/v/b", 0), ("attn/o/w", 1), ("attn/o/b", 0),
         ("ln2/g", 0), ("ln2/b", 0), ("ff1/w", 2), ("ff1/b", 3), ("ff2/w", 4), ("ff2/b", 0)]
OP_RE = re.compile(r'(?:= |"|applies )stablehlo\.([a-z_]+)')


def op_counts(text):
    c = collections.Counter(m.group(1) for m in OP_RE.finditer(text))
    c.pop("return", None)
    return dict(sorted(c.items()))


def dense(x, w, b):
    y = lax.dot_general(x, w, (((x.ndim - 1,), (0,)), ((), ())))
    return y + b


def layer_norm(x, g, b, eps=1e-5):
    mu = jnp.mean(x, axis=-1, keepdims=True)
    xc = x - mu
    var = jnp.mean(xc * xc, axis=-1, keepdims=True)
    return xc * lax.rsqrt(var + eps) * g + b


def gelu(x):
    inner = (x + x * x * x * 0.044715) * math.sqrt(2.0 / math.pi)
    return x * 0.5 * (jnp.tanh(inner) + 1.0)


def mha(x, p, heads):
    B, T, D = x.shape
    dh = D // heads

    def split(t):
        return jnp.transpose(t.reshape(B, T, heads, dh), (0, 2, 1, 3))

    q = split(dense(x, p["attn/q/w"], p["attn/q/b"]))
    k = split(dense(x, p["attn/k/w"], p["attn/k/b"]))
    v = split(dense(x, p["attn/v/w"], p["attn/v/b"]))
    s = lax.dot_general(q, k, (((3,), (3,)), ((0, 1), (0, 1)))) * (1.0 / math.sqrt(dh))
    m = jnp.max(s, axis=-1, keepdims=True)
    e = jnp.exp(s - m)
    a = e / jnp.sum(e, axis=-1, keepdims=True)
    o = lax.dot_general(a, v, (((3,), (2,)), ((0, 1), (0, 1))))
    merged = jnp.transpose(o, (0, 2, 1, 3)).reshape(B, T, D)
    return dense(merged, p["attn/o/w"], p["attn/o/b"])


def make_mlp():
    """A fresh function object each call (no jit cache can be reused)."""
    def mlp(x, *params):
        h = x
        for i in range(0, len(params), 2):
            h = jnp.maximum(dense(h, params[i], params[i + 1]), 0.0)
        return h
    return mlp


def make_transformer():
    heads = TRANSFORMER["heads"]

    def transformer(x, *params):
        n = len(BLOCK)
        for l in range(len(params) // n):
            p = {name: params[l * n + j] for j, (name, _) in enumerate(BLOCK)}
            n1 = layer_norm(x, p["ln1/g"], p["ln1/b"])
            h = x + mha(n1, p, heads)
            n2 = layer_norm(h, p["ln2/g"], p["ln2/b"])
            x = h + dense(gelu(dense(n2, p["ff1/w"], p["ff1/b"])), p["ff2/w"], p["ff2/b"])
        return x
    return transformer


def mlp_args():
    s, f32 = MLP, jnp.float32
    args = [jax.ShapeDtypeStruct((s["batch"], s["width"]), f32)]
    for _ in range(s["layers"]):
        args += [jax.ShapeDtypeStruct((s["width"], s["width"]), f32),
                 jax.ShapeDtypeStruct((s["width"],), f32)]
    return args


def transformer_args():
    s, f32 = TRANSFORMER, jnp.float32
    D, F = s["d_model"], s["ffn"]
    shapes = {0: (D,), 1: (D, D), 2: (D, F), 3: (F,), 4: (F, D)}
    args = [jax.ShapeDtypeStruct((s["batch"], s["seq"], D), f32)]
    for _ in range(s["layers"]):
        args += [jax.ShapeDtypeStruct(shapes[kind], f32) for _, kind in BLOCK]
    return args


def measure(make, args, reps):
    lower_ms, text_ms, total_ms = [], [], []
    text = ""
    for r in range(reps + 1):  # the first run warms up JAX (imports, primitive caches): dropped
        f = make()
        t0 = time.perf_counter()
        lowered = jax.jit(f).lower(*args)
        t1 = time.perf_counter()
        text = lowered.as_text()
        t2 = time.perf_counter()
        if r > 0:
            lower_ms.append((t1 - t0) * 1e3)
            text_ms.append((t2 - t1) * 1e3)
            total_ms.append((t2 - t0) * 1e3)
    counts = op_counts(text)
    med = statistics.median
    return text, {
        "lower_ms": med(lower_ms), "text_ms": med(text_ms), "total_ms": med(total_ms),
        "lower_min_ms": min(lower_ms), "text_min_ms": min(text_ms), "total_min_ms": min(total_ms),
        "total_all_ms": total_ms, "ops": sum(counts.values()), "ops_hist": counts,
        "text_bytes": len(text),
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=5, help="timed repetitions per model")
    p.add_argument("--dump", help="write the printed programs to DIR/{mlp,transformer}_jax.mlir")
    args = p.parse_args()
    out = {"jax_version": jax.__version__, "reps": args.reps}
    for name, make, a in (("mlp", make_mlp, mlp_args()),
                          ("transformer", make_transformer, transformer_args())):
        text, out[name] = measure(make, a, args.reps)
        if args.dump:
            with open(os.path.join(args.dump, f"{name}_jax.mlir"), "w") as fh:
                fh.write(text)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
