"""Where the synchronous CPU client stops paying (issue 26 item 1): the crossover in work per call.

Times one program family at growing work per call under `hhlo bench --execution async` (XLA's
thread pool runs each execution) and `--execution sync` (the calling thread runs it), alternating
the two modes over ROUNDS rounds, and prints per size the median p50 latency of each mode and
their ratio. The family is the MLP 64-256-256-10 forward pass of docs/benchmarks.md at batch
1 .. 1024 (jax.jit(...).lower(...).as_text(), weights as arguments, so the work grows with the
batch only), plus a dot of n x n matrices for n 16 .. 512.

Usage: .venv/bin/python bench/execution_mode.py [build-dir] [rounds]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

import jax
import jax.numpy as jnp
import numpy as np

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
HHLO = os.path.join(BUILD, "tools", "hhlo", "hhlo")


def mlp(w1, w2, w3, x):
    h = jax.nn.relu(x @ w1)
    h = jax.nn.relu(h @ w2)
    return h @ w3


def write_case(folder, name, fn, args):
    """Lowers fn at args to folder/name.mlir and writes its inputs as folder/name.npz."""
    text = jax.jit(fn).lower(*args).as_text()
    path = os.path.join(folder, name)
    with open(path + ".mlir", "w") as f:
        f.write(text)
    np.savez(path + ".npz", **{f"arg{i}": np.asarray(a) for i, a in enumerate(args)})
    return path


def cases(folder):
    """(label, work in multiply-adds per call, path) of every program timed."""
    rng = np.random.default_rng(0)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32) * 0.1
    out = []
    w = (f32(64, 256), f32(256, 256), f32(256, 10))
    for b in (1, 4, 16, 64, 256, 1024):
        macs = b * (64 * 256 + 256 * 256 + 256 * 10)
        out.append((f"mlp batch {b}", macs, write_case(folder, f"mlp{b}", mlp, (*w, f32(b, 64)))))
    for n in (16, 64, 128, 256, 512):
        out.append((f"dot {n}x{n}", n ** 3, write_case(folder, f"dot{n}", jnp.matmul, (f32(n, n), f32(n, n)))))
    return out


def p50(path, mode, cache):
    """The median latency (us) of `hhlo bench` over 300 calls in `mode`."""
    r = subprocess.run([HHLO, "bench", path + ".mlir", "-i", path + ".npz", "-n", "300", "--warmup",
                        "20", "--execution", mode, "--json"], capture_output=True, text=True,
                       env={**os.environ, "HHLO_COMPILE_CACHE": cache})
    if r.returncode != 0:
        raise SystemExit(f"hhlo bench {path} --execution {mode} failed:\n{r.stdout}{r.stderr}")
    return json.loads(r.stdout[r.stdout.find("{\n"):])["latency_us"]["p50"]


def main():
    print(f"load before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as folder:
        cache = os.path.join(folder, "cache")
        all_cases = cases(folder)
        times = {(label, m): [] for label, _, _ in all_cases for m in ("async", "sync")}
        for _ in range(ROUNDS):
            for label, _, path in all_cases:
                for mode in ("async", "sync"):
                    times[(label, mode)].append(p50(path, mode, cache))
        print(f"{'program':<16} {'MACs/call':>12} {'async p50 us':>13} {'sync p50 us':>12} {'sync/async':>10}")
        for label, macs, _ in all_cases:
            a = statistics.median(times[(label, "async")])
            s = statistics.median(times[(label, "sync")])
            print(f"{label:<16} {macs:>12} {a:>13.1f} {s:>12.1f} {s / a:>10.2f}")
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
