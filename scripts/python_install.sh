#!/usr/bin/env bash
# Builds libscantune and installs the Python package `scantune` with pip, offline
# (no index, no build isolation, no dependencies: setuptools and wheel come from the
# system, e.g. Debian's python3-setuptools and python3-wheel).
#
#   scripts/python_install.sh                  # into the current venv, else --user
#   scripts/python_install.sh --target DIR     # any pip install options instead
#
# Environment: PYTHON (default python3), BUILD_DIR (default build; configured with
# the library alone, -DSCANTUNE_BUILD_CLI=OFF, if it is not configured yet).
# The package is staged in $BUILD_DIR/python-package with a copy of the library in
# scantune/_lib, so the source tree stays clean.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
BUILD_DIR=${BUILD_DIR:-build}
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  PATH=/usr/local/cuda/bin:$PATH cmake -S . -B "$BUILD_DIR" -DSCANTUNE_BUILD_CLI=OFF
fi
cmake --build "$BUILD_DIR" -j"$(nproc)" --target scantune

stage="$BUILD_DIR/python-package"
rm -rf "$stage"
mkdir -p "$stage"
cp -r python/pyproject.toml python/scantune "$stage"/
find "$stage" -name __pycache__ -prune -exec rm -rf {} +
mkdir -p "$stage/scantune/_lib"
cp "$(readlink -f "$BUILD_DIR/runtime/libscantune.so")" "$stage/scantune/_lib/libscantune.so.0"

if [ $# -eq 0 ]; then
  # Outside a virtual environment: a user install; Debian's system Python also
  # needs --break-system-packages (PEP 668), which only touches ~/.local.
  if ! "$PYTHON" -c 'import sys; sys.exit(sys.prefix == sys.base_prefix)'; then
    set -- --user
    managed=$("$PYTHON" -c 'import sysconfig, os; print(os.path.exists(os.path.join(sysconfig.get_paths()["stdlib"], "EXTERNALLY-MANAGED")))')
    [ "$managed" = True ] && set -- "$@" --break-system-packages
  fi
fi
"$PYTHON" -m pip install --no-index --no-build-isolation --no-deps "$@" "$stage"
