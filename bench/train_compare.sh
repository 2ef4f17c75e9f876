#!/bin/bash
# One run of the "Training step" figures of docs/benchmarks.md: time per training step of the
# digits MLP and CNN (batch 32, Adam, parameters and state donated), ours vs JAX jit on CPU, plus
# the JAX-lowered step run through our runtime, and the `hhlo demo` end-to-end wall time.
# Usage: bench/train_compare.sh [build-dir]
set -euo pipefail
BUILD=${1:-build}
PY=.venv/bin/python
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for m in mlp cnn; do $PY bench/train_jax.py --model $m --lower "$tmp/jax_$m.mlir" >/dev/null 2>&1; done
echo "== ours (hhlo_bench_train), median of 9 interleaved repetitions"
for m in mlp cnn; do
  HHLO_TRAIN_MLIR="$tmp/jax_$m.mlir" "$BUILD/bench/hhlo_bench_train" --benchmark_filter="train_step/$m|jax_lowered" \
    --benchmark_repetitions=9 --benchmark_enable_random_interleaving=true --benchmark_min_time=0.3 \
    --benchmark_report_aggregates_only=true 2>/dev/null | grep median | sed "s/jax_lowered_step/jax_lowered_step\/$m/"
done
echo "== JAX jit (bench/train_jax.py), median of 3000 steps"
for m in mlp cnn; do echo "$m $($PY bench/train_jax.py --model $m --epochs 0 --steps 3000 2>/dev/null | grep '^step_ms=')"; done
echo "== hhlo demo end to end"
/usr/bin/time -f "demo_wall_s=%e" "$BUILD/tools/hhlo/hhlo" demo --no-progress 2>&1 | tail -2
