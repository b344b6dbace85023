#!/usr/bin/env bash
# Sets up, builds and runs the main job on this machine's GPU:
# 1. tunes this GPU model into the user's tuning database (`scantune tune --all`, the
#    36-problem standard matrix): from scratch the first time, afterwards only the
#    buckets still missing; Ctrl-C and the same command resumes; progress and time left
#    are shown;
# 2. benchmarks dispatch through that database against CUB DeviceScan and device
#    memcpy (int32/float32/int64/float64 sums, 2^10..2^30);
# 3. prints where the database is and how to inspect it.
# Arguments go to `scantune bench` (e.g. --types int32 --sizes 2^20:2^30).
# SCANTUNE_RUN_TUNE=0 skips step 1. Exit 77: no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh -DCMAKE_BUILD_TYPE=Release
cli="${BUILD_DIR:-build}/tuner/scantune"
args=("$@")
case " $* " in
  *" --type"*) ;;
  *) args=(--types int32,float32,int64,float64 "${args[@]}") ;;
esac
if [ "${SCANTUNE_RUN_TUNE:-1}" != 0 ]; then
  "$cli" tune --all
fi
"$cli" bench "${args[@]}"
echo
"$cli" devices
echo "Inspect the tuned winners: $cli show [--type T --op OP --kind K]; export them:" \
  "$cli export --out tuned.json"
