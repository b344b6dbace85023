#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with a build folder made on
# the development machine (BUILD, default build-gpu): the GPU test suites,
# compute-sanitizer on the small suite, and the benchmark. Logs go to $OUT.
#   scripts/gpu_check.sh [tests] [sanitize] [bench] [cache]
set -uo pipefail
BUILD=${BUILD:-build-gpu}
OUT=${OUT:-/tmp/scantune-out}
mkdir -p "$OUT"
export SCANTUNE_KERNEL_CACHE=${SCANTUNE_KERNEL_CACHE:-/tmp/scantune-kcache}
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(tests sanitize bench)
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv | tee "$OUT/device.txt"
rc=0
for step in "${steps[@]}"; do
  case "$step" in
    tests)
      "$BUILD/tests/runtime/scantune_runtime_tests" --gtest_filter="${GTEST_FILTER:-*Gpu*}" 2>&1 |
        tee "$OUT/gpu_tests.log" | grep -E '^\[ +(OK|FAILED|SKIPPED) |PASSED|FAILED|Failure|error' | tail -80
      [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1 ;;
    sanitize)
      for tool in memcheck racecheck; do
        compute-sanitizer --tool $tool --error-exitcode 9 \
          "$BUILD/tests/runtime/scantune_runtime_tests" --gtest_filter='GpuSanitize*' >"$OUT/sanitize_$tool.log" 2>&1
        s=$?; echo "compute-sanitizer $tool: exit $s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize_$tool.log" | tail -1)"
        [ $s -eq 0 ] || rc=1
      done ;;
    bench)
      if [ -x "$BUILD/bench/scantune_bench" ]; then
        "$BUILD/bench/scantune_bench" ${BENCH_ARGS:-} --json "$OUT/bench.json" 2>&1 | tee "$OUT/bench.md" | tail -60
      fi ;;
  esac
done
exit $rc
