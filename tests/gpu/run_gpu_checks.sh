#!/usr/bin/env bash
# Builds what the GPU checks need and runs them in one go, on a machine with an NVIDIA GPU, nvcc
# and the CUDA PJRT plugin (what `scripts/setup.sh --cuda` pins: `jax-cuda12-pjrt` 0.11.2 and its
# NVIDIA wheels in third_party/pjrt/cuda; or any xla_cuda_plugin.so).
#
#   tests/gpu/run_gpu_checks.sh [OUT_DIR]        (OUT_DIR default: build-gpu/results)
#
# Needs, offline: cmake, ninja, g++ 12+, nvcc (CUDA 12.x/13.x), the Debian dev packages of
# CMakeLists.txt (GoogleTest, Google Benchmark, fmt, nlohmann-json, CLI11, zlib), and from set-up
# only the XLA FFI headers, third_party/xla_ffi (carry it on a device machine: the PJRT C API
# declarations are our own, src/runtime/pjrt_abi.h, and the CPU plugin itself is not needed
# here). The CUDA plugin: $HHLO_PJRT_PLUGIN_CUDA if set; else the set-up's
# third_party/pjrt/cuda (`scripts/setup.sh --cuda` / `make setup-cuda`, run here when the machine
# reaches PyPI; the runtime then finds the plugin and preloads its NVIDIA wheels by itself); else
# the Python packages (jax_plugins/xla_cuda*/xla_cuda_plugin.so, nvidia/*/lib on LD_LIBRARY_PATH).
#
# Runs: nvidia-smi; `hhlo devices --platform cuda` (the set-up's plugin found, its devices);
# `mpirun -np 2 hhlo devices --platform cuda --mpi` (one client over two processes); the
# CPU custom-call tests (sanity of the same build); the GPU tests
# (build-gpu/tests/gpu/hhlo_gpu_tests with HHLO_TEST_GPU=1). Exit status: 0 when all passed.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${1:-build-gpu/results}"
mkdir -p "$out"
log() { printf '\n== %s\n' "$*"; }

log "GPU"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || {
  echo "no NVIDIA GPU visible (nvidia-smi failed)"; exit 2; }
command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"
nvcc --version | tail -1 || { echo "nvcc not found"; exit 2; }

log "CUDA PJRT plugin"
plugin="${HHLO_PJRT_PLUGIN_CUDA:-}"
site=""
setup_plugin=third_party/pjrt/cuda/xla_cuda_plugin.so
if [[ -z "$plugin" && ! -e "$setup_plugin" ]]; then
  bash scripts/setup.sh --cuda || echo "scripts/setup.sh --cuda failed (no registry here?)"
fi
if [[ -z "$plugin" && -e "$setup_plugin" ]]; then
  plugin="$(readlink -f "$setup_plugin")"
  site="${plugin%/jax_plugins/*}"
fi
if [[ -z "$plugin" ]]; then
  for py in python3 python; do
    command -v "$py" >/dev/null || continue
    for d in $("$py" -c 'import site,sys; print(" ".join(site.getsitepackages()+[site.getusersitepackages()]+sys.path))' 2>/dev/null); do
      for f in "$d"/jax_plugins/xla_cuda*/xla_cuda_plugin.so; do
        [[ -f "$f" ]] && { plugin="$f"; site="$d"; break 3; }
      done
    done
  done
fi
if [[ -z "$plugin" ]]; then
  plugin=$(find / -name xla_cuda_plugin.so -path '*jax_plugins*' 2>/dev/null | head -1)
  [[ -n "$plugin" ]] && site="${plugin%/jax_plugins/*}"
fi
[[ -n "$plugin" && -f "$plugin" ]] || { echo "no CUDA plugin: set HHLO_PJRT_PLUGIN_CUDA"; exit 2; }
export HHLO_PJRT_PLUGIN_CUDA="$plugin"
echo "plugin: $plugin"
[[ -z "$site" ]] && site="${plugin%/jax_plugins/*}"
libs=$(ls -d "$site"/nvidia/*/lib 2>/dev/null | paste -sd: -)
[[ -n "$libs" ]] && export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
pip show jax-cuda12-pjrt jax-cuda13-pjrt 2>/dev/null | grep -E "^(Name|Version)" || true

log "build (build-gpu)"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHHLO_BUILD_CUDA_EXAMPLES=ON \
  2>&1 | tee "$out/cmake.log" | tail -5
ninja -C build-gpu -j"$(nproc)" hhlo_custom_call_gpu_kernels hhlo_gpu_tests hhlo_custom_call_tests hhlo_cli \
  2>&1 | tee "$out/build.log" | tail -5
[[ -x build-gpu/tests/gpu/hhlo_gpu_tests ]] || { echo "build failed: see $out/build.log"; exit 3; }

status=0
log "hhlo devices --platform cuda"
build-gpu/tools/hhlo/hhlo devices --platform cuda 2>&1 | tee "$out/devices.log" || status=1

# Issue 24, item 5: two processes of an MPI job as one multi-process CUDA client (node_id = rank,
# num_nodes = 2, the key-value store served over MPI: hhlo/mpi/key_value_store.h). Each process
# must list the job's global devices: twice the one-process count, half of them another
# process's. Both processes share this host's GPUs here; across GPU hosts, run the same line
# with a hostfile (mpirun -np 2 --host a,b ...).
log "mpirun -np 2 hhlo devices --platform cuda --mpi"
if command -v mpirun >/dev/null && build-gpu/tools/hhlo/hhlo devices --help | grep -q -- --mpi; then
  root=(); [[ "$(id -u)" == 0 ]] && root=(--allow-run-as-root)
  timeout 300 mpirun "${root[@]}" --oversubscribe -np 2 build-gpu/tools/hhlo/hhlo devices \
    --platform cuda --mpi 2>&1 | tee "$out/devices_mpi.log" || status=1
  one=$(sed -n 's/^devices: *//p' "$out/devices.log" | head -1)
  both=$(grep -c "^devices: *$((2 * ${one:-0}))\$" "$out/devices_mpi.log")
  others=$(grep -c "(another process's)" "$out/devices_mpi.log")
  if [[ -n "$one" && "$both" == 2 && "$others" == $((2 * one)) ]]; then
    echo "ok: each process lists $((2 * one)) devices, $one of them the other process's"
  else
    echo "FAILED: expected each process to list $((2 * ${one:-0})) devices (see $out/devices_mpi.log)"
    status=1
  fi
else
  echo "skipped: no mpirun, or hhlo built without MPI (apt-get install openmpi-bin libopenmpi-dev)"
fi

if [[ -f third_party/pjrt/cpu/pjrt_c_api_cpu_plugin.so ]]; then
  log "CPU custom-call tests"
  build-gpu/tests/hhlo_custom_call_tests --gtest_brief=1 2>&1 | tee "$out/cpu_custom_call.log" \
    | tail -3 || status=1
fi

log "GPU tests"
HHLO_TEST_GPU=1 build-gpu/tests/gpu/hhlo_gpu_tests --gtest_output="json:$out/gpu_tests.json" \
  2>&1 | tee "$out/gpu_tests.log" || status=1
log "done: status $status (logs in $out)"
exit "$status"
