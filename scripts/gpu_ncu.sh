#!/usr/bin/env bash
# Runs on the GPU machine: Nsight Compute on one kernel launch, either of a
# `scantune tune` run restricted to one shape (docs/decisions.md) or of
# `scantune bench` (the dispatcher's kernel or CUB's, as the benchmark launches
# them; docs/performance.md, "Known misses and why"). ncu leaves the
# clocks alone (--clock-control none): kernels run at the clocks the GPU picks.
# The report lands in $OUT/ncu_NAME.log, the key lines are printed, then a table of
# the warp stall reasons (cycles per issued instruction) and the instruction mix.
#   scripts/gpu_ncu.sh NAME KERNEL_REGEX TUNE_OPTIONS...
#   scripts/gpu_ncu.sh warp single_pass_kernel --algorithms lookback_warp,warp_scans \
#     --block-threads 384 --items-per-thread 28 --tile-io wxpose
#   MODE=bench scripts/gpu_ncu.sh cub_int32 DeviceScanKernel
#   MODE=bench SIZES=2^24 scripts/gpu_ncu.sh st_int32 'single_pass|bulk_kernel|pipelined_kernel'
# TYPE, OP and SIZES pick the problem (default int32 sum at 2^28). SKIP launches of
# the kernel are skipped first (default: 40 for tune, past verification at small
# sizes and warm-up; 5 for bench, past its verification and warm-up). NAME_BASE=mangled
# matches KERNEL_REGEX against the mangled name, whose template arguments name the
# policy (`policy<7, 256, 16, ...>` reads `ILi7ELi256ELi16`): one shape of a bench that
# also launches the dispatcher's, e.g. a segmented one through --policy:
#   MODE=bench SIZES=2^26 NAME_BASE=mangled scripts/gpu_ncu.sh seg256 \
#     'segmented_bulk_kernel.*ILi7ELi256ELi16' --segments flags:random \
#     --policy int32=lookback_bulk.tpb256.ipt16.vec4.warp_scans.st4
set -uo pipefail
BUILD=${BUILD:-build-gpu}
OUT=${OUT:-/tmp/scantune-out}
MODE=${MODE:-tune}
name=$1 kernel=$2
shift 2
mkdir -p "$OUT"
if [ "$MODE" = bench ]; then
  skip=${SKIP:-5}
  cmd=("$BUILD/tuner/scantune" bench --type "${TYPE:-int32}" --op "${OP:-sum}" --kind inclusive
    --sizes "${SIZES:-2^28}" "$@")
else
  skip=${SKIP:-40}
  cmd=("$BUILD/tuner/scantune" tune --type "${TYPE:-int32}" --op "${OP:-sum}" --kind inclusive
    --sizes "${SIZES:-2^28}" --strategy exhaustive --vector-bytes 16 --backoff 0 --cache default
    --progress quiet --db "/tmp/ncu_$name.db" "$@")
fi
report=/tmp/ncu_$name
SCANTUNE_KERNEL_CACHE=/tmp/scantune-kcache timeout 300 ncu --clock-control none \
  ${NAME_BASE:+--kernel-name-base "$NAME_BASE"} \
  --kernel-name "regex:$kernel" --launch-skip "$skip" --launch-count 1 --section SpeedOfLight \
  --section LaunchStats --section Occupancy --section WarpStateStats \
  --section MemoryWorkloadAnalysis --section InstructionStats -o "$report" -f \
  "${cmd[@]}" >"$OUT/ncu_$name.run.log" 2>&1
ncu --import "$report.ncu-rep" --page details >"$OUT/ncu_$name.log" 2>&1
ncu --import "$report.ncu-rep" --page raw --csv --print-metric-instances details \
  >"$OUT/ncu_$name.raw.csv" 2>&1
grep -E "Duration|DRAM Throughput|Grid Size|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Static Shared|stalled waiting" \
  "$OUT/ncu_$name.log"
python3 "$(dirname "$0")/ncu_summary.py" "$OUT/ncu_$name.raw.csv"
