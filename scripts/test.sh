#!/usr/bin/env bash
# Sets up, builds and runs every test. On a machine without a GPU (or without a
# driver) the Gpu* suites report as skipped; everything else runs for real.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# The benchmark drivers are no tests: they are built by scripts/build.sh, not here.
# The tests' build type "Test" has no debug info and C++ at -O1 (CUDA host code at -O2,
# where gcc -O1 misreads CUB as using uninitialized values): at -O2 -g compiling took two
# thirds of CI's time. The tuner's CUB baselines only run on a GPU: without one they are
# left out (stand-ins that throw; they were a quarter of this build) and the device
# helpers are compiled for sm_90 alone; with one, for it ("native").
archs=90 cub=OFF
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then archs=native cub=ON; fi
SCANTUNE_WERROR=${SCANTUNE_WERROR:-ON} scripts/build.sh -DSCANTUNE_BUILD_BENCH=OFF \
  -DSCANTUNE_CUB_BASELINES="${SCANTUNE_CUB_BASELINES:-$cub}" \
  -DCMAKE_BUILD_TYPE=Test -DCMAKE_CXX_FLAGS_TEST="-O1 -DNDEBUG" \
  -DCMAKE_CUDA_FLAGS_TEST="-O2 -DNDEBUG" -DCMAKE_CUDA_ARCHITECTURES="${SCANTUNE_CUDA_ARCHS:-$archs}"
cd "${BUILD_DIR:-build}"
# Tests must not touch the user's real kernel cache or tuning database.
export SCANTUNE_KERNEL_CACHE="$PWD/test-kernel-cache" SCANTUNE_DB="$PWD/test-tuning.db"
ctest -j"$(nproc)" --output-on-failure --timeout 900
