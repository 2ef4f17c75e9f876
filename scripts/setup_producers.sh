#!/usr/bin/env bash
# The producers' venvs for `make test-producers` (never part of make test or demo: about 7 GB):
#   .venv-torch  torch and torch_xla pinned (PyPI's torch wheel brings NVIDIA's CUDA wheels along;
#                torch_xla runs on CPU with PJRT_DEVICE=CPU).
# Then each generator under tests/producers/ rewrites its fixtures into OUT (default
# build/producers), which the producer tests read through HHLO_PRODUCERS_DIR; `make test` reads
# the committed copies in tests/producers/fixtures instead. Idempotent: a venv whose pinned
# requirements are already installed is kept.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/build/producers}
log() { printf '[setup-producers] %s\n' "$*" >&2; }

venv="$root/.venv-torch"
reqs="numpy==2.4.6 torch==2.9.0 torch_xla==2.9.0"
if [ ! -f "$venv/.hhlo-reqs" ] || [ "$(cat "$venv/.hhlo-reqs")" != "$reqs" ]; then
  log "creating Python venv in .venv-torch ($reqs; about 7 GB)"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check $reqs
  echo "$reqs" > "$venv/.hhlo-reqs"
fi

mkdir -p "$out"
PJRT_DEVICE=CPU "$venv/bin/python" "$root/tests/producers/gen_torch_xla.py" "$out/torch_xla"
