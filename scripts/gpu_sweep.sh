#!/usr/bin/env bash
# Hand sweep of policies with scantune_bench on the GPU machine (until the tuner
# exists): prints one table row per (type, policy, size). Logs go to $OUT.
#   scripts/gpu_sweep.sh TYPE:SIZES:KEY1,KEY2,... [TYPE:SIZES:KEYS ...]
set -uo pipefail
BUILD=${BUILD:-build-gpu}
OUT=${OUT:-/tmp/scantune-out}
mkdir -p "$OUT"
for spec in "$@"; do
  IFS=: read -r type sizes keys <<<"$spec"
  IFS=, read -ra list <<<"$keys"
  for key in "${list[@]}"; do
    echo "### $type $key" >>"$OUT/sweep.md"
    "$BUILD/bench/scantune_bench" --types "$type" --sizes "${sizes//;/,}" --policy "$key" --batches 9 -q 2>&1 |
      tee -a "$OUT/sweep.md" | awk -v k="$key" -v t="$type" -F'|' '/^\| 2\^/ {printf "%-8s %-52s n=%-5s memcpy %7s CUB %7s st %7s  xCUB %5s xmemcpy %5s\n", t, k, $2, $3, $4, $5, $8, $9}'
  done
done
