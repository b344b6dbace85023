#!/usr/bin/env bash
# Packs a build folder (BUILD, default build-gpu) for a GPU machine that receives the
# working tree but not the build (the device tool: `carry: [".gpu"]`): the CLI, the
# library and the three test binaries holding Gpu* suites (and the NCCL component's tests
# and bench where built), stripped (unstripped they pass the 64 MiB a call may carry), in
# OUT.tar.xz (default .gpu/build.tar.xz), plus the libraries they need that such a machine
# may lack (fmt, SQLite) in .gpu/lib. On the GPU machine, from the repository root:
#   scripts/gpu_run.sh suites   # or by hand:
#   tar xJf .gpu/build.tar.xz && LD_LIBRARY_PATH=$PWD/.gpu/lib scripts/gpu_check.sh suites
#   nl=$(python3 -c 'import nvidia.nccl as m, os; print(os.path.join(list(m.__path__)[0], "lib"))')
#   NCCL_NVLS_ENABLE=0 LD_LIBRARY_PATH=$PWD/.gpu/lib:$nl build-gpu/tests/nccl/scantune_nccl_tests
# The test binaries find the CLI and their data through paths of this machine's
# checkout: make that path point at the copy there when it differs (ln -s).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-gpu}
OUT=${OUT:-.gpu/build}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
for f in tuner/scantune tests/runtime/scantune_runtime_tests tests/tuner/scantune_tuner_tests \
  tests/tuner/scantune_cli_inspect_tests runtime/libscantune.so.0.1.0; do
  mkdir -p "$stage/$BUILD/$(dirname "$f")"
  strip -o "$stage/$BUILD/$f" "$BUILD/$f"
done
ln -s libscantune.so.0.1.0 "$stage/$BUILD/runtime/libscantune.so.0"
ln -s libscantune.so.0 "$stage/$BUILD/runtime/libscantune.so"
# The NCCL component's tests and benchmark where it was built. libnccl itself (200 MB)
# stays behind: the GPU machine's own (its Python's nvidia-nccl) goes on LD_LIBRARY_PATH.
if [ -e "$BUILD/runtime/nccl/libscantune_nccl.so.0.1.0" ]; then
  for f in runtime/nccl/libscantune_nccl.so.0.1.0 tests/nccl/scantune_nccl_tests \
    bench/scantune_nccl_bench; do
    [ -e "$BUILD/$f" ] || continue
    mkdir -p "$stage/$BUILD/$(dirname "$f")"
    strip -o "$stage/$BUILD/$f" "$BUILD/$f"
  done
  ln -s libscantune_nccl.so.0.1.0 "$stage/$BUILD/runtime/nccl/libscantune_nccl.so.0"
fi
cp -r "$BUILD/tests/tuner/data" "$stage/$BUILD/tests/tuner/"
mkdir -p "$(dirname "$OUT")" .gpu/lib
pwd >.gpu/origin # the checkout the binaries were built in (scripts/gpu_run.sh links it)
tar cf - -C "$stage" "$BUILD" | xz -T0 -6 >"$OUT.tar.xz"
for lib in $(ldd "$BUILD/tuner/scantune" | awk '/libfmt|libsqlite3/ {print $3}'); do
  cp -L "$lib" .gpu/lib/
done
echo "$OUT.tar.xz: $(du -h "$OUT.tar.xz" | cut -f1); libraries in .gpu/lib"
