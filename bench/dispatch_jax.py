"""Per-call dispatch latency of jax.jit(a + b) on 2x2 f32 device arrays (CPU), the JAX peer of
bench/dispatch_bench.cc. Each call waits for its result (block_until_ready), as our execute does.

Prints one JSON object: {"name": "jax_jit_dispatch", "median_us": ..., "min_us": ..., ...}.
Usage: dispatch_jax.py [--reps N] [--calls N]
"""
import argparse
import json
import os
import statistics
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=15, help="timed repetitions")
    p.add_argument("--calls", type=int, default=3000, help="calls per repetition")
    args = p.parse_args()

    f = jax.jit(lambda a, b: a + b)
    a = jax.device_put(jnp.array([[1, 2], [3, 4]], dtype=jnp.float32))
    b = jax.device_put(jnp.array([[10, 20], [30, 40]], dtype=jnp.float32))
    out = f(a, b).block_until_ready()
    assert float(out[1, 1]) == 44.0, out
    for _ in range(2000):  # warm-up
        f(a, b).block_until_ready()

    per_call_us = []
    for _ in range(args.reps):
        t0 = time.perf_counter()
        for _ in range(args.calls):
            f(a, b).block_until_ready()
        per_call_us.append((time.perf_counter() - t0) / args.calls * 1e6)
    print(json.dumps({
        "name": "jax_jit_dispatch",
        "jax_version": jax.__version__,
        "reps": args.reps,
        "calls_per_rep": args.calls,
        "median_us": statistics.median(per_call_us),
        "min_us": min(per_call_us),
    }))


if __name__ == "__main__":
    main()
