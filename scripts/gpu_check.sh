#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with a build folder made on
# the development machine (BUILD, default build-gpu): the GPU test suites,
# compute-sanitizer on the small suite, and the benchmark. Logs go to $OUT.
# scripts/gpu_run.sh runs it over a build that scripts/gpu_stage.sh packed.
#   scripts/gpu_check.sh [tests|suites] [sanitize] [bench] [cache] [clibench] [segmented] [python] [example]
# tests: GTEST_FILTER picks the suites (default every Gpu* test), SHARDS=N runs them as
# N processes side by side (gpu_tests.I.log each), balanced by scripts/gpu_test_times.txt
# (the longest test, about 5 minutes on an H100, bounds the wall time). suites: the same
# with 12 shards by default, beside the tuner's and the CLI's Gpu* suites: what a change
# to kernels or dispatch runs. sanitize: memcheck and racecheck on SANITIZE_FILTER
# (default GpuSanitize*), memcheck alone on GpuMemcheck* too (mbarrier rings that wrap,
# where racecheck reports hazards of its own: docs/decisions.md). example: examples/
# built against an install in $BUILD/prefix (LD_LIBRARY_PATH, as the install's RPATH is
# this machine's).
# bench: `scantune bench` of int32/float32/int64/float64 sums (BENCH_ARGS, if set,
# replaces those options) to bench.md/.json/.csv.
# clibench: `scantune bench` with every algorithm (bench_all.md/.json/.svg), the
# CLI's Gpu* tests, and `scantune plot` of the database $DB (when set) to tuning.svg.
#   DB=tuning.db PLOT_ARGS='--device H100 --type int32' scripts/gpu_check.sh clibench
# segmented: `scantune bench --segments` (rows, periodic and random head flags) against
# CUB's scan by key, int32 and float32, at SEG_SIZES (default 2^20,2^24,2^28), to segmented.md.
# python: the package's GPU tests (pytest -m gpu) against torch/cupy/jax and
# tests/python/bench_cumsum.py, with $BUILD/runtime/libscantune.so, to python.log/python.md.
# matrix: `scantune bench` of every type x sum/min/max x inclusive/exclusive at
# MATRIX_SIZES (default 2^16,2^20,2^24,2^26,2^28,2^30: each target band of issue 7,
# about 5 minutes on the H100), one markdown table each in matrix.md.
set -uo pipefail
BUILD=${BUILD:-build-gpu}
OUT=${OUT:-/tmp/scantune-out}
mkdir -p "$OUT"
export SCANTUNE_KERNEL_CACHE=${SCANTUNE_KERNEL_CACHE:-/tmp/scantune-kcache}
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(tests sanitize bench)
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv | tee "$OUT/device.txt"
rc=0
# launch_shards BINARY FILTER N NAME: N background processes running BINARY's tests of
# FILTER, logging to $OUT/NAME.I.log (NAME.log for one); appends to logs and pids. The
# tests go to the processes by their recorded times (scripts/gpu_shards.py, SHARD_TIMES,
# default scripts/gpu_test_times.txt: gtest's sharding by index had left 445 s of tests
# in one of 13 shards and 127 s in another), or without python3 by gtest's sharding.
launch_shards() {
  local bin=$1 filter=$2 n=$3 name=$4 i log filters=()
  if [ "$n" -gt 1 ] && command -v python3 >/dev/null; then
    mapfile -t filters < <("$bin" --gtest_list_tests --gtest_filter="$filter" |
      python3 scripts/gpu_shards.py plan --shards "$n" \
        --times "${SHARD_TIMES:-scripts/gpu_test_times.txt}" 2>/dev/null)
  fi
  for ((i = 0; i < n; i++)); do
    log="$OUT/$name.$i.log"
    [ "$n" -eq 1 ] && log="$OUT/$name.log"
    if [ ${#filters[@]} -gt 0 ]; then
      [ "$i" -lt ${#filters[@]} ] || break
      timeout "${SHARD_TIMEOUT:-600}" "$bin" --gtest_filter="${filters[$i]}" >"$log" 2>&1 &
    else
      GTEST_TOTAL_SHARDS=$n GTEST_SHARD_INDEX=$i timeout "${SHARD_TIMEOUT:-600}" "$bin" \
        --gtest_filter="$filter" >"$log" 2>&1 &
    fi
    logs+=("$log")
    pids+=($!)
  done
}
for step in "${steps[@]}"; do
  case "$step" in
    tests | suites)
      # SHARDS=N: N processes side by side on the GPU, each with its log; SHARD_TIMEOUT
      # (seconds, default 600) bounds each. `suites` adds the tuner's Gpu* suites as two
      # more processes and the CLI's as one (default 12 runtime shards). Tests are dealt
      # out by their recorded times (launch_shards); this run's go to $OUT/gpu_test_times.txt.
      shards=${SHARDS:-1} logs=() pids=()
      [ "$step" = suites ] && shards=${SHARDS:-12}
      launch_shards "$BUILD/tests/runtime/scantune_runtime_tests" "${GTEST_FILTER:-*Gpu*}" \
        "$shards" gpu_tests
      if [ "$step" = suites ]; then
        launch_shards "$BUILD/tests/tuner/scantune_tuner_tests" '*Gpu*:*CompileWorker*' 2 \
          tuner_gpu_tests
        launch_shards "$BUILD/tests/tuner/scantune_cli_inspect_tests" '*Gpu*' 1 cli_gpu_tests
      fi
      for ((i = 0; i < ${#pids[@]}; i++)); do
        wait "${pids[$i]}"; s=$?
        echo "$(basename "${logs[$i]}"): exit $s; $(grep -E '^\[  (PASSED|FAILED) ' "${logs[$i]}" | tr '\n' ' ')"
        [ $s -eq 0 ] || rc=1
      done
      grep -hE '^\[  FAILED  \] [A-Za-z]' "${logs[@]}" | sort -u | tail -40
      command -v python3 >/dev/null &&
        python3 scripts/gpu_shards.py record "${logs[@]}" >"$OUT/gpu_test_times.txt" ;;
    sanitize)
      for tool in memcheck racecheck; do
        filter=${SANITIZE_FILTER:-GpuSanitize*}
        [ $tool = memcheck ] && filter="$filter:GpuMemcheck*"
        compute-sanitizer --tool $tool --error-exitcode 9 \
          "$BUILD/tests/runtime/scantune_runtime_tests" --gtest_filter="$filter" \
          >"$OUT/sanitize_$tool.log" 2>&1
        s=$?; echo "compute-sanitizer $tool: exit $s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize_$tool.log" | tail -1)"
        [ $s -eq 0 ] || rc=1
      done ;;
    bench)
      "$BUILD/tuner/scantune" bench ${BENCH_ARGS:---types int32,float32,int64,float64} \
        --json "$OUT/bench.json" --csv "$OUT/bench.csv" 2>&1 | tee "$OUT/bench.md" | tail -60
      [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1 ;;
    clibench)
      "$BUILD/tests/tuner/scantune_cli_inspect_tests" --gtest_filter='Gpu*' 2>&1 |
        tee "$OUT/clibench_tests.log" | grep -E '^\[ +(OK|FAILED|SKIPPED) |PASSED|FAILED' | tail -5
      [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
      start=$(date +%s)
      "$BUILD/tuner/scantune" bench --type int32 --op sum --kind inclusive --sizes 2^10:2^30:2 \
        --algorithms all --json "$OUT/bench_all.json" --plot "$OUT/bench_all.svg" 2> >(tee "$OUT/bench_all.log" >&2) | tee "$OUT/bench_all.md"
      [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
      echo "scantune bench: $(( $(date +%s) - start )) s"
      if [ -n "${DB:-}" ]; then
        # PLOT_ARGS picks one problem (and --device MODEL when $DB holds several).
        "$BUILD/tuner/scantune" plot --db "$DB" ${PLOT_ARGS:---type int32 --op sum --kind inclusive} \
          --out "$OUT/tuning.svg" || rc=1
      fi ;;
    matrix)
      for type in int32 uint32 float32 int64 uint64 float64; do
        for op in sum min max; do
          for kind in inclusive exclusive; do
            # Host-timed by default: the method of docs/performance.md's tables
            # (MATRIX_TIMING= times the GPU, as `scantune bench` does without it).
            "$BUILD/tuner/scantune" bench --type $type --op $op --kind $kind ${MATRIX_TIMING---host-bound} \
              --sizes "${MATRIX_SIZES:-2^16,2^20,2^24,2^26,2^28,2^30}" >>"$OUT/matrix.md" 2>>"$OUT/matrix.log" || rc=1
          done
        done
      done
      grep -cE '^\| 2\^' "$OUT/matrix.md" ;;
    segmented)
      for spec in flags:32 flags:1024 flags:random rows:1024 rows:16; do
        "$BUILD/tuner/scantune" bench --type int32,float32 --segments $spec \
          --sizes "${SEG_SIZES:-2^20,2^24,2^28}" >>"$OUT/segmented.md" 2>>"$OUT/segmented.log" || rc=1
      done
      grep -E '^\| 2\^' "$OUT/segmented.md" | head -40 ;;
    python)
      SCANTUNE_LIBRARY="$BUILD/runtime/libscantune.so" PYTHONPATH=python \
        python3 -m pytest tests/python -m gpu -q -p no:cacheprovider 2>&1 | tee "$OUT/python.log" | tail -5
      [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
      SCANTUNE_LIBRARY="$BUILD/runtime/libscantune.so" PYTHONPATH=python \
        python3 tests/python/bench_cumsum.py 2>&1 | tee "$OUT/python.md" | tail -15 ;;
    example)
      LD_LIBRARY_PATH="$BUILD/prefix/lib:${LD_LIBRARY_PATH:-}" "$BUILD/examples/inclusive_sum_example" 2>&1 |
        tee "$OUT/example.log"
      [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1 ;;
  esac
done
exit $rc
