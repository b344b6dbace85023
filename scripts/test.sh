#!/usr/bin/env bash
# Sets up, builds and runs every test. On a machine without a GPU (or without a
# driver) the Gpu* suites report as skipped; everything else runs for real.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# The benchmark drivers are no tests: they are built by scripts/build.sh, not here.
SCANTUNE_WERROR=${SCANTUNE_WERROR:-ON} scripts/build.sh -DSCANTUNE_BUILD_BENCH=OFF
cd "${BUILD_DIR:-build}"
# Tests must not touch the user's real kernel cache or tuning database.
export SCANTUNE_KERNEL_CACHE="$PWD/test-kernel-cache" SCANTUNE_DB="$PWD/test-tuning.db"
ctest -j"$(nproc)" --output-on-failure --timeout 900
