#!/usr/bin/env bash
# Load-independent view of bench/dispatch_bench.cc: instructions executed per call (valgrind
# callgrind) by our execute (with the output buffer's release) and by the raw PJRT C API loop
# (Execute + Event_Await + Event_Destroy + Buffer_Destroy), and their ratio. Takes a minute or two.
# Usage: bench/dispatch_callgrind.sh [BUILD_DIR]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
[[ "$BUILD" = /* ]] || BUILD="$ROOT/$BUILD"
EXE="$BUILD/bench/hhlo_bench_dispatch"
[[ -x "$EXE" ]] || { echo "dispatch_callgrind.sh: $EXE missing: build first" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "dispatch_callgrind.sh: valgrind not installed" >&2; exit 1; }
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$TMP/ours" --collect-atstart=no \
  --toggle-collect='hhlo::LoadedExecutable::execute(*' --toggle-collect='hhlo::Buffer::~Buffer()' \
  "$EXE" --benchmark_filter=Ours >/dev/null 2>&1
valgrind --tool=callgrind --callgrind-out-file="$TMP/raw" --collect-atstart=no \
  --toggle-collect='pjrt::PJRT_LoadedExecutable_Execute(*' --toggle-collect='pjrt::PJRT_Event_Await(*' \
  --toggle-collect='pjrt::PJRT_Event_Destroy(*' --toggle-collect='pjrt::PJRT_Buffer_Destroy(*' \
  "$EXE" --benchmark_filter=RawCApi >/dev/null 2>&1
python3 - "$TMP/ours" "$TMP/raw" <<'PYEOF'
import re, sys

def per_call(path):
    """Collected instructions / number of PJRT_LoadedExecutable_Execute calls."""
    names, cur, calls, total = {}, None, 0, 0
    for line in open(path):
        line = line.rstrip("\n")
        m = re.match(r"(c?fn)=\((\d+)\)(?: (.*))?", line)
        if m:
            if m.group(3):
                names[m.group(2)] = m.group(3)
            if m.group(1) == "cfn":
                cur = names.get(m.group(2))
            continue
        m = re.match(r"calls=(\d+)", line)
        if m and cur and cur.startswith("pjrt::PJRT_LoadedExecutable_Execute("):
            calls += int(m.group(1))
        m = re.match(r"summary: (\d+)", line) or re.match(r"totals: (\d+)", line)
        if m:
            total = int(m.group(1))
    return total / calls, calls

ours, n1 = per_call(sys.argv[1])
raw, n2 = per_call(sys.argv[2])
print(f"instructions per call: ours {ours:.0f} ({n1} calls), raw C API {raw:.0f} ({n2} calls)")
print(f"ours / raw = {ours / raw:.3f}x (goal <= 1.10x)")
PYEOF
