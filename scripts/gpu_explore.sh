#!/usr/bin/env bash
# Runs on the GPU machine: an exhaustive `scantune tune` over a small kernel-shape
# grid at a few large sizes, to compare tile I/O, cache hints and tile shapes
# (docs/decisions.md, "Warp transpose and streaming hints as tunables"). The
# database and the log land in $OUT.
#   SIZES=2^24,2^28 TYPE=int32 ALGS=lookback_warp,warp_scans scripts/gpu_explore.sh [tune options]
set -uo pipefail
BUILD=${BUILD:-build-gpu}
OUT=${OUT:-/tmp/scantune-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a "$OUT/device.txt"
db="$OUT/explore_${TYPE:-int32}.db"
start=$(date +%s)
SCANTUNE_KERNEL_CACHE=/tmp/scantune-kcache "$BUILD/tuner/scantune" tune --strategy exhaustive \
  --type "${TYPE:-int32}" --op "${OP:-sum}" --kind "${KIND:-inclusive}" --sizes "${SIZES:-2^24,2^28}" \
  --algorithms "${ALGS:-lookback_warp,warp_scans}" --vector-bytes 16 --backoff 0 --db "$db" --progress quiet "$@" \
  >"$OUT/explore_${TYPE:-int32}.log" 2>&1
echo "explore ${TYPE:-int32}: exit $?, $(($(date +%s) - start)) s" | tee -a "$OUT/summary.txt"
tail -30 "$OUT/explore_${TYPE:-int32}.log"
