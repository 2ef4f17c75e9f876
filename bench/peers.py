"""The peers benchmark of issue 26 item 5: four JAX models at batch 1 and 64 run by us (`hhlo
bench`, defaults and tuned), JAX (`jax.jit`), ONNX Runtime (via jax2onnx) and IREE (llvm-cpu,
local-task), plus the cold start (process start to first result). bench/peers.sh orchestrates
(venv, rounds, the order of the runs); this file holds the models and the timing of each runner.

Models (f32, weights fixed by a seed and embedded as constants in every artifact):
  mlp          64-256-256-10, ReLU;                                     x [B, 64]
  cnn          conv3x3x16 SAME + ReLU + maxpool 2, conv3x3x32 SAME + ReLU + maxpool 2,
               dense 1568-128 ReLU, dense 128-10 (NHWC);                x [B, 28, 28, 1]
  transformer  4 pre-LN encoder blocks, d_model 256, 4 heads, seq 128, ffn 1024 (tanh GELU);
                                                                        x [B, 128, 256]
  lstm         2 layers, hidden 128, 64 steps (lax.scan), 32 features in;  x [B, 64, 32]

Methodology, the same for every runner: inputs ready before timing (on the device where the
runner has one), WARMUP untimed calls, then CALLS single calls each timed from call to result
ready (JAX: block_until_ready; ours: execute + await in `hhlo bench`; ORT: InferenceSession.run;
IREE: the synchronous invocation of the module's function), median reported in microseconds.
Each runner's output is checked against JAX's first (max |y - y_jax| / (1 + |y_jax|) <= 1e-3;
ours: `hhlo run -o` under the same compile cache, so a tuned choice is checked too); a runner
that differs, or cannot take the model, is reported with its reason instead of a time.

Usage (the venv of bench/peers.sh, .venv-peers):
  peers.py prepare DIR                 export every config: DIR/CONFIG.{mlir,jax,onnx,vmfb},
           [--configs C,..] [--peers P,..] CONFIG_x.npy, CONFIG_y.npy (JAX's output), configs.json
  peers.py time RUNNER DIR CONFIG      one JSON line: the median of CALLS timed calls
           [--calls N] [--warmup W] [--hhlo PATH]
           RUNNER: ours (hhlo bench; HHLO_COMPILE_CACHE picks defaults or tuned), jax, ort, iree,
           baseline (hhlo bench of another build, --hhlo: a before/after comparison)
  peers.py cold RUNNER DIR CONFIG      one JSON line: wall time of a fresh process from start to
           [--hhlo PATH]               its first result (ours: hhlo run; iree: iree-run-module;
                                       ort: python + onnxruntime; jax: jax.export + its cache)
  peers.py table RESULTS.jsonl         the table of medians and ratios
  peers.py versions                    the peers' versions, one JSON line
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

import numpy as np

BATCHES = (1, 64)
MODELS = ("mlp", "cnn", "transformer", "lstm")
# Timed calls per config, the same for every runner: about 0.2-3 s of work per runner and round
# on 2 cores, so that a round's median spans more than a passing stretch of the host's noise
# (until 2026-12-07 the small configs timed 0.01-0.2 s: 500, 500, 300, 40, 40, 4, 100, 20);
# warm-up calls before them.
CALLS = {"mlp": (20000, 5000), "cnn": (3000, 300), "transformer": (200, 4), "lstm": (1000, 40)}
WARMUP = {"mlp": (20, 20), "cnn": (10, 3), "transformer": (3, 1), "lstm": (5, 2)}
RUNNERS = ("ours", "ours_tuned", "jax", "ort", "iree")
BASELINE = "baseline"  # another build of hhlo (bench/peers.sh's HHLO_PEERS_BASELINE)
COLD = ("ours", "jax", "ort", "iree")
TOL = 1e-3  # relative agreement with JAX's output (f32; XLA, oneDNN, MLAS and IREE differ)


# ---------------------------------------------------------------- models


def _w(rng, *shape):
    return (rng.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32)


def make_mlp(rng):
    import jax.numpy as jnp
    ws = [(_w(rng, a, b), np.zeros(b, np.float32)) for a, b in ((64, 256), (256, 256), (256, 10))]

    def mlp(x):
        for i, (w, b) in enumerate(ws):
            x = x @ w + b
            if i < len(ws) - 1:
                x = jnp.maximum(x, 0.0)
        return x
    return mlp, lambda b: (b, 64)


def make_cnn(rng):
    import jax.numpy as jnp
    from jax import lax
    from flax.linen import max_pool
    k1, k2 = _w(rng, 3, 3, 1, 16), _w(rng, 3, 3, 16, 32)
    d1, d2 = _w(rng, 7 * 7 * 32, 128), _w(rng, 128, 10)

    def block(x, k):
        x = lax.conv_general_dilated(x, k, (1, 1), "SAME",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
        x = jnp.maximum(x, 0.0)
        # flax's max_pool is lax.reduce_window (the same StableHLO); jax2onnx converts it to a
        # 2-d MaxPool, where a plain lax.reduce_window becomes a 4-d one ORT refuses.
        return max_pool(x, (2, 2), strides=(2, 2), padding="VALID")

    def cnn(x):
        x = block(block(x, k1), k2)
        x = jnp.maximum(x.reshape(x.shape[0], -1) @ d1, 0.0)
        return x @ d2
    return cnn, lambda b: (b, 28, 28, 1)


def make_transformer(rng):
    import jax
    import jax.numpy as jnp
    d, f, h, layers, s = 256, 1024, 4, 4, 128
    blocks = [dict(q=_w(rng, d, d), k=_w(rng, d, d), v=_w(rng, d, d), o=_w(rng, d, d),
                   f1=_w(rng, d, f), f2=_w(rng, f, d)) for _ in range(layers)]

    def norm(x):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / jnp.sqrt(v + 1e-5)

    def block(x, p):
        b = x.shape[0]
        n = norm(x)
        q, k, v = (jnp.einsum("bsd,de->bse", n, p[c]).reshape(b, s, h, d // h) for c in "qkv")
        a = jax.nn.softmax(jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(d // h), axis=-1)
        x = x + jnp.einsum("bhqk,bkhd->bqhd", a, v).reshape(b, s, d) @ p["o"]
        return x + jax.nn.gelu(norm(x) @ p["f1"]) @ p["f2"]

    def transformer(x):
        for p in blocks:
            x = block(x, p)
        return x
    return transformer, lambda b: (b, s, d)


def make_lstm(rng):
    import jax
    import jax.numpy as jnp
    from jax import lax
    hid, feat, steps = 128, 32, 64
    layers = [(_w(rng, n, 4 * hid), _w(rng, hid, 4 * hid), np.zeros(4 * hid, np.float32))
              for n in (feat, hid)]

    def layer(xs, p):
        wx, wh, b = p

        def step(carry, x):
            h, c = carry
            i, f, g, o = jnp.split(x @ wx + h @ wh + b, 4, axis=-1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            return (h, c), h
        zero = jnp.zeros((xs.shape[1], hid), xs.dtype)
        _, hs = lax.scan(step, (zero, zero), xs)
        return hs

    def lstm(x):
        xs = jnp.swapaxes(x, 0, 1)  # [steps, B, features]
        for p in layers:
            xs = layer(xs, p)
        return xs[-1]
    return lstm, lambda b: (b, steps, feat)


def model(name):
    """(function, batch -> input shape); the weights are the same in every process."""
    seed = MODELS.index(name) + 26
    return globals()["make_" + name](np.random.default_rng(seed))


def configs():
    return [f"{m}_b{b}" for m in MODELS for b in BATCHES]


def split(config):
    name, b = config.rsplit("_b", 1)
    return name, int(b)


def calls_of(config, scale=1.0):
    name, b = split(config)
    i = BATCHES.index(b)
    return max(3, round(CALLS[name][i] * scale)), WARMUP[name][i]


# ---------------------------------------------------------------- prepare


def export_onnx(fn, shape, path):
    from jax2onnx import to_onnx
    import jax
    import jax.numpy as jnp
    to_onnx(fn, [jax.ShapeDtypeStruct(shape, jnp.float32)], return_mode="file",
            output_path=str(path))


def compile_iree(mlir, vmfb):
    exe = pathlib.Path(sys.executable).parent / "iree-compile"
    cmd = [str(exe), str(mlir), "--iree-input-type=stablehlo",
           "--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
           "--iree-llvmcpu-target-cpu=host", "-o", str(vmfb)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip().splitlines()[0] if r.stderr.strip() else "failed")


def first_line(e):
    text = f"{type(e).__name__}: {e}".strip().splitlines()
    return text[0][:200] if text else type(e).__name__


def prepare_one(out, config, peers=("onnx", "vmfb")):
    """Writes a config's artifacts (the peers' of `peers` only); an artifact a peer cannot make
    gets CONFIG.EXT.err."""
    import jax
    import jax.numpy as jnp
    from jax import export
    name, b = split(config)
    fn, shape_of = model(name)
    shape = shape_of(b)
    x = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    np.save(out / f"{config}_x.npy", x)
    np.save(out / f"{config}_y.npy", np.asarray(jax.jit(fn)(x)))
    exp = export.export(jax.jit(fn))(jax.ShapeDtypeStruct(shape, jnp.float32))
    (out / f"{config}.mlir").write_text(exp.mlir_module())
    (out / f"{config}.jax").write_bytes(exp.serialize())
    for ext, make in (("onnx", lambda p: export_onnx(fn, shape, p)),
                      ("vmfb", lambda p: compile_iree(out / f"{config}.mlir", p))):
        if ext not in peers:
            continue
        path = out / f"{config}.{ext}"
        t0 = time.perf_counter()
        try:
            make(path)
            status = f"ok ({time.perf_counter() - t0:.1f} s)"
        except Exception as e:  # a peer that cannot take the model: its reason is the result
            (out / f"{config}.{ext}.err").write_text(first_line(e))
            status = "failed: " + first_line(e)
        print(f"  {config}.{ext}: {status}", file=sys.stderr)


def prepare(args):
    out = pathlib.Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    chosen = args.configs.split(",") if args.configs else configs()
    for config in chosen:
        print(f"== prepare {config}", file=sys.stderr)
        prepare_one(out, config, args.peers.split(",") if args.peers else ())
    (out / "configs.json").write_text(json.dumps(chosen))


# ---------------------------------------------------------------- timing


def timed_calls(call, calls, warmup):
    """Median and minimum in microseconds of `calls` single calls after `warmup` untimed ones."""
    for _ in range(warmup):
        call()
    ts = []
    for _ in range(calls):
        t0 = time.perf_counter()
        call()
        ts.append((time.perf_counter() - t0) * 1e6)
    return {"median_us": statistics.median(ts), "min_us": min(ts), "calls": calls}


def rel_err(y, ref):
    y = np.asarray(y, np.float32).reshape(ref.shape)
    return float(np.max(np.abs(y - ref) / (1.0 + np.abs(ref))))


def time_jax(d, config, calls, warmup):
    import jax
    name, b = split(config)
    fn = jax.jit(model(name)[0])
    x = jax.device_put(np.load(d / f"{config}_x.npy"))
    err = rel_err(fn(x), np.load(d / f"{config}_y.npy"))
    return dict(timed_calls(lambda: fn(x).block_until_ready(), calls, warmup), err=err)


def time_ort(d, config, calls, warmup):
    import onnxruntime as ort
    sess = ort.InferenceSession(str(d / f"{config}.onnx"), providers=["CPUExecutionProvider"])
    feed = {sess.get_inputs()[0].name: np.load(d / f"{config}_x.npy")}
    err = rel_err(sess.run(None, feed)[0], np.load(d / f"{config}_y.npy"))
    return dict(timed_calls(lambda: sess.run(None, feed), calls, warmup), err=err)


def iree_function(d, config):
    import iree.runtime as rt
    module = rt.load_vm_flatbuffer_file(str(d / f"{config}.vmfb"), driver="local-task")
    return module.main, rt


def time_iree(d, config, calls, warmup):
    main, rt = iree_function(d, config)
    x = np.load(d / f"{config}_x.npy")
    xd = rt.asdevicearray(main._device, x) if hasattr(main, "_device") else x
    err = rel_err(main(xd).to_host(), np.load(d / f"{config}_y.npy"))
    # The default (async-internal) calling convention returns once the results are ready.
    return dict(timed_calls(lambda: main(xd), calls, warmup), err=err)


def run_hhlo(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"hhlo {cmd[1]} exited {r.returncode}: {r.stderr.strip()[-300:]}")
    return r.stdout


def ours_err(d, config, hhlo):
    """`hhlo run`'s output (under the same cache, so the tuned choice when there is one) against
    JAX's."""
    out = pathlib.Path(tempfile.mkdtemp(dir=d, prefix=f"out-{config}-"))
    run_hhlo([hhlo, "run", str(d / f"{config}.mlir"), "-i", str(d / f"{config}_x.npy"),
              "-o", str(out)])
    (y,) = out.glob("*.npy")
    return rel_err(np.load(y), np.load(d / f"{config}_y.npy"))


def time_ours(d, config, calls, warmup, hhlo):
    err = ours_err(d, config, hhlo)
    j = json.loads(run_hhlo([hhlo, "bench", str(d / f"{config}.mlir"), "-i",
                             str(d / f"{config}_x.npy"), "-n", str(calls), "--warmup",
                             str(warmup), "--json"]))
    lat = j["latency_us"]
    res = {"median_us": lat["p50"], "min_us": lat["min"], "calls": calls, "err": err,
           "load_cold_ms": j.get("compile_cold_ms"), "load_cached_ms": j.get("compile_cached_ms")}
    if j.get("tuned"):
        res["tuned"] = j["tuned"]
    return res


def missing(d, config, ext):
    """The reason a peer has no artifact for this config, or None."""
    err = d / f"{config}.{ext}.err"
    return err.read_text().strip() if err.exists() else None


def time_cmd(args):
    d = pathlib.Path(args.dir)
    calls, warmup = calls_of(args.config, args.scale)
    calls, warmup = args.calls or calls, args.warmup if args.warmup is not None else warmup
    runner = "ours" if args.runner.startswith("ours") or args.runner == BASELINE else args.runner
    res = {"runner": args.runner, "config": args.config, "round": args.round}
    need = {"ort": "onnx", "iree": "vmfb"}.get(runner)
    reason = missing(d, args.config, need) if need else None
    try:
        if reason:
            raise RuntimeError(reason)
        if runner == "ours":
            res.update(time_ours(d, args.config, calls, warmup, args.hhlo))
        else:
            res.update(globals()["time_" + runner](d, args.config, calls, warmup))
    except Exception as e:
        res["error"] = first_line(e)
    if "err" in res and res["err"] > TOL:
        res["error"] = f"output differs from JAX's (max rel err {res['err']:.2g})"
    res["load"] = os.getloadavg()[0]
    print(json.dumps(res), flush=True)


# ---------------------------------------------------------------- cold start

ORT_FIRST = r'''
import sys, numpy as np, onnxruntime as ort
s = ort.InferenceSession(sys.argv[1], providers=["CPUExecutionProvider"])
s.run(None, {s.get_inputs()[0].name: np.load(sys.argv[2])})
'''

JAX_FIRST = r'''
import sys, numpy as np, jax
jax.config.update("jax_compilation_cache_dir", sys.argv[3])
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
from jax import export
y = export.deserialize(bytearray(open(sys.argv[1], "rb").read())).call(np.load(sys.argv[2]))
np.asarray(y)
'''


def cold_command(runner, d, config, hhlo):
    x = str(d / f"{config}_x.npy")
    bin_dir = pathlib.Path(sys.executable).parent
    if runner in ("ours", BASELINE):
        return [hhlo, "run", str(d / f"{config}.mlir"), "-i", x]
    if runner == "iree":
        return [str(bin_dir / "iree-run-module"), f"--module={d / f'{config}.vmfb'}",
                "--device=local-task", "--function=main", f"--input=@{x}"]
    if runner == "ort":
        return [sys.executable, "-c", ORT_FIRST, str(d / f"{config}.onnx"), x]
    if runner == "jax":
        return [sys.executable, "-c", JAX_FIRST, str(d / f"{config}.jax"), x,
                str(d / "jax-cache")]
    raise ValueError(runner)


def cold_cmd(args):
    """Wall time of one fresh process, start to exit after its first result. The caches
    (ours: HHLO_COMPILE_CACHE; JAX: its persistent cache) are filled by the untimed first run
    that bench/peers.sh makes."""
    d = pathlib.Path(args.dir)
    res = {"runner": "cold_" + args.runner, "config": args.config, "round": args.round}
    reason = missing(d, args.config, {"ort": "onnx", "iree": "vmfb"}.get(args.runner, "-"))
    if reason:
        res["error"] = reason
    else:
        cmd = cold_command(args.runner, d, args.config, args.hhlo)
        t0 = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        res["median_us"] = (time.perf_counter() - t0) * 1e6
        if r.returncode != 0:
            res["error"] = f"exit {r.returncode}: " + (r.stderr.strip()[-200:] or "-")
    res["load"] = os.getloadavg()[0]
    print(json.dumps(res), flush=True)


# ---------------------------------------------------------------- table


def fmt_time(us):
    if us is None:
        return "-"
    if us >= 1e6:
        return f"{us / 1e6:.2f} s"
    if us >= 1e3:
        return f"{us / 1e3:.{0 if us >= 1e5 else 1 if us >= 1e4 else 2}f} ms"
    return f"{us:.1f} us"


def collect(path):
    """{(runner, config): [each round's median]}, {(runner, config): error}, {config: tuned}.
    A round with several results for one runner and config (the cold starts) counts their
    median. The loads `hhlo bench` timed (load_cold_ms, load_cached_ms) count as runners
    "RUNNER:load_cold" and "RUNNER:load_cached", in microseconds."""
    rounds, errs, tuned = {}, {}, {}
    for line in open(path):
        r = json.loads(line)
        key = (r["runner"], r["config"])
        if "error" in r:
            errs[key] = r["error"]
        else:
            rounds.setdefault(key, {}).setdefault(r["round"], []).append(r["median_us"])
            for k in ("load_cold", "load_cached"):
                if r.get(k + "_ms") is not None:
                    rounds.setdefault((f"{r['runner']}:{k}", r["config"]), {}).setdefault(
                        r["round"], []).append(r[k + "_ms"] * 1e3)
        if r.get("tuned"):
            tuned[r["config"]] = r["tuned"]
    vals = {k: [statistics.median(v[n]) for n in sorted(v)] for k, v in rounds.items()}
    return vals, errs, tuned


def cell(vals, errs, key):
    if key in vals:
        return statistics.median(vals[key])
    return None


def ratio(a, b):
    return f"{a / b:.2f}x" if a and b else "-"


def table(args):
    vals, errs, tuned = collect(args.results)
    configs_seen = [c for c in configs() if any((r, c) in vals or (r, c) in errs
                                                 for r in RUNNERS)]
    head = ["config", "ours", "ours tuned", "JAX", "ORT", "IREE", "ours/JAX", "tuned/JAX",
            "ours/ORT", "ours/IREE", "ours/best peer", "tuned/best peer"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    notes = []
    for c in configs_seen:
        m = {r: cell(vals, errs, (r, c)) for r in RUNNERS}
        peers = {r: m[r] for r in ("jax", "ort", "iree") if m[r]}
        best = min(peers.values()) if peers else None
        shown = []
        for r in RUNNERS:
            if m[r] is None and (r, c) in errs:
                notes.append(f"{c}, {r}: {errs[(r, c)]}")
                shown.append(f"n/a ({len(notes)})")
            else:
                shown.append(fmt_time(m[r]))
        row = [c] + shown + [ratio(m["ours"], m["jax"]), ratio(m["ours_tuned"], m["jax"]),
                             ratio(m["ours"], m["ort"]), ratio(m["ours"], m["iree"]),
                             ratio(m["ours"], best), ratio(m["ours_tuned"], best)]
        print("| " + " | ".join(row) + " |")
    cold = [c for c in configs() if any((f"cold_{r}", c) in vals or (f"cold_{r}", c) in errs
                                        for r in COLD)]
    if cold:
        print()
        head = ["cold start", "ours (hhlo run)", "JAX", "ORT", "IREE", "ours/JAX", "ours/ORT",
                "ours/IREE"]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for c in cold:
            m = {r: cell(vals, errs, (f"cold_{r}", c)) for r in COLD}
            shown = []
            for r in COLD:
                if m[r] is None and (f"cold_{r}", c) in errs:
                    notes.append(f"{c}, cold {r}: {errs[(f'cold_{r}', c)]}")
                    shown.append(f"n/a ({len(notes)})")
                else:
                    shown.append(fmt_time(m[r]))
            print("| " + " | ".join([c] + shown + [ratio(m["ours"], m["jax"]),
                                                   ratio(m["ours"], m["ort"]),
                                                   ratio(m["ours"], m["iree"])]) + " |")
    if notes:
        print()
    for i, n in enumerate(notes, 1):
        print(f"({i}) {n}")
    before_after(vals, errs)
    print("\nTuned choices (`hhlo tune`, remembered, followed by `hhlo bench`):")
    for c in configs_seen:
        print(f"  {c}: {tuned.get(c, 'the defaults (no choice remembered)')}")
    print("\nPer round (each round's median, in round order):")
    for c in configs():
        runs = [r for r in RUNNERS + (BASELINE,) + tuple("cold_" + r for r in COLD + (BASELINE,))
                if (r, c) in vals]
        if runs:
            print(f"  {c}: " + "; ".join(f"{r} " + " / ".join(fmt_time(x) for x in vals[(r, c)])
                                         for r in runs))
    goals(vals)


def before_after(vals, errs):
    """ours against the baseline build, when there is one: the timed call, `hhlo bench`'s load
    (cold: read + prepare + compile; cached: from the compile cache) and the cold start."""
    rows = [c for c in configs() if (BASELINE, c) in vals or (BASELINE, c) in errs]
    if not rows:
        return
    print("\nBefore/after: ours against the baseline build (HHLO_PEERS_BASELINE), ratio ours/"
          "baseline; medians over the rounds")
    kinds = (("call", ""), ("load, cold", ":load_cold"), ("load, cached", ":load_cached"))
    head = ["config"] + [f"{k} {w}" for k, _ in kinds for w in ("ours", "baseline", "ratio")]
    head += ["cold start ours", "baseline", "ratio"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for c in rows:
        row = [c]
        for ours_key, base_key in [("ours" + s, BASELINE + s) for _, s in kinds] + [
                ("cold_ours", "cold_" + BASELINE)]:
            o, b = cell(vals, errs, (ours_key, c)), cell(vals, errs, (base_key, c))
            row += [fmt_time(o), fmt_time(b), ratio(o, b)]
        print("| " + " | ".join(row) + " |")
    for c in rows:
        if (BASELINE, c) in errs:
            print(f"  {c}, baseline: {errs[(BASELINE, c)]}")


def verdict(ok):
    return "met" if ok else "NOT met"


def goals(vals):
    """The issue's goals, judged on the medians."""
    med = {k: statistics.median(v) for k, v in vals.items()}
    print("\nGoals (issue 26):")
    for c in configs():
        t, j = med.get(("ours_tuned", c)), med.get(("jax", c))
        if t and j:
            print(f"  {c}: tuned/JAX {t / j:.2f}x (goal <= 0.9x): {verdict(t / j <= 0.9)}")
    for c in [c for c in configs() if c.startswith(("mlp", "lstm"))]:
        peers = [med[(r, c)] for r in ("jax", "ort", "iree") if (r, c) in med]
        t = med.get(("ours_tuned", c))
        if t and peers:
            q = t / min(peers)
            print(f"  {c}: tuned/best peer {q:.2f}x (goal <= 1.0x): {verdict(q <= 1.0)}")
    r = med.get(("ort", "cnn_b64"))
    for k in ("ours", "ours_tuned"):
        o = med.get((k, "cnn_b64"))
        if o and r:
            print(f"  cnn_b64: {k}/ORT {o / r:.2f}x (goal <= 2.95x, half of the issue's 5.9x): "
                  f"{verdict(o / r <= 2.95)}")


# ---------------------------------------------------------------- versions


def versions(_args):
    from importlib.metadata import version
    names = ("jax", "jaxlib", "jax2onnx", "onnx", "onnxruntime", "iree-base-compiler",
             "iree-base-runtime", "numpy")
    print(json.dumps({n: version(n) for n in names}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("dir")
    p.add_argument("--configs", help="comma-separated, e.g. mlp_b1,cnn_b64 (default: all)")
    p.add_argument("--peers", default="onnx,vmfb",
                   help="the peers' artifacts to make: onnx (ORT), vmfb (IREE); '' for none")
    p.set_defaults(func=prepare)
    for name, func in (("time", time_cmd), ("cold", cold_cmd)):
        p = sub.add_parser(name)
        p.add_argument("runner", choices=(RUNNERS if name == "time" else COLD) + (BASELINE,))
        p.add_argument("dir")
        p.add_argument("config")
        p.add_argument("--hhlo", default="build/tools/hhlo/hhlo")
        p.add_argument("--round", type=int, default=1)
        p.add_argument("--calls", type=int)
        p.add_argument("--warmup", type=int)
        p.add_argument("--scale", type=float, default=float(os.environ.get("HHLO_PEERS_SCALE", 1)))
        p.set_defaults(func=func)
    p = sub.add_parser("table")
    p.add_argument("results")
    p.set_defaults(func=table)
    sub.add_parser("versions").set_defaults(func=versions)
    a = ap.parse_args()
    a.func(a)


if __name__ == "__main__":
    main()
