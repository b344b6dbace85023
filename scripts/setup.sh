#!/usr/bin/env bash
# Installs every Debian package the build and the tests need. The CUDA 13 toolkit
# (nvcc, NVRTC, cudart) is expected under /usr/local/cuda; no driver is needed.
set -euo pipefail
pkgs=(cmake g++ make libsqlite3-dev sqlite3 libgtest-dev libgmock-dev libcli11-dev libfmt-dev
      nlohmann-json3-dev python3 libxml2-utils
      python3-pytest python3-setuptools python3-pip python3-wheel)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
if [ ! -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
  echo "setup.sh: the CUDA 13 toolkit (nvcc, NVRTC) was not found under /usr/local/cuda" >&2
  exit 1
fi
