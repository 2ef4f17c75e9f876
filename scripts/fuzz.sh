#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer executables of tests/fuzz with clang, ASan and UBSan in
# build-fuzz/ (HHLO_FUZZ=ON), writes the seed corpora from the test files, and runs each target for
# FUZZ_RUNS executions (default 1,000,000) or until a crash, leak, timeout or UB report, which fails
# the run. Crash inputs land in build-fuzz/fuzz/artifacts/<target>/; make each a file in
# tests/fuzz/regressions/<target>/ and a named test in tests/fuzz/regressions_test.cc before the fix.
# FUZZ_TARGETS picks targets (default all), FUZZ_SECONDS and FUZZ_PARALLEL (below) bound the time;
# per-target logs with libFuzzer's final stats are in
# build-fuzz/fuzz/<target>.log (docs/reliability.md).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${FUZZ_BUILD:-build-fuzz}
runs=${FUZZ_RUNS:-1000000}
jobs=${JOBS:-2}
targets=${FUZZ_TARGETS:-npy npz parser shape_rules cli bytecode input_spec safetensors infer_request}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
# -O1 with line tables: libFuzzer's usual flags, and half the compile time of -O2 -g.
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DHHLO_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" >/dev/null
cmake --build "$build" -j "$jobs" --target hhlo_fuzz_seeds $(printf 'hhlo_fuzz_%s ' $targets)
out="$build/fuzz"
mkdir -p "$out"
"$build/tests/fuzz/hhlo_fuzz_seeds" "$out/corpus"
max_len() { case $1 in parser) echo 16384 ;; *) echo 4096 ;; esac; }
# FUZZ_SECONDS=N stops each target after N seconds (libFuzzer -max_total_time) if it has not
# reached FUZZ_RUNS by then; FUZZ_PARALLEL=1 runs the targets at once, one process each (on a
# machine with a free core per target).
seconds=${FUZZ_SECONDS:-0}
run_target() {
  local t=$1
  mkdir -p "$out/artifacts/$t"
  if ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
      "$build/tests/fuzz/hhlo_fuzz_$t" -runs="$runs" -max_total_time="$seconds" \
      -max_len="$(max_len "$t")" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$out/artifacts/$t/" "$out/corpus/$t" >"$out/$t.log" 2>&1; then
    echo ok >"$out/$t.status"
  else
    echo failed >"$out/$t.status"
  fi
}
status=0
for t in $targets; do
  rm -f "$out/$t.status"
  echo "---- fuzz $t: $runs executions${FUZZ_SECONDS:+ or $seconds s}"
  if [[ ${FUZZ_PARALLEL:-0} == 1 ]]; then run_target "$t" & else run_target "$t"; fi
done
wait
for t in $targets; do
  if [[ $(cat "$out/$t.status" 2>/dev/null) != ok ]]; then
    echo "fuzz $t FAILED: see $out/$t.log and $out/artifacts/$t/"
    status=1
  fi
  grep -E "^stat::number_of_executed_units|^stat::average_exec_per_sec|^stat::peak_rss_mb" \
    "$out/$t.log" | sed "s/^/  $t /" || true
done
exit $status
