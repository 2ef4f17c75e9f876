"""solve / cholesky / eigh / svd at 256x256 f32 and f64: `hhlo run --repeat` of the jax.export
of each function (our LAPACK kernels, kernels/lapack/) against jax.jit of the same function on
the same inputs, in the same run, alternating in rounds so both see the same machine load.

  .venv/bin/python bench/linalg_compare.py HHLO_EXECUTABLE [--n 256] [--reps 20] [--rounds 3]

Prints one JSON object: per case the median per-call time of each side (ms) and ours/JAX."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax import export

jax.config.update("jax_enable_x64", True)

FUNCS = {
    "solve": (lambda a, b: jnp.linalg.solve(a, b), "general"),
    "cholesky": (jnp.linalg.cholesky, "spd"),
    "eigh": (lambda a: tuple(jnp.linalg.eigh(a)), "spd"),
    "svd": (lambda a: tuple(jnp.linalg.svd(a)), "general"),
}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("hhlo")
    p.add_argument("--n", type=int, default=256)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()
    rng = np.random.default_rng(0)
    tmp = tempfile.mkdtemp(prefix="hhlo_linalg_bench_")
    results = {}
    for name, (fn, kind) in FUNCS.items():
        for dt in ["float32", "float64"]:
            n = a.n
            m = rng.standard_normal((n, n))
            if kind == "spd":
                m = m @ m.T + n * np.eye(n)
            args = [m.astype(dt)] + ([rng.standard_normal((n, n)).astype(dt)] if name == "solve" else [])
            spec = [jax.ShapeDtypeStruct(x.shape, x.dtype) for x in args]
            case = f"{name}_{dt}_{n}"
            prog = os.path.join(tmp, case + ".mlir")
            with open(prog, "w") as f:
                f.write(export.export(jax.jit(fn), platforms=["cpu"])(*spec).mlir_module())
            cmd = [a.hhlo, "run", prog, "--repeat", str(a.reps)]
            for k, x in enumerate(args):
                path = os.path.join(tmp, f"{case}.in{k}.npy")
                np.save(path, x)
                cmd += ["-i", path]
            jf = jax.jit(fn)
            dev = [jnp.asarray(x) for x in args]
            jax.block_until_ready(jf(*dev))
            ours, theirs = [], []
            for _ in range(a.rounds):
                out = subprocess.run(cmd, capture_output=True, text=True)
                mt = re.search(r"median ([0-9.]+) us", out.stdout)
                if out.returncode != 0 or not mt:
                    sys.exit(f"hhlo run failed for {case}: {out.stdout}{out.stderr}")
                ours.append(float(mt.group(1)) / 1e3)
                ts = []
                for _ in range(a.reps):
                    t0 = time.perf_counter()
                    jax.block_until_ready(jf(*dev))
                    ts.append((time.perf_counter() - t0) * 1e3)
                theirs.append(statistics.median(ts))
            o, t = statistics.median(ours), statistics.median(theirs)
            results[case] = {"ours_ms": round(o, 3), "jax_ms": round(t, 3), "ratio": round(o / t, 3)}
            print(f"{case}: ours {o:.3f} ms, jax.jit {t:.3f} ms, ratio {o / t:.2f}", file=sys.stderr)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
