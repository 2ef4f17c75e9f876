"""Warm start, process start to result: `hhlo run` of a 4-block transformer encoder (d_model 256,
seq 128, 4 heads, ffn 1024, batch 1) exported by JAX with its weights inside the program (JAX
writes them as hex constants: a 25 MB text), from a filled compile cache, against JAX itself
(`jax.export.deserialize(blob).call(x)` in a fresh Python process, its persistent compilation
cache filled).

Measured in interleaved rounds, medians over the rounds, wall time of each whole process:
  - hhlo_text_hit / hhlo_jax_hit: `hhlo run transformer.{mlir,jax} -i x.npy` when the cache has
    the record of the program's bytes (hhlo/program/program_cache.h): the program is not read;
  - hhlo_text_parse / hhlo_jax_parse: the same with the records removed before each run: the
    program is read, prepared and printed, and the executable comes from the compile cache (the
    path before the records existed);
  - hhlo_devices: `hhlo devices` (process start, plugin load, client creation: the floor of any
    run);
  - jax_call: JAX deserializing the artifact and calling it, persistent compilation cache on.
Prints one JSON object; the load average before and after is in it.

Usage: .venv/bin/python bench/warm_start.py [BUILD_DIR] [--rounds N]
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
HEADER = 80  # a compile-cache entry: magic, key, payload size, payload sha256 (compile_cache.cc)

MAKE = r'''
import sys, pathlib, numpy as np, jax, jax.numpy as jnp
from jax import export
out = pathlib.Path(sys.argv[1])
rng = np.random.default_rng(26)
D, F, H, L, S = 256, 1024, 4, 4, 128
def w(*s): return (rng.standard_normal(s) / np.sqrt(s[0])).astype(np.float32)
blocks = [dict(q=w(D, D), k=w(D, D), v=w(D, D), o=w(D, D), f1=w(D, F), f2=w(F, D),
               g1=np.ones(D, np.float32), g2=np.ones(D, np.float32)) for _ in range(L)]
def norm(x, g):
    m = x.mean(-1, keepdims=True); v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / jnp.sqrt(v + 1e-5) * g
def block(x, p):
    n = norm(x, p["g1"])
    q, k, v = (jnp.einsum("bsd,de->bse", n, p[c]).reshape(1, S, H, D // H) for c in "qkv")
    a = jax.nn.softmax(jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(D // H), axis=-1)
    x = x + jnp.einsum("bhqk,bkhd->bqhd", a, v).reshape(1, S, D) @ p["o"]
    return x + jax.nn.gelu(norm(x, p["g2"]) @ p["f1"]) @ p["f2"]
def model(x):
    for p in blocks: x = block(x, p)
    return x
exp = export.export(jax.jit(model))(jax.ShapeDtypeStruct((1, S, D), jnp.float32))
(out / "transformer.mlir").write_text(exp.mlir_module())
(out / "transformer.jax").write_bytes(exp.serialize())
np.save(out / "x.npy", rng.standard_normal((1, S, D)).astype(np.float32))
'''

JAX_CALL = r'''
import sys, numpy as np, jax
jax.config.update("jax_compilation_cache_dir", sys.argv[2])
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
from jax import export
y = export.deserialize(bytearray(open(sys.argv[1], "rb").read())).call(np.load(sys.argv[3]))
np.asarray(y)
'''


def timed(cmd, env):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    ms = (time.perf_counter() - t0) * 1e3
    if r.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed: {r.stderr.decode()}")
    return ms


def drop_records(cache):
    """Removes the records of the compile cache (JSON payloads), keeping the executables."""
    for e in pathlib.Path(cache).glob("*.hxc"):
        with open(e, "rb") as f:
            if f.read(HEADER + 1)[HEADER:] == b"{":
                e.unlink()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default=str(ROOT / "build"))
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    hhlo = pathlib.Path(a.build).resolve() / "tools/hhlo/hhlo"
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="hhlo-warm-start-"))
    subprocess.run([sys.executable, "-c", MAKE, str(tmp)], check=True)
    cache, jax_cache = tmp / "cache", tmp / "jax-cache"
    env = dict(os.environ, HHLO_COMPILE_CACHE=str(cache))
    x = str(tmp / "x.npy")
    runs = {
        "hhlo_text_hit": [hhlo, "run", tmp / "transformer.mlir", "-i", x],
        "hhlo_jax_hit": [hhlo, "run", tmp / "transformer.jax", "-i", x],
        "hhlo_text_parse": [hhlo, "run", tmp / "transformer.mlir", "-i", x],
        "hhlo_jax_parse": [hhlo, "run", tmp / "transformer.jax", "-i", x],
        "hhlo_devices": [hhlo, "devices"],
        "jax_call": [sys.executable, "-c", JAX_CALL, tmp / "transformer.jax", jax_cache, x],
    }
    load_before = os.getloadavg()
    cold = {k: timed(runs[k], env) for k in ("hhlo_text_hit", "hhlo_jax_hit", "jax_call")}
    times = {k: [] for k in runs}
    for _ in range(a.rounds):
        for name, cmd in runs.items():
            if name.endswith("_parse"):
                drop_records(cache)
            times[name].append(timed(cmd, env))
    result = {
        "program_bytes": {"text": (tmp / "transformer.mlir").stat().st_size,
                          "artifact": (tmp / "transformer.jax").stat().st_size},
        "cold_ms": cold,
        "median_ms": {k: statistics.median(v) for k, v in times.items()},
        "min_ms": {k: min(v) for k, v in times.items()},
        "rounds": a.rounds,
        "loadavg_before": load_before,
        "loadavg_after": os.getloadavg(),
    }
    m = result["median_ms"]
    result["ratios"] = {
        "text_parse_over_hit": m["hhlo_text_parse"] / m["hhlo_text_hit"],
        "jax_parse_over_hit": m["hhlo_jax_parse"] / m["hhlo_jax_hit"],
        "jax_call_over_text_hit": m["jax_call"] / m["hhlo_text_hit"],
    }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
