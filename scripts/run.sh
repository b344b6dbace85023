#!/usr/bin/env bash
# Sets up, builds and runs the main job on this machine's GPU: scantune against
# CUB DeviceScan and device memcpy (int32/float32/int64/float64 sums, 2^10..2^30).
# Arguments go to `scantune bench` (e.g. --types int32 --sizes 2^20:2^30). Exit 77: no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh -DCMAKE_BUILD_TYPE=Release
args=("$@")
case " $* " in
  *" --type"*) ;;
  *) args=(--types int32,float32,int64,float64 "${args[@]}") ;;
esac
exec "${BUILD_DIR:-build}/tuner/scantune" bench "${args[@]}"
