#!/usr/bin/env bash
# Hand sweep of policies with `scantune bench --policy` on the GPU machine: prints
# one table row per (type, policy, size). Logs go to $OUT.
#   scripts/gpu_sweep.sh TYPE:SIZES:KEY1,KEY2,... [TYPE:SIZES:KEYS ...]
# SIZES: log2 sizes separated by ';' (e.g. 20;24;28).
set -uo pipefail
BUILD=${BUILD:-build-gpu}
OUT=${OUT:-/tmp/scantune-out}
mkdir -p "$OUT"
for spec in "$@"; do
  IFS=: read -r type sizes keys <<<"$spec"
  IFS=, read -ra list <<<"$keys"
  sizes=$(sed -E 's/([0-9]+)/2^\1/g; s/;/,/g' <<<"$sizes")
  for key in "${list[@]}"; do
    echo "### $type $key" >>"$OUT/sweep.md"
    # Columns: n | tuned policy | tuned GB/s | % memcpy | x CUB | CUB GB/s | memcpy GB/s | policy
    "$BUILD/tuner/scantune" bench --type "$type" --sizes "$sizes" --policy "$key" -q 2>&1 |
      tee -a "$OUT/sweep.md" | awk -v k="$key" -v t="$type" -F'|' '/^\| 2\^/ {
        xc = $7 + 0 > 0 ? $9 / $7 : 0; xm = $8 + 0 > 0 ? $9 / $8 : 0
        printf "%-8s %-52s n=%-5s memcpy %7s CUB %7s st %7s  xCUB %5.2f xmemcpy %5.2f\n", t, k, $2, $8, $7, $9, xc, xm }'
  done
done
