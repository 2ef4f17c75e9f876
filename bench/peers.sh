#!/usr/bin/env bash
# The peers benchmark (issue 26 item 5): four JAX models (MLP, CNN, transformer encoder, LSTM) at
# batch 1 and 64 through ours (`hhlo bench`, defaults and after `hhlo tune`), JAX (`jax.jit`),
# ONNX Runtime (via jax2onnx) and IREE (llvm-cpu, local-task), plus the cold start (process start
# to first result, batch 1, three per round), in interleaved rounds; prints the table of medians
# (each round's median, then the median over the rounds) and ratios, and the issue's goals.
#
# Usage: bench/peers.sh [BUILD_DIR] [ROUNDS]      (defaults: build, 2)
# Env:   HHLO_PEERS_SCALE   factor on the number of timed calls (default 1; e.g. 0.1 to try it)
#        HHLO_PEERS_CONFIGS comma-separated configs (default all: mlp_b1,mlp_b64,cnn_b1,...)
#        HHLO_PEERS_BUDGET  seconds for each `hhlo tune` (default 30, as hhlo tune's)
#        HHLO_PEERS_RUNNERS comma-separated runners (default all: ours,ours_tuned,jax,ort,iree);
#                           without ours_tuned nothing is tuned
#        HHLO_PEERS_BASELINE another build's hhlo binary (e.g. of an earlier commit): timed with
#                           its defaults as runner `baseline` in the same rounds, cold starts
#                           too, and compared with ours in a table of its own (before/after)
#
# The peers live in their own venv, .venv-peers (git-ignored), made on the first run from the
# pinned bench/peers-requirements.txt and reused while the pins are unchanged; it has its own jax.
# The exported programs, inputs, artifacts and caches go in a temp dir (printed; kept for
# inspection), the results in BUILD_DIR/bench-results/peers.jsonl. Not part of `make test` or CI.
# bench/peers.py holds the models and the timing of each runner.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
[[ "$BUILD" = /* ]] || BUILD="$ROOT/$BUILD"
ROUNDS="${2:-2}"
VENV="$ROOT/.venv-peers"
REQS="$ROOT/bench/peers-requirements.txt"
PY="$VENV/bin/python"
HHLO="$BUILD/tools/hhlo/hhlo"
BUDGET="${HHLO_PEERS_BUDGET:-30}"
BASELINE="${HHLO_PEERS_BASELINE:-}"
IFS=, read -r -a RUNNERS <<< "${HHLO_PEERS_RUNNERS:-ours,ours_tuned,jax,ort,iree}"
if [[ -n "$BASELINE" ]]; then
  if [[ ! -x "$BASELINE" ]]; then
    echo "bench/peers.sh: HHLO_PEERS_BASELINE=$BASELINE is not an executable" >&2
    exit 1
  fi
  RUNNERS+=(baseline)
fi
COLD_STARTS=3  # cold starts per runner, config and round (their median is the round's)

# The venv of the peers, installed once per version of the pins.
ensure_venv() {
  local stamp="$VENV/.pins.sha256" want
  want="$(sha256sum "$REQS" | cut -d' ' -f1)"
  if [[ -x "$PY" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    return
  fi
  echo "== making $VENV from $REQS" >&2
  [[ -x "$PY" ]] || python3 -m venv "$VENV"
  "$PY" -m pip install -q --disable-pip-version-check -r "$REQS" >&2
  echo "$want" > "$stamp"
}

# Our CLI: only its target, with one job (the machine's cores are shared).
ensure_hhlo() {
  if [[ -f "$BUILD/build.ninja" || -f "$BUILD/Makefile" ]]; then
    cmake --build "$BUILD" -j1 --target hhlo_cli >&2
  fi
  [[ -x "$HHLO" ]] || { echo "bench/peers.sh: $HHLO missing: configure $BUILD first" >&2; exit 1; }
}

ensure_venv
ensure_hhlo
TMP="$(mktemp -d "${TMPDIR:-/tmp}/hhlo-peers.XXXXXX")"
DEF_CACHE="$TMP/cache-defaults"   # ours with its defaults: no tuned choice in this cache
TUNED_CACHE="$TMP/cache-tuned"    # ours after `hhlo tune`: bench follows the remembered choice
BASE_CACHE="$TMP/cache-baseline"  # the baseline build's own cache (its records are its own)
RESULTS="$TMP/results.jsonl"
echo "== temp dir $TMP; load before: $(uptime)" >&2
"$PY" "$ROOT/bench/peers.py" versions > "$TMP/versions.json"

prep_args=()
[[ -n "${HHLO_PEERS_CONFIGS:-}" ]] && prep_args=(--configs "$HHLO_PEERS_CONFIGS")
peer_formats=()  # only the artifacts of the peers that run
[[ " ${RUNNERS[*]} " == *" ort "* ]] && peer_formats+=(onnx)
[[ " ${RUNNERS[*]} " == *" iree "* ]] && peer_formats+=(vmfb)
prep_args+=(--peers "$(IFS=,; echo "${peer_formats[*]}")")
"$PY" "$ROOT/bench/peers.py" prepare "$TMP" "${prep_args[@]}"
mapfile -t CONFIGS < <("$PY" -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))))' \
  "$TMP/configs.json")

peer() {  # peer time|cold RUNNER CONFIG ROUND, appending its JSON line to the results
  local cache="$DEF_CACHE" hhlo="$HHLO"
  [[ "$2" == ours_tuned ]] && cache="$TUNED_CACHE"
  [[ "$2" == baseline ]] && cache="$BASE_CACHE" hhlo="$BASELINE"
  HHLO_COMPILE_CACHE="$cache" "$PY" "$ROOT/bench/peers.py" "$1" "$2" "$TMP" "$3" \
    --round "$4" --hhlo "$hhlo" | tee -a "$RESULTS" >&2
}

# Tuning, once per program, before the rounds (its choice is remembered in TUNED_CACHE).
if [[ " ${RUNNERS[*]} " == *" ours_tuned "* ]]; then
  for c in "${CONFIGS[@]}"; do
    echo "== hhlo tune $c (budget $BUDGET s)" >&2
    HHLO_COMPILE_CACHE="$TUNED_CACHE" "$HHLO" tune "$TMP/$c.mlir" -i "$TMP/${c}_x.npy" \
      --budget "$BUDGET" >&2 || echo "hhlo tune $c failed; ours_tuned runs the defaults" >&2
  done
fi

# An untimed cold start of each runner first: fills our compile cache and JAX's, and the page
# cache, so the rounds measure the warm-cache start the issue asks for.
COLD_RUNNERS=()
for r in "${RUNNERS[@]}"; do [[ "$r" == ours_tuned ]] || COLD_RUNNERS+=("$r"); done
cold_configs=()
for c in "${CONFIGS[@]}"; do [[ "$c" == *_b1 ]] && cold_configs+=("$c"); done
for c in "${cold_configs[@]}"; do
  for r in "${COLD_RUNNERS[@]}"; do peer cold "$r" "$c" 0 2>/dev/null >/dev/null || true; done
done
: > "$RESULTS"

# The rounds: every runner on every config, the runners' order reversed every other round.
reversed() { local a=("$@") i; for ((i = ${#a[@]} - 1; i >= 0; i--)); do echo "${a[i]}"; done; }
for ((round = 1; round <= ROUNDS; round++)); do
  order=("${RUNNERS[@]}")
  cold_order=("${COLD_RUNNERS[@]}")
  if ((round % 2 == 0)); then
    mapfile -t order < <(reversed "${RUNNERS[@]}")
    mapfile -t cold_order < <(reversed "${COLD_RUNNERS[@]}")
  fi
  echo "== round $round/$ROUNDS ($(uptime | sed 's/.*load/load/'))" >&2
  for c in "${CONFIGS[@]}"; do
    for r in "${order[@]}"; do peer time "$r" "$c" "$round"; done
  done
  for ((k = 1; k <= COLD_STARTS; k++)); do
    for c in "${cold_configs[@]}"; do
      for r in "${cold_order[@]}"; do peer cold "$r" "$c" "$round"; done
    done
  done
done

mkdir -p "$BUILD/bench-results"
cp "$RESULTS" "$BUILD/bench-results/peers.jsonl"
echo
echo "Peers ($ROUNDS interleaved rounds; medians over the rounds of each round's median;" \
  "$(nproc) cores)"
echo "versions: $(cat "$TMP/versions.json")"
echo "load after: $(uptime | sed 's/.*load/load/')"
"$PY" "$ROOT/bench/peers.py" table "$RESULTS"
