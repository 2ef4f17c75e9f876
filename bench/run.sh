#!/usr/bin/env bash
# Runs every benchmark of the build (`hhlo_bench_*`, Google Benchmark, JSON into
# BUILD/bench-results/) plus the JAX peers of the dispatch and build-and-print benches, and
# prints the ratios.
# Dispatch latency is measured in rounds that alternate ours/raw (one Google Benchmark run,
# interleaved repetitions) with JAX, so the three see the same machine load; the ratios are the
# medians of the per-round ratios.
# Usage: bench/run.sh [BUILD_DIR]   (default: build; `make bench` passes its build folder)
# Env: HHLO_BENCH_REPS (repetitions per benchmark, default 10), HHLO_BENCH_ROUNDS (dispatch
# rounds, default 5), HHLO_BENCH_ONLY (regex on executable names, e.g. 'dispatch'; 'peers' runs
# bench/peers.sh and 'serve' bench/serve.sh, which only an explicit HHLO_BENCH_ONLY does: they
# install their own venvs).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
[[ "$BUILD" = /* ]] || BUILD="$ROOT/$BUILD"
REPS="${HHLO_BENCH_REPS:-10}"
ROUNDS="${HHLO_BENCH_ROUNDS:-5}"
ONLY="${HHLO_BENCH_ONLY:-.}"
OUT="$BUILD/bench-results"
PY="$ROOT/.venv/bin/python"
[[ -x "$PY" ]] || { echo "bench/run.sh: $PY missing: run scripts/setup.sh first" >&2; exit 1; }
mkdir -p "$OUT"
rm -f "$OUT"/dispatch_round_*.json "$OUT"/hhlo_bench_dispatch.json "$OUT"/build_print_jax.json

shopt -s nullglob
benches=("$BUILD"/bench/hhlo_bench_*)
[[ ${#benches[@]} -gt 0 || "$ONLY" == peers || "$ONLY" == serve ]] || { echo "bench/run.sh: no hhlo_bench_* in $BUILD/bench: build first" >&2; exit 1; }
for exe in "${benches[@]}"; do
  name="$(basename "$exe")"
  [[ -x "$exe" && "$name" =~ $ONLY ]] || continue
  if [[ "$name" == hhlo_bench_dispatch ]]; then
    for ((r = 1; r <= ROUNDS; r++)); do
      echo "== $name round $r/$ROUNDS (ours, raw C API, then jax.jit)" >&2
      "$exe" --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true \
        --benchmark_report_aggregates_only=true --benchmark_format=console \
        --benchmark_out_format=json --benchmark_out="$OUT/dispatch_round_${r}_cpp.json" >&2
      "$PY" "$ROOT/bench/dispatch_jax.py" --reps 3 > "$OUT/dispatch_round_${r}_jax.json"
    done
    continue
  fi
  if [[ "$name" == hhlo_bench_transforms ]]; then
    echo "== vmap_jax.py (JAX's vmap programs of the transforms bench, parsed by the bench)" >&2
    "$PY" "$ROOT/bench/vmap_jax.py" "$OUT/vmap_jax"
    export HHLO_VMAP_JAX_DIR="$OUT/vmap_jax"
  fi
  if [[ "$name" == hhlo_bench_parse ]]; then
    # The texts of the build-and-print models, as we print them and as JAX does; MLIR's parser
    # (bench/parse_mlir.py) parses the same files right after ours.
    mkdir -p "$OUT/parse_texts"
    HHLO_BP_DUMP="$OUT/parse_texts" "$BUILD/bench/hhlo_bench_build_print" \
      --benchmark_filter=NONE >/dev/null 2>&1
    "$PY" "$ROOT/bench/build_print_jax.py" --reps 1 --dump "$OUT/parse_texts" >/dev/null
    # The same programs as portable bytecode at JAX's target (jaxlib's serializer), for
    # bm_read_bytecode against jaxlib's deserialize_portable_artifact (issue 21).
    "$PY" - "$OUT/parse_texts" <<'BCEOF'
import glob, sys
from jaxlib.mlir.dialects import stablehlo
for path in glob.glob(sys.argv[1] + "/*.mlir"):
    data = stablehlo.serialize_portable_artifact_str(open(path).read(),
                                                     stablehlo.get_current_version())
    open(path + "bc", "wb").write(data)
BCEOF
    echo "== $name" >&2
    HHLO_PARSE_TEXTS="$OUT/parse_texts" "$exe" --benchmark_repetitions="$REPS" \
      --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true \
      --benchmark_format=console --benchmark_out_format=json --benchmark_out="$OUT/$name.json" >&2
    echo "== parse_mlir.py (jaxlib.mlir.ir.Module.parse)" >&2
    "$PY" "$ROOT/bench/parse_mlir.py" "$OUT/parse_texts" --reps "$REPS" > "$OUT/parse_mlir.json"
    continue
  fi
  echo "== $name" >&2
  "$exe" --benchmark_repetitions="$REPS" --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true --benchmark_format=console \
    --benchmark_out_format=json --benchmark_out="$OUT/$name.json" >&2
  if [[ "$name" == hhlo_bench_build_print ]]; then
    echo "== build_print_jax.py (jax.jit(f).lower(...).as_text())" >&2
    "$PY" "$ROOT/bench/build_print_jax.py" --reps 5 > "$OUT/build_print_jax.json"
  fi
done

"$PY" - "$OUT" <<'PYEOF'
import glob, json, os, statistics, sys
out = sys.argv[1]

def medians(path, field="real_time"):
    """`field` (real_time or cpu_time) medians in microseconds by benchmark name (aggregate rows)."""
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
    m = {}
    try:
        data = json.load(open(path))
    except (OSError, ValueError) as e:
        print(f"  (skipping {os.path.basename(path)}: {e})")
        return m
    for b in data["benchmarks"]:
        if b.get("aggregate_name") == "median":
            m[b["run_name"]] = b[field] * scale[b["time_unit"]]
    return m

for f in sorted(glob.glob(os.path.join(out, "hhlo_bench_*.json"))):
    print(f"{os.path.basename(f)[:-5]}:")
    for name, us in medians(f).items():
        print(f"  {name:<50} median {us:10.2f} us")

rounds = []
for cpp in sorted(glob.glob(os.path.join(out, "dispatch_round_*_cpp.json"))):
    jax_path = cpp.replace("_cpp.json", "_jax.json")
    if not os.path.exists(jax_path):
        continue
    m, c = medians(cpp), medians(cpp, "cpu_time")
    if not m:
        continue
    ours = next(v for k, v in m.items() if "Dispatch_Ours" in k)
    raw = next(v for k, v in m.items() if "Dispatch_RawCApi" in k)
    cpu_ratio = next(v for k, v in c.items() if "Dispatch_Ours" in k) / next(
        v for k, v in c.items() if "Dispatch_RawCApi" in k)
    jax = json.load(open(jax_path))["median_us"]
    to_host = (next((v for k, v in m.items() if "ToHost_Ours" in k), None),
               next((v for k, v in m.items() if "ToHost_RawCApi" in k), None))
    rounds.append((ours, raw, jax, cpu_ratio, to_host))
if rounds:
    med = statistics.median
    print(f"Dispatch latency (2x2 f32 add, per call; {len(rounds)} rounds, medians):")
    for i, (o, r, j, _, h) in enumerate(rounds, 1):
        print(f"  round {i}: ours {o:.2f} us, raw C API {r:.2f} us, jax.jit {j:.2f} us")
    print(f"  ours / raw = {med([o / r for o, r, _, _, _ in rounds]):.3f}x wall, "
          f"{med([c for _, _, _, c, _ in rounds]):.3f}x CPU time (goal <= 1.10x)")
    print(f"  jax / ours = {med([j / o for o, _, j, _, _ in rounds]):.2f}x (goal >= 3x faster than JAX)")
    hosts = [h for *_, h in rounds if None not in h]
    if hosts:
        print(f"  with the result to the host: ours (Buffer::to_host) "
              f"{med([o for o, _ in hosts]):.2f} us, the plugin's ToHostBuffer "
              f"{med([r for _, r in hosts]):.2f} us")
    print("  (wall times move with machine load; bench/dispatch_callgrind.sh counts instructions)")

pp, ppm = os.path.join(out, "hhlo_bench_parse.json"), os.path.join(out, "parse_mlir.json")
if os.path.exists(pp) and os.path.exists(ppm):
    def plain(d):  # "bm_parse/mlp/real_time" -> "bm_parse/mlp"
        return {k.removesuffix("/real_time"): v for k, v in d.items()}
    m, mc, mj = plain(medians(pp)), plain(medians(pp, "cpu_time")), json.load(open(ppm))
    counters = plain({b["run_name"]: b for b in json.load(open(pp))["benchmarks"]
                      if b.get("aggregate_name") == "median"})
    print(f"Parse (ms, medians; MLIR: jaxlib.mlir.ir.Module.parse, context excluded, "
          f"load average {os.getloadavg()[0]:.1f}):")
    for name in ("mlp", "transformer", "mlp_jax", "transformer_jax"):
        if name not in mj or f"bm_parse/{name}" not in m:
            continue
        ours, nov, theirs = m[f"bm_parse/{name}"] / 1e3, m[f"bm_parse_noverify/{name}"] / 1e3, mj[name]["median_ms"]
        ours_cpu, theirs_cpu = mc[f"bm_parse/{name}"] / 1e3, mj[name]["cpu_median_ms"]
        c = counters[f"bm_parse/{name}"]
        print(f"  {name}: wall ours {ours:.2f} (without verifier {nov:.2f}) vs MLIR {theirs:.2f} = "
              f"{theirs / ours:.1f}x; CPU ours {ours_cpu:.2f} vs MLIR {theirs_cpu:.2f} = "
              f"{theirs_cpu / ours_cpu:.1f}x (goal >= 2x)")
        print(f"    text {c['text_bytes'] / 1e6:.2f} MB, parsed module {c['module_bytes'] / 1e6:.2f} MB"
              f" = {c['module_per_text_byte']:.2f}x the text (goal <= 3x)")
        bc = f"bm_read_bytecode/{name}"
        if bc in m and name + "_bytecode" in mj:
            ours, theirs = m[bc] / 1e3, mj[name + "_bytecode"]["median_ms"]
            ours_cpu, theirs_cpu = mc[bc] / 1e3, mj[name + "_bytecode"]["cpu_median_ms"]
            cb = counters[bc]
            print(f"    bytecode {cb['bytecode_bytes'] / 1e6:.2f} MB: read_bytecode {ours:.2f} vs "
                  f"jaxlib deserialize_portable_artifact {theirs:.2f} = {theirs / ours:.1f}x wall, "
                  f"{theirs_cpu / ours_cpu:.1f}x CPU (goal >= 2x); module "
                  f"{cb['module_per_text_byte']:.2f}x the text (goal <= 3x)")
cc = os.path.join(out, "hhlo_bench_compile_cache.json")
if os.path.exists(cc):
    wall, cpu = medians(cc), medians(cc, "cpu_time")
    print(f"Compile cache (ms, medians; cold = PJRT_Client_Compile, warm = cache hit: read, check, "
          f"DeserializeAndLoad; CPU = whole process, load average {os.getloadavg()[0]:.1f}):")
    for model in ("digits", "transformer"):
        pick = lambda m, k: next((v for n, v in m.items() if n.startswith(f"bm_{k}/{model}")), None)
        cw, ww, cc_, wc = pick(wall, "cold"), pick(wall, "warm"), pick(cpu, "cold"), pick(cpu, "warm")
        if None in (cw, ww, cc_, wc):
            continue
        print(f"  {model}: cold {cw / 1e3:.1f} wall / {cc_ / 1e3:.1f} CPU, warm {ww / 1e3:.1f} wall / "
              f"{wc / 1e3:.1f} CPU: {cw / ww:.1f}x wall, {cc_ / wc:.1f}x CPU (goal >= 50x)")

bp, bpj = os.path.join(out, "hhlo_bench_build_print.json"), os.path.join(out, "build_print_jax.json")
if os.path.exists(bp) and os.path.exists(bpj):
    m, ctx, jx = medians(bp), json.load(open(bp))["context"], json.load(open(bpj))
    print(f"Build and print (ms, medians; JAX: fresh jax.jit(f).lower(...).as_text(), "
          f"load average {os.getloadavg()[0]:.1f}):")
    for model in ("mlp", "transformer"):
        j = jx[model]
        o = {k: next(v for n, v in m.items() if n.startswith(f"bm_{k}/{model}")) / 1e3
             for k in ("build", "print", "print_noloc", "build_print")}
        print(f"  {model}: build {o['build']:.2f} vs lower {j['lower_ms']:.1f} = "
              f"{j['lower_ms'] / o['build']:.0f}x; print {o['print']:.2f} vs as_text "
              f"{j['text_ms']:.1f} = {j['text_ms'] / o['print']:.0f}x (without locations "
              f"{o['print_noloc']:.2f} = {j['text_ms'] / o['print_noloc']:.0f}x); total "
              f"{o['build_print']:.2f} vs {j['total_ms']:.1f} = "
              f"{j['total_ms'] / o['build_print']:.0f}x (goal >= 20x)")
        print(f"    ops: ours {ctx.get('ops_' + model)} ({ctx.get('ops_hist_' + model)}); "
              f"jax {j['ops']} ({' '.join(f'{k}:{v}' for k, v in j['ops_hist'].items())})")

sp = os.path.join(out, "hhlo_bench_spmd.json")
if os.path.exists(sp):
    m, c = medians(sp), medians(sp, "cpu_time")
    print(f"SPMD data-parallel step (medians; {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f}; overhead = D devices / the 1-device program, same global batch):")
    for model in ("mlp", "cnn"):
        for eigen, batch in ((1, 256), (0, 256), (1, 2048)):
            key = lambda d: f"dp_step/{model}/devices:{d}/eigen:{eigen}/batch:{batch}/real_time"
            if key(1) not in m:
                continue
            parts = [f"1 device {m[key(1)]:.0f} us"]
            for d in (2, 4):
                if key(d) in m:
                    parts.append(f"{d}: {m[key(d)]:.0f} us = {m[key(d)] / m[key(1)]:.2f}x")
            label = "XLA defaults" if eigen else "xla_cpu_multi_thread_eigen=false"
            print(f"  {model}, batch {batch} ({label}): " + ", ".join(parts) +
                  " (goal <= 1.2x on 2 cores)")

tr = os.path.join(out, "hhlo_bench_transforms.json")
if os.path.exists(tr):
    m, c = medians(tr), medians(tr, "cpu_time")
    def ratio(a, b, what, goal):
        if a in m and b in m:
            print(f"  {what}: {m[a]:.2f} / {m[b]:.2f} us = {m[a] / m[b]:.3f}x wall, "
                  f"{c[a] / c[b]:.3f}x CPU time ({goal})")
    print("Transformations (medians, one run):")
    ratio("BM_Jit_CachedCall", "BM_Jit_DirectExecute", "cached jit call / direct execute (buffers)",
          "goal <= 1.10x")
    ratio("BM_Jit_CachedCallArrays", "BM_Jit_DirectArrays",
          "cached jit call / direct copy+execute+copy (Arrays)", "goal <= 1.10x")
    ratio("BM_Hvp_Hvp", "BM_Hvp_Grad", "hvp / grad (MLP loss)", "goal <= 4x")
    for name in sorted({k.split("/", 1)[1] for k in m if k.startswith("BM_Vmap_Ours/")}):
        ratio(f"BM_Vmap_Ours/{name}", f"BM_Vmap_Jax/{name}", f"vmap ours / JAX's program, {name}",
              "goal <= 1.10x")
PYEOF

# JAX's linear algebra at 256x256 (kernels/lapack/): `hhlo run` of the exports against jax.jit.
if [[ -x "$BUILD/tools/hhlo/hhlo" && "linalg" =~ $ONLY ]]; then
  echo "== linalg_compare.py (solve/cholesky/eigh/svd 256x256 f32/f64, ours vs jax.jit)" >&2
  "$PY" "$ROOT/bench/linalg_compare.py" "$BUILD/tools/hhlo/hhlo" > "$OUT/linalg_compare.json"
fi

# Warm start, process start to result, from the compile cache's records (hhlo/program/
# program_cache.h) against JAX's own warm start: a 25 MB transformer export (issue 26 item 3).
if [[ -x "$BUILD/tools/hhlo/hhlo" && "warm_start" =~ $ONLY ]]; then
  echo "== warm_start.py (hhlo run from the cache records vs parsing, vs JAX's deserialize().call)" >&2
  "$PY" "$ROOT/bench/warm_start.py" "$BUILD" --rounds "$REPS" > "$OUT/warm_start.json"
  "$PY" -c 'import json, sys; r = json.load(open(sys.argv[1]))["ratios"]; print("Warm start:",
    ", ".join(f"{k} {v:.2f}x" for k, v in r.items()))' "$OUT/warm_start.json"
fi

# The execution mode's crossover (issue 26 item 1): hhlo bench --execution async vs sync over
# programs of growing work per call.
if [[ -x "$BUILD/tools/hhlo/hhlo" && "execution_mode" =~ $ONLY ]]; then
  echo "== execution_mode.py (async vs sync client, MLP batch 1..1024, dot 16..512)" >&2
  "$PY" "$ROOT/bench/execution_mode.py" "$BUILD" "$REPS" | tee "$OUT/execution_mode.txt"
fi

# ours against JAX, ONNX Runtime and IREE on four models (issue 26 item 5): opt-in only, since it
# makes a venv of its own (.venv-peers) from the registry; HHLO_BENCH_ROUNDS rounds (default 2).
if [[ -n "${HHLO_BENCH_ONLY:-}" && "peers" =~ $ONLY ]]; then
  echo "== peers.sh (four models: ours, JAX, ONNX Runtime, IREE)" >&2
  "$ROOT/bench/peers.sh" "$BUILD" "${HHLO_BENCH_ROUNDS:-2}" | tee "$OUT/peers.txt"
fi

# hhlo serve against hhlo bench, batching on and off, and Seldon MLServer (issue 42 item 9):
# opt-in only, since it makes venvs of its own (.venv-serve, .venv-serve-peer) from the registry.
if [[ -n "${HHLO_BENCH_ONLY:-}" && "serve" =~ $ONLY ]]; then
  echo "== serve.sh (hhlo serve: MLP and CNN; hhlo bench, batching on/off, MLServer)" >&2
  "$ROOT/bench/serve.sh" "$BUILD" | tee "$OUT/serve.txt"
fi
