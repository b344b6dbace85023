#!/usr/bin/env bash
# Configures and builds scantune into BUILD_DIR (default: build). Extra arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B "$BUILD_DIR" -DSCANTUNE_WERROR=${SCANTUNE_WERROR:-OFF} "$@" >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
