#!/bin/bash
# One run of the "Training step" figures of docs/benchmarks.md: time per training step of the
# digits MLP and CNN (batch 32, Adam, parameters and state donated, loss to host every step),
# ours vs JAX jit on CPU with the same methodology (median of single timed steps), alternated over
# ROUNDS rounds (ours on the asynchronous client, on the synchronous one, and on it with oneDNN's
# convolutions on one thread); then the Google Benchmark view including the JAX-lowered step run
# through our runtime; then the `hhlo demo` end-to-end wall time.
# Usage: bench/train_compare.sh [build-dir] [rounds]
set -euo pipefail
BUILD=${1:-build}
ROUNDS=${2:-3}
PY=.venv/bin/python
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for m in mlp cnn; do $PY bench/train_jax.py --model $m --lower "$tmp/jax_$m.mlir" >/dev/null 2>&1; done
for r in $(seq "$ROUNDS"); do
  echo "== round $r"
  HHLO_TRAIN_MLIR_MLP="$tmp/jax_mlp.mlir" HHLO_TRAIN_MLIR_CNN="$tmp/jax_cnn.mlir" \
    "$BUILD/bench/hhlo_bench_train" --median 2000 | sed 's/^/ours /'
  # The synchronous client (the demo's default on one device), and on it the steps' convolutions
  # as oneDNN's kernel on the calling thread (hhlo/session.h OneDnnOps{.convolution = true}; the
  # MLP has none: only the CNN's line of that run is kept).
  "$BUILD/bench/hhlo_bench_train" --median 2000 --execution sync 2>/dev/null | grep -v jax_lowered | sed 's/^/ours /'
  "$BUILD/bench/hhlo_bench_train" --median 2000 --model cnn --execution sync --onednn-threads 1 2>/dev/null | grep -v jax_lowered | sed 's/^/ours /'
  for m in mlp cnn; do echo "jax $m $($PY bench/train_jax.py --model $m --epochs 0 --steps 2000 2>/dev/null | tr '\n' ' ')"; done
done
echo "== Google Benchmark (mean-based), ours vs the JAX-lowered step through our runtime"
for m in mlp cnn; do
  HHLO_TRAIN_MLIR="$tmp/jax_$m.mlir" "$BUILD/bench/hhlo_bench_train" --benchmark_filter="train_step/$m|jax_lowered" \
    --benchmark_repetitions=5 --benchmark_min_time=0.3 \
    --benchmark_report_aggregates_only=true 2>/dev/null | grep median | sed "s/jax_lowered_step/jax_lowered_step\/$m/"
done
echo "== hhlo demo end to end"
/usr/bin/time -f "demo_wall_s=%e" "$BUILD/tools/hhlo/hhlo" demo --no-progress 2>&1 | tail -2
