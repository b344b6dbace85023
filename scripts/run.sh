#!/usr/bin/env bash
# Sets up, builds and runs the main job on this machine's GPU: scantune against
# CUB DeviceScan and device memcpy (int32/float32/int64/float64 sums, 2^10..2^30).
# Arguments go to scantune_bench (e.g. --types int32 --sizes 20:30). Exit 77: no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh -DCMAKE_BUILD_TYPE=Release
exec "${BUILD_DIR:-build}/bench/scantune_bench" "$@"
