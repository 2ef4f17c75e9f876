"""oneDNN convolutions against XLA's (issue 26 item 4): a small CNN's inference, three ways.

The CNN of the peers' comparison (28x28x1; conv 3x3x32 SAME + ReLU + max-pool 2, conv 3x3x64 SAME
+ ReLU + max-pool 2, dense 3136-10; NHWC / HWIO), exported with jax.jit(...).lower(...).as_text()
(weights as constants), at batch 1 and 64, timed per call (median p50 of single calls) by
`hhlo bench` with XLA's convolutions (defaults), by `hhlo bench --onednn-convolution` (both
convolutions as oneDNN's kernel) and by jax.jit in this process; alternating over ROUNDS rounds.
Also checks that the three agree on the outputs (max abs difference printed).

Usage: .venv/bin/python bench/onednn_conv.py [build-dir] [rounds]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
HHLO = os.path.join(BUILD, "tools", "hhlo", "hhlo")
CALLS = 200

rng = np.random.default_rng(0)
f32 = lambda *s: (rng.standard_normal(s) * 0.1).astype(np.float32)
W = dict(c1=f32(3, 3, 1, 32), b1=f32(32), c2=f32(3, 3, 32, 64), b2=f32(64), d=f32(7 * 7 * 64, 10))


def cnn(x):
    dn = ("NHWC", "HWIO", "NHWC")
    pool = lambda h: lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    h = pool(jax.nn.relu(lax.conv_general_dilated(x, W["c1"], (1, 1), "SAME", dimension_numbers=dn) + W["b1"]))
    h = pool(jax.nn.relu(lax.conv_general_dilated(h, W["c2"], (1, 1), "SAME", dimension_numbers=dn) + W["b2"]))
    return h.reshape(h.shape[0], -1) @ W["d"]


def hhlo_p50(path, x_path, cache, flags):
    r = subprocess.run([HHLO, "bench", path, "-i", x_path, "-n", str(CALLS), "--warmup", "20", "--json",
                        *flags], capture_output=True, text=True,
                       env={**os.environ, "HHLO_COMPILE_CACHE": cache})
    if r.returncode != 0:
        raise SystemExit(f"hhlo bench {path} {flags} failed:\n{r.stdout}{r.stderr}")
    return json.loads(r.stdout[r.stdout.find("{\n"):])["latency_us"]["p50"]


def hhlo_output(path, x_path, folder, cache, flags):
    out = os.path.join(folder, "out" + "".join(flags).replace("-", "_"))
    subprocess.run([HHLO, "run", path, "-i", x_path, "-o", out, *flags], check=True, capture_output=True,
                   env={**os.environ, "HHLO_COMPILE_CACHE": cache})
    return np.load(os.path.join(out, "result.npy" if os.path.exists(os.path.join(out, "result.npy")) else "out0.npy"))


def jax_p50(f, x):
    f(x).block_until_ready()
    for _ in range(20):
        f(x).block_until_ready()
    ts = []
    for _ in range(CALLS):
        t = time.perf_counter()
        f(x).block_until_ready()
        ts.append(time.perf_counter() - t)
    return float(np.median(ts)) * 1e6


def main():
    print(f"load before: {os.getloadavg()[0]:.2f}")
    f = jax.jit(cnn)
    with tempfile.TemporaryDirectory() as folder:
        cache = os.path.join(folder, "cache")
        cases = []
        for b in (1, 64):
            x = f32(b, 28, 28, 1)
            path, x_path = os.path.join(folder, f"cnn{b}.mlir"), os.path.join(folder, f"x{b}.npy")
            with open(path, "w") as fh:
                fh.write(f.lower(x).as_text())
            np.save(x_path, x)
            ref = np.asarray(f(x))
            xla_out = hhlo_output(path, x_path, folder, cache, [])
            dnn_out = hhlo_output(path, x_path, folder, cache, ["--onednn-convolution"])
            print(f"batch {b}: max |xla - jax| {np.abs(xla_out - ref).max():.2e}, "
                  f"max |onednn - jax| {np.abs(dnn_out - ref).max():.2e}")
            cases.append((b, path, x_path, x))
        t = {(b, k): [] for b, *_ in cases for k in ("xla", "onednn", "jax")}
        for _ in range(ROUNDS):
            for b, path, x_path, x in cases:
                t[(b, "xla")].append(hhlo_p50(path, x_path, cache, []))
                t[(b, "onednn")].append(hhlo_p50(path, x_path, cache, ["--onednn-convolution"]))
                t[(b, "jax")].append(jax_p50(f, x))
        print(f"{'batch':>5} {'XLA conv us':>12} {'oneDNN us':>10} {'JAX us':>8} {'oneDNN/XLA':>10} {'oneDNN/JAX':>10}")
        for b, *_ in cases:
            xla, dnn, jx = (statistics.median(t[(b, k)]) for k in ("xla", "onednn", "jax"))
            print(f"{b:>5} {xla:>12.1f} {dnn:>10.1f} {jx:>8.1f} {dnn / xla:>10.2f} {dnn / jx:>10.2f}")
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
