#!/usr/bin/env bash
# The producers' venvs for `make test-producers` (never part of make test or demo: about 8 GB):
#   .venv-torch  torch, torch_xla, and torchax with JAX pinned (PyPI's torch wheel brings
#                NVIDIA's CUDA wheels along; torch_xla runs on CPU with PJRT_DEVICE=CPU);
#   .venv-tf     tensorflow-cpu pinned.
# torch-mlir publishes its wheels outside PyPI (GitHub releases), which these machines cannot
# reach: its forms are covered by the parser's tests (docs/formats.md).
# Then each generator under tests/producers/ rewrites its fixtures into OUT (default
# build/producers), which the producer tests read through HHLO_PRODUCERS_DIR; `make test` reads
# the committed copies in tests/producers/fixtures instead. Idempotent: a venv whose pinned
# requirements are already installed is kept.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/build/producers}
log() { printf '[setup-producers] %s\n' "$*" >&2; }

# make_venv DIR REQUIREMENTS...: DIR holds exactly these pinned requirements afterwards.
make_venv() {
  local venv=$1; shift
  local reqs="$*"
  if [ ! -f "$venv/.hhlo-reqs" ] || [ "$(cat "$venv/.hhlo-reqs")" != "$reqs" ]; then
    log "creating Python venv in $venv ($reqs)"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check $reqs
    echo "$reqs" > "$venv/.hhlo-reqs"
  fi
}
make_venv "$root/.venv-torch" numpy==2.4.6 torch==2.9.0 torch_xla==2.9.0 torchax==0.0.13 \
  jax==0.10.2 jaxlib==0.10.2 flatbuffers==25.12.19
make_venv "$root/.venv-tf" numpy==2.4.6 tensorflow-cpu==2.21.0

mkdir -p "$out"
PJRT_DEVICE=CPU "$root/.venv-torch/bin/python" "$root/tests/producers/gen_torch_xla.py" \
  "$out/torch_xla"
"$root/.venv-torch/bin/python" "$root/tests/producers/gen_torchax.py" "$out/torchax"
TF_CPP_MIN_LOG_LEVEL=2 "$root/.venv-tf/bin/python" "$root/tests/producers/gen_tensorflow.py" \
  "$out/tensorflow"
