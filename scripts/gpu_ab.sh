#!/usr/bin/env bash
# Runs on the GPU machine: an A/B (or A/B/C...) of whole builds, `scantune bench` of each
# in alternation, ROUNDS rounds, so that drifts of clocks and memory hit every build
# alike; each run in its own process with its own kernel cache. The bench JSONs land in
# $OUT as ab_<NAME>_<ROUND>.json and scripts/ab_summary.py prints the medians and ratios
# (the first build over each other).
#   ROUNDS=3 scripts/gpu_ab.sh main=build-gpu/tuner/scantune \
#     wait=/tmp/wait/scantune -- --types uint8,int32 --sizes 2^24,2^28 --policy int8=KEY
# A build's NAME: letters, digits and '-'. Give --policy to compare one fixed shape
# where the builds' tables differ. NAME=SCANTUNE@DB dispatches through the tuning
# database DB (a tune's rows against the built-in table, one binary):
#   scripts/gpu_ab.sh table=build-gpu/tuner/scantune tuned=build-gpu/tuner/scantune@sel.db \
#     -- --types int32,int64 --select flags:0.5,flags:0.05 --sizes 2^24,2^28
set -uo pipefail
OUT=${OUT:-/tmp/scantune-out}
ROUNDS=${ROUNDS:-3}
mkdir -p "$OUT"
builds=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  builds+=("$1")
  shift
done
[ "${1:-}" = -- ] && shift
if [ ${#builds[@]} -lt 2 ]; then
  echo "usage: gpu_ab.sh NAME=SCANTUNE NAME=SCANTUNE... -- BENCH_OPTIONS" >&2
  exit 2
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$OUT/device.txt"
for round in $(seq 1 "$ROUNDS"); do
  for b in "${builds[@]}"; do
    name=${b%%=*} bin=${b#*=} db=off
    case "$bin" in *@*) db=${bin#*@} bin=${bin%%@*} ;; esac
    SCANTUNE_DB=$db SCANTUNE_KERNEL_CACHE="/tmp/scantune-ab-$name" "$bin" bench -q "$@" \
      --json "$OUT/ab_${name}_$round.json" >"$OUT/ab_${name}_$round.log" 2>&1
    echo "$name round $round: exit $?"
  done
done
files=() # build by build, in the order given: the first is the baseline
for b in "${builds[@]}"; do
  files+=("$OUT/ab_${b%%=*}_"*.json)
done
python3 "$(dirname "$0")/ab_summary.py" "${files[@]}" | tee "$OUT/ab_summary.md"
