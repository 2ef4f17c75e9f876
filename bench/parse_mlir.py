"""The peer of bench/parse_bench.cc: MLIR's own C++ parser (`jaxlib.mlir.ir.Module.parse`, which
also verifies the module, as our parser does by default) on the same texts. The context (with
JAX's dialects registered: `jax._src.interpreters.mlir.make_ir_context()`) is created once,
outside the timing; each repetition parses the text into a fresh module and drops it.

Prints one JSON object: {"jax_version", "reps", NAME: {"median_ms", "min_ms", "cpu_median_ms",
"bytes"}} for each DIR/{mlp,transformer,mlp_jax,transformer_jax}.mlir that exists (wall time
from time.perf_counter, CPU time of the process from time.process_time, all threads).
For each DIR/NAME.mlirbc (bytecode of the same text), NAME + "_bytecode" times MLIR's bytecode
reader with the VHLO-to-StableHLO legalization, jaxlib's `stablehlo.deserialize_portable_artifact`
(what our read_bytecode does: bytecode to a StableHLO module).
Usage: parse_mlir.py DIR [--reps N]
"""
import argparse
import json
import os
import statistics
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
from jax._src.interpreters import mlir  # noqa: E402
from jaxlib.mlir import ir  # noqa: E402
from jaxlib.mlir.dialects import stablehlo  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--reps", type=int, default=10)
    a = p.parse_args()
    ctx = mlir.make_ir_context()
    out = {"jax_version": jax.__version__, "reps": a.reps}
    for name in ("mlp", "transformer", "mlp_jax", "transformer_jax"):
        path = os.path.join(a.dir, name + ".mlir")
        if not os.path.exists(path):
            continue
        text = open(path).read()
        ir.Module.parse(text, context=ctx)  # warm-up; raises if MLIR rejects the text
        times, cpu = [], []
        for _ in range(a.reps):
            c0, t0 = time.process_time(), time.perf_counter()
            m = ir.Module.parse(text, context=ctx)
            times.append((time.perf_counter() - t0) * 1e3)
            cpu.append((time.process_time() - c0) * 1e3)
            del m
        out[name] = {"median_ms": statistics.median(times), "min_ms": min(times),
                     "cpu_median_ms": statistics.median(cpu), "bytes": len(text)}
        bc_path = os.path.join(a.dir, name + ".mlirbc")
        if os.path.exists(bc_path):
            data = open(bc_path, "rb").read()
            stablehlo.deserialize_portable_artifact(ctx, data)  # warm-up; raises if unreadable
            times, cpu = [], []
            for _ in range(a.reps):
                c0, t0 = time.process_time(), time.perf_counter()
                m = stablehlo.deserialize_portable_artifact(ctx, data)
                times.append((time.perf_counter() - t0) * 1e3)
                cpu.append((time.process_time() - c0) * 1e3)
                del m
            out[name + "_bytecode"] = {"median_ms": statistics.median(times), "min_ms": min(times),
                                       "cpu_median_ms": statistics.median(cpu),
                                       "bytes": len(data)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
