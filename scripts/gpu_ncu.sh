#!/usr/bin/env bash
# Runs on the GPU machine: Nsight Compute on one kernel of a `scantune tune` run
# restricted to one shape, at one size (docs/performance.md, "Large inputs").
# The report lands in $OUT/ncu_NAME.log; the key lines are printed.
#   scripts/gpu_ncu.sh NAME KERNEL_REGEX TUNE_OPTIONS...
#   scripts/gpu_ncu.sh warp single_pass_kernel --algorithms lookback_warp,warp_scans \
#     --block-threads 384 --items-per-thread 28 --tile-io wxpose
# TYPE, OP and SIZES pick the problem (default int32 sum at 2^28). The first 40
# launches (verification at small sizes, warm-up) are skipped.
set -uo pipefail
BUILD=${BUILD:-build-gpu}
OUT=${OUT:-/tmp/scantune-out}
name=$1 kernel=$2
shift 2
mkdir -p "$OUT"
SCANTUNE_KERNEL_CACHE=/tmp/scantune-kcache timeout 300 ncu --kernel-name "regex:$kernel" \
  --launch-skip 40 --launch-count 1 --section SpeedOfLight --section LaunchStats \
  --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis \
  "$BUILD/tuner/scantune" tune --type "${TYPE:-int32}" --op "${OP:-sum}" --kind inclusive \
  --sizes "${SIZES:-2^28}" --strategy exhaustive --vector-bytes 16 --backoff 0 --cache default \
  --progress quiet --db "/tmp/ncu_$name.db" "$@" >"$OUT/ncu_$name.log" 2>&1
grep -E "Duration|DRAM Throughput|Grid Size|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Static Shared|stalled waiting" \
  "$OUT/ncu_$name.log"
