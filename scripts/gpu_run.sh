#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, over what scripts/gpu_stage.sh packed
# into .gpu (the device tool: `carry: [".gpu"]`): unpacks the build, points the path of
# the checkout it was built in at this copy (the test binaries find the CLI and their data
# through it), runs scripts/gpu_check.sh STEPS (default: suites) with its logs in $OUT/r,
# and packs them into $OUT/results.tgz (a run returns only a few files). The full suite
# takes about 6.5 minutes of a call's 10 on an H200: SHARDS and SHARD_TIMEOUT default to
# 14 and 400 s (at 370 s most shards were cut inside the long tests).
#   scripts/gpu_run.sh suites
#   SANITIZE_FILTER='GpuSanitizeCompaction.*' scripts/gpu_run.sh sanitize
set -uo pipefail
cd "$(dirname "$0")/.."
tar xJf .gpu/build.tar.xz || exit 1
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
origin=$(cat .gpu/origin 2>/dev/null)
if [ -n "$origin" ] && [ ! -e "$origin" ]; then
  mkdir -p "$(dirname "$origin")" && ln -s "$PWD" "$origin"
fi
OUT=${OUT:-/tmp/scantune-out}
mkdir -p "$OUT/r"
[ $# -eq 0 ] && set -- suites
SHARDS=${SHARDS:-14} SHARD_TIMEOUT=${SHARD_TIMEOUT:-400} OUT="$OUT/r" scripts/gpu_check.sh "$@"
rc=$?
tar czf "$OUT/results.tgz" -C "$OUT" r
exit $rc
