#!/usr/bin/env bash
# Allreduce across processes and data-parallel step time (issue 24, item 7), one run:
#  1. bench/mpi_allreduce.cc (hhlo_mpi_allreduce_bench) on 2 processes: raw MPI_Allreduce loops
#     (the floor, out of place and in place) against one execution of a compiled program holding
#     one hhlo::mpi::allreduce (asynchronous client; synchronous client; synchronous + checked
#     mode; synchronous with the argument donated; the older out-of-place form; the program
#     without the allreduce), 8 B to 64 MiB;
#  1b. the same from 2 MiB up with glibc's malloc kept off mmap (GLIBC_TUNABLES mmap_max=0, no
#     trimming): the plugin's fresh result buffer per execution then reuses pages instead of
#     faulting in new ones, which shows what that allocation costs;
#  2. mpi4jax from PyPI (pip install mpi4jax into a venv of its own, built against the same
#     Debian Open MPI through mpicc; MPI4JAX_VENV, default BUILD/venv-mpi4jax, created when
#     missing) at the same sizes: bench/mpi_allreduce_mpi4jax.py;
#  3. the median step time of `hhlo demo --mpi` (digits model, batch 32, 3 epochs) on 1, 2 and 4
#     processes (4 oversubscribed on a 2-core machine), asynchronous and synchronous client.
# Prints `uptime` before each part and at the end: the machine may be shared. Figures:
# docs/benchmarks.md ("MPI allreduce across processes") and docs/distributed.md.
# Usage: bench/mpi_allreduce.sh [BUILD_DIR]  (default: build; needs the targets
# hhlo_mpi_allreduce_bench and hhlo_cli built). Env: ROUNDS (default 5), MAX_BYTES (default 64 MiB).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
[[ "$BUILD" = /* ]] || BUILD="$ROOT/$BUILD"
ROUNDS="${ROUNDS:-5}"
MAX_BYTES="${MAX_BYTES:-67108864}"
VENV="${MPI4JAX_VENV:-$BUILD/venv-mpi4jax}"
MPIRUN=(mpirun --oversubscribe)
[[ "$(id -u)" == 0 ]] && MPIRUN+=(--allow-run-as-root)
export HHLO_COMPILE_CACHE=off

echo "== allreduce, 2 processes (hhlo_mpi_allreduce_bench); load: $(uptime)"
"${MPIRUN[@]}" -np 2 "$BUILD/bench/hhlo_mpi_allreduce_bench" "$ROUNDS" "$MAX_BYTES"

echo "== allreduce from 2 MiB, malloc kept off mmap (GLIBC_TUNABLES); load: $(uptime)"
GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967295 \
  "${MPIRUN[@]}" -x GLIBC_TUNABLES -np 2 "$BUILD/bench/hhlo_mpi_allreduce_bench" "$ROUNDS" \
  "$MAX_BYTES" 2097152

echo "== mpi4jax, 2 processes; load: $(uptime)"
if [[ ! -x "$VENV/bin/python" ]] || ! "$VENV/bin/python" -c "import mpi4jax" 2>/dev/null; then
  echo "creating $VENV (pip install mpi4jax)"
  python3 -m venv "$VENV" && "$VENV/bin/pip" install -q mpi4jax ||
    echo "pip install mpi4jax failed (see the error above): no mpi4jax figures"
fi
if "$VENV/bin/python" -c "import mpi4jax" 2>/dev/null; then
  JAX_PLATFORMS=cpu "${MPIRUN[@]}" -np 2 "$VENV/bin/python" "$ROOT/bench/mpi_allreduce_mpi4jax.py" \
    "$ROUNDS" "$MAX_BYTES"
fi

for np in 1 2 4; do
  for mode in async sync; do
    echo "== hhlo demo --mpi --execution $mode, $np process(es); load: $(uptime)"
    "${MPIRUN[@]}" -np "$np" "$BUILD/tools/hhlo/hhlo" demo --mpi --execution "$mode" --epochs 3 \
      --no-progress | grep -E "median step|data-parallel"
  done
done
echo "== done; load: $(uptime)"
