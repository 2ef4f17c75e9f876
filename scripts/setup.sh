#!/usr/bin/env bash
# One idempotent set-up for `make demo` and `make test` on a fresh Debian machine:
#   1. Debian packages (compiler tools, GoogleTest, Google Benchmark, fmt, CLI11, nlohmann-json, zlib,
#      OpenBLAS for the LAPACK kernels, Open MPI for the MPI kernels);
#   2. a Python venv in .venv (NumPy/ml_dtypes for test vectors, JAX on CPU as the benchmark peer,
#      Triton's HTTP client for the serving tests),
#      and where the machine has a Python 3.12 or newer a second one in .venv-jax-new with the
#      newest JAX (the jax.export artifacts of today's JAX for tests/program; JAX 0.11 and later
#      need Python 3.12);
#   3. registry wheels pinned by version and sha256, downloaded once into a cache outside the repo,
#      unpacked into the git-ignored third_party/: the default XLA CPU PJRT plugin and the
#      runner-up kept for the compat tests, the XLA FFI headers (from jaxlib), and the UCI digits
#      data (from scikit-learn).
# Each step is skipped when its result is already present.
# `scripts/setup.sh --cuda` (make setup-cuda) also fetches the CUDA PJRT plugin and the NVIDIA
# runtime wheels it loads into third_party/pjrt/cuda (about 3 GB; never part of make test/demo).
set -euo pipefail
want_cuda=0
for arg in "$@"; do
  case "$arg" in
    --cuda) want_cuda=1 ;;
    *) echo "usage: scripts/setup.sh [--cuda]" >&2; exit 2 ;;
  esac
done
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${HHLO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hhlo}
tp="$root/third_party"
log() { printf '[setup] %s\n' "$*" >&2; }

# ---- 1. Debian packages ---------------------------------------------------------------------
pkgs=(cmake ninja-build g++ make unzip ccache python3 python3-venv zlib1g-dev
      libgtest-dev libgmock-dev libbenchmark-dev libfmt-dev nlohmann-json3-dev libcli11-dev
      libopenblas-dev  # LAPACK + BLAS for kernels/lapack (docs/facts.md, "JAX's CPU linear algebra")
      libopenmpi-dev openmpi-bin  # MPI collectives across processes: kernels/mpi, ctest label mpi
      libssl-dev pkg-config binutils  # sha256 of the compile cache; the install test
      flatbuffers-compiler libflatbuffers-dev  # the jax.export artifact reader (src/program)
      libdnnl-dev  # oneDNN: the opt-in convolution kernel (kernels/onednn, --onednn-convolution)
      libboost1.81-dev  # Boost.PFR (the load key), Boost.Beast/Asio (hhlo serve's HTTP)
      libprotobuf-dev protobuf-compiler libnghttp2-dev  # hhlo serve's gRPC (docs/facts.md, "gRPC")
      prometheus-cpp-dev  # hhlo serve's metrics (the core serializer only)
      clang-format-14)  # make format / format-check
missing=()
for p in "${pkgs[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p"); done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  sudo_=""; [ "$(id -u)" -eq 0 ] || sudo_=sudo
  $sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# ---- 2. Python venv -------------------------------------------------------------------------
# flatbuffers: jax.export's Exported.serialize() (tests/program/gen_exported.py). safetensors: the
# safetensors files the tests read (tests/core/gen_safetensors_files.py, tests/cli/gen_safetensors_cli.py).
venv="$root/.venv"
# tritonclient[http,grpc]: Triton's own clients, as its users run it against `hhlo serve` (tests/serve;
# not [all], which pulls a perf_analyzer placeholder).
reqs="numpy==2.4.6 ml_dtypes==0.5.4 jax==0.10.2 jaxlib==0.10.2 flatbuffers==25.12.19 tritonclient[http,grpc]==2.73.0 safetensors==0.8.0"
if [ ! -f "$venv/.hhlo-reqs" ] || [ "$(cat "$venv/.hhlo-reqs")" != "$reqs" ]; then
  log "creating Python venv in .venv ($reqs)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check $reqs
  echo "$reqs" > "$venv/.hhlo-reqs"
fi

# ---- 2b. the newest JAX's venv ---------------------------------------------------------------
# JAX 0.11 and later need Python 3.12+; the system's python3 may be older (Debian 12: 3.11). The
# newest 3.12+ interpreter the machine has (pyenv's versions, python3.N on PATH) gets a venv with
# JAX pinned; tests/CMakeLists.txt generates the jax.export artifacts with it too. Without one the
# *JaxNew tests are skipped, and this says so.
venv_new="$root/.venv-jax-new"
reqs_new="numpy==2.4.6 ml_dtypes==0.5.4 jax==0.12.1 jaxlib==0.12.1 flatbuffers==25.12.19"
newest_python() {  # prints "MAJOR.MINOR PATH" of the newest Python 3.12+ found, or nothing
  local c v best="" best_v=0
  for c in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/*/bin/python3 \
           $(command -v python3.14 python3.13 python3.12 python3 2>/dev/null); do
    [ -x "$c" ] || continue
    v=$("$c" -c 'import sys; print(sys.version_info[0] * 100 + sys.version_info[1])' 2>/dev/null) \
      || continue
    if [ "$v" -ge 312 ] && [ "$v" -gt "$best_v" ]; then best_v=$v; best=$c; fi
  done
  [ -n "$best" ] && echo "$((best_v / 100)).$((best_v % 100)) $best"
  return 0
}
found=$(newest_python)
if [ -z "$found" ]; then
  log "no Python 3.12 or newer on this machine (pyenv's versions, python3.12+ on PATH): the tests" \
      "of the newest JAX's jax.export artifacts (*JaxNew.*) will be skipped"
  rm -rf "$venv_new"
else
  py_new=${found#* }
  stamp_new="python ${found%% *} $reqs_new"
  if [ ! -f "$venv_new/.hhlo-reqs" ] || [ "$(cat "$venv_new/.hhlo-reqs")" != "$stamp_new" ]; then
    log "creating Python venv in .venv-jax-new with $py_new (Python ${found%% *}: $reqs_new)"
    rm -rf "$venv_new"
    if "$py_new" -m venv "$venv_new" &&
       "$venv_new/bin/pip" install -q --disable-pip-version-check $reqs_new; then
      echo "$stamp_new" > "$venv_new/.hhlo-reqs"
    else
      log "could not make .venv-jax-new with $py_new: the *JaxNew tests will be skipped"
      rm -rf "$venv_new"
    fi
  fi
fi

# ---- 3. pinned registry wheels --------------------------------------------------------------
# fetch NAME VERSION SHA256 -> prints the cached wheel path
fetch() {
  local name=$1 version=$2 sha=$3 dir="$cache/wheels/$1-$2"
  local whl; whl=$(ls "$dir"/*.whl 2>/dev/null | head -1 || true)
  if [ -z "$whl" ]; then
    log "downloading $name==$version"
    mkdir -p "$dir"
    "$venv/bin/pip" download -q --disable-pip-version-check --no-deps --only-binary=:all: \
      -d "$dir" "$name==$version" >&2 || { log "cannot download $name==$version"; exit 1; }
    whl=$(ls "$dir"/*.whl | head -1)
  fi
  echo "$sha  $whl" | sha256sum -c --quiet - >&2 || { log "sha256 mismatch for $whl"; rm -f "$whl"; exit 1; }
  echo "$whl"
}
# unpack WHEEL DEST MEMBER... (extracts members, flattening into DEST unless DEST ends in /tree)
unpack() {
  local whl=$1 dest=$2; shift 2
  mkdir -p "$dest"; unzip -qo "$whl" "$@" -d "$dest"
}

stamp="$tp/.hhlo-stamp"
want="lammps-jax-pjrt-cpu-0.11.2 xla-cpu-pjrt-0.0.1 jaxlib-0.9.0 scikit-learn-1.9.1"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  rm -rf "$tp"; mkdir -p "$tp"
  # The default XLA CPU PJRT plugin: PJRT C API 0.115, StableHLO up to 1.20, XLA FFI 0.4, built
  # from the XLA of jaxlib 0.11.2 (the API of the 0.11.x CUDA plugin). Chosen by measurement over
  # the others on PyPI: docs/facts.md. No package ships a pjrt_c_api.h this new, so the runtime
  # has its own declarations (src/runtime/pjrt_abi.h).
  w=$(fetch lammps-jax-pjrt-cpu 0.11.2 1319390d948b39f69f7dade496b7c385149d9ca6097a6b62114da113216d9ad1)
  unpack "$w" "$tp/wheel" 'lammps_jax_pjrt_cpu/pjrt_c_api_cpu_plugin.so'
  mkdir -p "$tp/pjrt/cpu"
  mv "$tp/wheel/lammps_jax_pjrt_cpu/pjrt_c_api_cpu_plugin.so" "$tp/pjrt/cpu/"
  # The runner-up, OpenXLA's own xla-cpu-pjrt 0.0.1 (PJRT C API 0.81, StableHLO up to 1.13.3,
  # XLA FFI 0.2): the ctest label `compat` runs the runtime, op and custom-call suites on it.
  w=$(fetch xla-cpu-pjrt 0.0.1 55837b6b7b47daa717f2d9a5a03563ea0ceaa338d06a81a1e2d3f060d960decc)
  unpack "$w" "$tp/wheel" 'xla_plugins/xla_cpu_pjrt/xla_cpu_pjrt.so'
  mkdir -p "$tp/pjrt/cpu-0.81"
  mv "$tp/wheel/xla_plugins/xla_cpu_pjrt/xla_cpu_pjrt.so" "$tp/pjrt/cpu-0.81/"
  # XLA FFI headers (xla/ffi/api/{api,c_api,ffi}.h) for typed custom-call handlers. A plugin
  # silently drops a handler reporting a newer XLA FFI minor version than its own, so the headers
  # must be at the oldest version of the plugins we drive: 0.2 (the 0.81 plugin; the default
  # implements 0.4, which no registry package ships: jaxlib 0.10.2 has 0.3). jaxlib 0.9.0 is the
  # newest with 0.2; handlers built with it run on the 0.2, 0.3 and 0.4 plugins.
  w=$(fetch jaxlib 0.9.0 9f9eba014590435cec5fa1f6af2310a1a05db98d61331d18d6b278ff5424cd33)
  unpack "$w" "$tp/wheel" 'jaxlib/include/*'
  mkdir -p "$tp/xla_ffi"; mv "$tp/wheel/jaxlib/include" "$tp/xla_ffi/include"
  # UCI optical handwritten digits (1,797 8x8 images) shipped inside scikit-learn.
  w=$(fetch scikit-learn 1.9.1 52a0703bbc07ad27f560fa63fa68e4c54dd735bfbbf65b4dd3c225dc7547b6df)
  unpack "$w" "$tp/wheel" 'sklearn/datasets/data/digits.csv.gz'
  mkdir -p "$tp/data"; mv "$tp/wheel/sklearn/datasets/data/digits.csv.gz" "$tp/data/"
  rm -rf "$tp/wheel"
  echo "$want" > "$stamp"
  log "third_party ready: $(ls "$tp" | tr '\n' ' ')"
fi

# ---- 4. optional: the CUDA plugin (--cuda) ---------------------------------------------------
# jax-cuda12-pjrt 0.11.2: the XLA of the default CPU plugin (PJRT C API of 0.11.x), CUDA 12 (runs
# on drivers from 525 on; the cuda13 build needs 580+). Its RPATH is $ORIGIN/../../nvidia/*/lib, so
# every wheel is unpacked into one site folder (site/jax_plugins/..., site/nvidia/...); the runtime
# preloads the NVIDIA libraries from there as JAX's plugin module does (Plugin::for_platform).
# Versions: the newest that jax-cuda12-plugin 0.11.2[with-cuda] accepts on 2026-12-01.
if ((want_cuda)); then
  cuda_wheels=(
    "jax-cuda12-pjrt 0.11.2 2133b3afc63307c016ae4980f166b2b3de199759363ead74f7d550eaae953463"
    "nvidia-cublas-cu12 12.9.3.13 d7d51055f161b317c7105ddaae90e71eda059026074ffef93cf7cde2886bfe72"
    "nvidia-cuda-cupti-cu12 12.9.79 096bcf334f13e1984ba36685ad4c1d6347db214de03dbb6eebb237b41d9d934f"
    "nvidia-cuda-nvcc-cu12 12.9.86 5d6a0d32fdc7ea39917c20065614ae93add6f577d840233237ff08e9a38f58f0"
    "nvidia-cuda-runtime-cu12 12.9.79 25bba2dfb01d48a9b59ca474a1ac43c6ebf7011f1b0b8cc44f54eb6ac48a96c3"
    "nvidia-cudnn-cu12 9.28.0.42 9ff58b7f36dacd0a93e89f8f2957b52466889217963701daa15e577317cfa375"
    "nvidia-cufft-cu12 11.4.1.4 c67884f2a7d276b4b80eb56a79322a95df592ae5e765cf1243693365ccab4e28"
    "nvidia-cusolver-cu12 11.7.5.82 15da72d1340d29b5b3cf3fd100e3cd53421dde36002eda6ed93811af63c40d88"
    "nvidia-cusparse-cu12 12.5.10.65 73060ce019ac064a057267c585bf1fd5a353734151f87472ff02b2c5c9984e78"
    "nvidia-nccl-cu12 2.32.3 bb94b2348e4861d5e8aa00b36c3d12d9bdf9c6369b82cbb723de0b582280a21c"
    "nvidia-nvjitlink-cu12 12.9.86 e3f1171dbdc83c5932a45f0f4c99180a70de9bd2718c1ab77d14104f6d7147f9"
    "nvidia-cuda-nvrtc-cu12 12.9.86 210cf05005a447e29214e9ce50851e83fc5f4358df8b453155d5e1918094dcb4"
    "nvidia-nvshmem-cu12 3.8.0 b2e5760d6158aefe7bb74348d5128bb1b46a7dd1fd4b7b1e6fe55b4b07888f70"
  )
  cdir="$tp/pjrt/cuda"
  cwant="${cuda_wheels[*]}"
  if [ ! -f "$cdir/.hhlo-stamp" ] || [ "$(cat "$cdir/.hhlo-stamp")" != "$cwant" ]; then
    rm -rf "$cdir"; mkdir -p "$cdir/site"
    for entry in "${cuda_wheels[@]}"; do
      read -r name version sha <<<"$entry"
      w=$(fetch "$name" "$version" "$sha")
      unzip -qo "$w" -x '*.dist-info/*' -d "$cdir/site"
    done
    ln -s site/jax_plugins/xla_cuda12/xla_cuda_plugin.so "$cdir/xla_cuda_plugin.so"
    echo "$cwant" > "$cdir/.hhlo-stamp"
    log "CUDA plugin ready: $cdir/xla_cuda_plugin.so (hhlo devices --platform cuda)"
  fi
fi
