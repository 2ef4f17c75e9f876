#!/usr/bin/env bash
# The serving benchmark (issue 42 item 9), in one run, on the MLP and the CNN of bench/peers.py
# exported with a symbolic batch dimension (jax.export.symbolic_shape("b")):
#  (a) what `hhlo serve` adds: batch-1 p50/p99 at concurrency 1 over HTTP with binary tensors (a
#      lean raw client, and tritonclient.http) and over gRPC (tritonclient.grpc), against
#      in-process `hhlo bench` of the same artifact; goal: the server adds <= 50 us p50;
#  (b) throughput and p99 at concurrency 1, 8, 32, 128 (wrk, batch-1 JSON requests), dynamic
#      batching on (--max-batch-size 16) and off (0); goal: at concurrency 32, on >= 4x off;
#  (c) the peer: Seldon MLServer with adaptive batching (max_batch_size 16) serving the same
#      artifact with jax.jit (bench/serve_peer_runtime.py), the same body and load generator;
#      goal: >= 5x the peer's throughput at an equal or better p99.
# Prints the tables, the ratios and each goal as met or not, with the load average before/after.
#
# Usage: bench/serve.sh [BUILD_DIR]                 (default: build)
# Env:   HHLO_SERVE_SCALE        factor on the seconds per point (10 s at 1) and on the calls of
#                                (a) (default 1: about 6 minutes on 2 cores; 0.1 to try it)
#        HHLO_SERVE_CONFIGS      comma-separated models (default mlp,cnn)
#        HHLO_SERVE_CONCURRENCY  comma-separated concurrencies (default 1,8,32,128)
#        HHLO_SERVE_PARTS        comma-separated parts (default a,b,c)
#        HHLO_SERVE_WRK_THREADS  wrk's threads (default 1: the cores are the servers')
#        HHLO_SERVE_PEER_BATCH_TIME  MLServer's max_batch_time, seconds (default 0.0001)
#        HHLO_SERVE_PEER_WORKERS     MLServer's parallel_workers (default 1, MLServer's own)
#
# The clients live in their own venv, .venv-serve, and the peer in another, .venv-serve-peer (both
# git-ignored), made on the first run from the pinned bench/serve-requirements.txt and
# bench/serve-peer-requirements.txt and reused while the pins are unchanged. wrk is Debian's
# (installed with apt-get when missing). The artifacts, bodies and server logs go in a temp dir
# (printed; kept for inspection), the results in BUILD_DIR/bench-results/serve.jsonl. Not part of
# `make test` or CI. bench/serve.py holds the models' export, the servers and the measurements.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
[[ "$BUILD" = /* ]] || BUILD="$ROOT/$BUILD"
HHLO="$BUILD/tools/hhlo/hhlo"
PY="$ROOT/.venv-serve/bin/python"
PEER_PY="$ROOT/.venv-serve-peer/bin/python"

# A venv installed once per version of its pins: ensure_venv VENV REQUIREMENTS.
ensure_venv() {
  local venv="$1" reqs="$2" stamp="$1/.pins.sha256" want
  want="$(sha256sum "$reqs" | cut -d' ' -f1)"
  if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    return
  fi
  echo "== making $venv from $reqs" >&2
  [[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$reqs" >&2
  echo "$want" > "$stamp"
}

# Our CLI: only its target, with one job (the machine's cores are shared).
ensure_hhlo() {
  if [[ -f "$BUILD/build.ninja" || -f "$BUILD/Makefile" ]]; then
    cmake --build "$BUILD" -j1 --target hhlo_cli >&2
  fi
  [[ -x "$HHLO" ]] || { echo "bench/serve.sh: $HHLO missing: configure $BUILD first" >&2; exit 1; }
}

ensure_wrk() {
  command -v wrk >/dev/null && return
  echo "== installing wrk (Debian)" >&2
  apt-get install -y -q wrk >&2 || { apt-get update -q >&2 && apt-get install -y -q wrk >&2; }
}

ensure_venv "$ROOT/.venv-serve" "$ROOT/bench/serve-requirements.txt"
ensure_venv "$ROOT/.venv-serve-peer" "$ROOT/bench/serve-peer-requirements.txt"
ensure_hhlo
ensure_wrk
TMP="$(mktemp -d "${TMPDIR:-/tmp}/hhlo-serve.XXXXXX")"
RESULTS="$TMP/results.jsonl"
echo "== temp dir $TMP; load before: $(uptime)" >&2
"$PY" "$ROOT/bench/serve.py" prepare "$TMP"
"$PY" "$ROOT/bench/serve.py" run "$TMP" --hhlo "$HHLO" --peer-python "$PEER_PY" \
  --results "$RESULTS"

mkdir -p "$BUILD/bench-results"
cp "$RESULTS" "$BUILD/bench-results/serve.jsonl"
echo
echo "Serving (scale ${HHLO_SERVE_SCALE:-1}; $(nproc) cores)"
echo "versions: $("$PY" "$ROOT/bench/serve.py" versions)" \
  "mlserver $("$PEER_PY" -c 'import mlserver; print(mlserver.__version__)')"
echo "load after: $(uptime | sed 's/.*load/load/')"
"$PY" "$ROOT/bench/serve.py" table "$RESULTS"
