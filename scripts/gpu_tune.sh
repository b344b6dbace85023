#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with a build folder made on the
# development machine (BUILD, default build-gpu): the tuner's GPU tests, two timed
# `scantune tune` runs of int32 inclusive sums, and the exhaustive search over the
# same space (for comparison). Everything lands in $OUT: logs, and the databases
# with the full progress logs in results.tar.xz.
#   scripts/gpu_tune.sh [tests] [tune] [exhaustive]
#   EXH_SIZES=2^10:2^20:1 EXH_BUDGET=5m scripts/gpu_tune.sh exhaustive
#   AGAINST=exhaustive.db scripts/gpu_tune.sh tune   # run 1 re-timed against that DB's winners
#   scripts/gpu_tune.sh builtin    # the tuning behind runtime/builtin/ (builtin.db)
#   BUILTIN_PROBLEMS='--type int32 --op max --kind inclusive' scripts/gpu_tune.sh builtin
#   scripts/gpu_tune.sh untuned    # the dispatcher at sizes the built-in table lacks
#   PROBLEMS='int32/min/inclusive uint8/sum/inclusive' DEADLINE=540 scripts/gpu_tune.sh problems
#     # each problem from scratch into $WORK/problems.db, in order, until DEADLINE seconds
#     # (SIGINT: the interrupted one resumes); run again with the same WORK to go on
# Run 2 is always re-timed against run 1's winners (`--against`).
set -uo pipefail
BUILD=${BUILD:-build-gpu}
OUT=${OUT:-/tmp/scantune-out}
WORK=${WORK:-/tmp/scantune-tune}
mkdir -p "$OUT" "$WORK"
CLI="$BUILD/tuner/scantune"
PROBLEM=(--type int32 --op sum --kind inclusive)
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(tests tune)
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv | tee "$OUT/device.txt"
rc=0
# Packs what exists so far: a step cut short by the command's time limit still
# leaves the earlier steps' databases and logs.
pack() { (cd "$WORK" && tar -cJf "$OUT/results.tar.xz" --exclude=kcache . 2>/dev/null); }
# timed_tune LABEL LOG ARGS...: `scantune tune ARGS`, appended to LOG; the exit code
# and wall time go to the summary, a failure to rc; then the results are packed.
timed_tune() {
  local label=$1 log=$2 start s secs
  shift 2
  start=$(date +%s.%N)
  SCANTUNE_KERNEL_CACHE="$WORK/kcache" "$CLI" tune "$@" --progress lines >>"$log" 2>&1
  s=$?
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  echo "$label: exit $s, ${secs} s wall" | tee -a "$OUT/summary.txt"
  [ $s -eq 0 ] || rc=1
  pack
}
for step in "${steps[@]}"; do
  case "$step" in
    tests)
      SCANTUNE_KERNEL_CACHE=off "$BUILD/tests/tuner/scantune_tuner_tests" --gtest_filter='Gpu*' 2>&1 |
        tee "$OUT/tuner_gpu_tests.log" | grep -E '^\[ +(OK|FAILED|SKIPPED) |PASSED|FAILED|Failure' | tail -40
      [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1 ;;
    tune)
      # Run 1 starts with an empty kernel cache (every candidate compiled by NVRTC);
      # run 2 is a second, independent run into its own database.
      rm -rf "$WORK/kcache"
      for r in 1 2; do
        against=()
        [ $r -eq 1 ] && [ -n "${AGAINST:-}" ] && against=(--against "$AGAINST")
        [ $r -eq 2 ] && against=(--against "$WORK/tune1.db")
        timed_tune "tune run $r" "$WORK/tune$r.log" "${PROBLEM[@]}" --db "$WORK/tune$r.db" \
          "${against[@]}"
        grep -E '^\|' "$WORK/tune$r.log" | tee -a "$OUT/summary.txt"
        grep -E 'measurements .* in |tuned|worst ratio|^against' "$WORK/tune$r.log" | tee -a "$OUT/summary.txt"
      done ;;
    exhaustive)
      timed_tune "exhaustive (${EXH_SIZES:-2^10:2^30:1})" "$WORK/exhaustive.log" "${PROBLEM[@]}" \
        --strategy exhaustive --sizes "${EXH_SIZES:-2^10:2^30:1}" ${EXH_BUDGET:+--budget $EXH_BUDGET} \
        --db "$WORK/exhaustive.db"
      grep -E '^\|' "$WORK/exhaustive.log" | tee -a "$OUT/summary.txt" ;;
    builtin)
      # The run behind runtime/builtin/ (the library's built-in H100 table; export, then
      # scantune_builtin_gen --table: docs/dispatch.md, "The built-in table"):
      # BUILTIN_SIZES (default even exponents; 2^11:2^29:2 for the odd ones), into
      # $WORK/builtin.db (BUILTIN_DB, when set, is copied there first: runs accumulate).
      # BUILTIN_PROBLEMS (';'-separated tune options) replaces the default problem list.
      [ -n "${BUILTIN_DB:-}" ] && cp "$BUILTIN_DB" "$WORK/builtin.db"
      IFS=';' read -r -a problems <<<"${BUILTIN_PROBLEMS:-"--type int32,float32,int64,float64 --op sum --kind inclusive,exclusive;--type int32,float32 --op max --kind inclusive"}"
      for problem in "${problems[@]}"; do
        # shellcheck disable=SC2086
        timed_tune "builtin ($problem)" "$WORK/builtin.log" $problem \
          --sizes "${BUILTIN_SIZES:-2^10:2^30:2}" --db "$WORK/builtin.db"
      done
      grep -E '^\|' "$WORK/builtin.log" | tee -a "$OUT/summary.txt" ;;
    problems)
      # A problem list through calls with a time limit: $WORK/done.txt keeps the finished
      # ones, --resume picks up the one a deadline interrupted. Converting types take the
      # even buckets their table rows have. Then the export scantune_builtin_gen merges.
      start=$(date +%s)
      touch "$WORK/done.txt"
      for problem in ${PROBLEMS:?}; do
        grep -qx "$problem" "$WORK/done.txt" && continue
        left=$(( ${DEADLINE:-540} - ($(date +%s) - start) ))
        [ $left -lt 30 ] && break
        IFS=/ read -r ptype pop pkind <<<"$problem"
        sizes=()
        case $ptype in *:*|int8|uint8|int16|uint16|float16|bfloat16) sizes=(--sizes 2^10:2^30:2) ;; esac
        SCANTUNE_KERNEL_CACHE="$WORK/kcache" timeout -s INT -k 20 $left "$CLI" tune --type "$ptype" \
          --op "$pop" --kind "$pkind" "${sizes[@]}" --resume --db "$WORK/problems.db" \
          --progress lines >>"$WORK/problems.log" 2>&1
        s=$?
        echo "$problem: exit $s" | tee -a "$OUT/summary.txt"
        [ $s -eq 0 ] && echo "$problem" >>"$WORK/done.txt"
      done
      "$CLI" export --db "$WORK/problems.db" --no-measurements --out "$OUT/problems-export.json"
      grep -E 'split between|kept what|replaced what' "$WORK/problems.log" | tee -a "$OUT/summary.txt"
      pack ;;
    untuned)
      # Sizes between the built-in table's buckets, tuned into an empty database:
      # each row's duel times the dispatcher's choice (the incumbent) against the
      # search's best, and notes "dispatch (builtin) 1.0xx" where the search won.
      # shellcheck disable=SC2086
      timed_tune "untuned sizes" "$WORK/untuned.log" --type ${UNTUNED_TYPES:-int32,float64} \
        --op sum --kind inclusive --sizes "${UNTUNED_SIZES:-2^11:2^29:2,3000000,100000000}" \
        --db "$WORK/untuned.db"
      grep -E '^\||^int|^float' "$WORK/untuned.log" | tee -a "$OUT/summary.txt" ;;
  esac
done
exit $rc
