// What the tuner links instead of the cub_baseline_*.cu files where CUB's baselines are
// not built (-DSCANTUNE_CUB_BASELINES=OFF: scripts/test.sh without a GPU, where none of
// them can run and compiling them was a quarter of the test build). Every entry point
// throws an Error that says so; the argument checks before them stay (gpu_support.cu).
#include <cstdint>

#include "tuner/gpu/cub_baseline.cuh"
#include "tuner/gpu/cub_baseline_by_key.cuh"
#include "tuner/gpu/cub_baseline_select.cuh"
#include "tuner/gpu/cub_baseline_sort.cuh"
#include "tuner/gpu/gpu_support.hpp"

namespace scantune::tuner::gpu {
namespace {

[[noreturn]] void not_built() {
  throw Error("scantune tuner: CUB's baselines are not built in this build (configured with "
              "-DSCANTUNE_CUB_BASELINES=OFF)",
              ErrorKind::Unsupported);
}

} // namespace

namespace cub_baseline {

template <class T>
cudaError_t scan(Op, ScanKind, const T*, T*, std::size_t, T, void*, std::size_t&, cudaStream_t) {
  not_built();
}

template <class T>
cudaError_t scan_twin(Twin, ScanKind, const T*, T*, std::size_t, T, void*, std::size_t&,
                      cudaStream_t) {
  not_built();
}

template <class T, class K>
cudaError_t scan_by_key(Op, ScanKind, const K*, const T*, T*, std::size_t, T, void*, std::size_t&,
                        cudaStream_t) {
  not_built();
}

cudaError_t compact(Compaction, std::size_t, const void*, const std::uint8_t*, void*,
                    std::uint64_t*, std::size_t, void*, std::size_t&, cudaStream_t) {
  not_built();
}

cudaError_t radix_sort(DataType, const void*, void*, const void*, void*, std::size_t, std::size_t,
                       void*, std::size_t&, cudaStream_t) {
  not_built();
}

} // namespace cub_baseline

std::size_t cub_convert_temp_bytes(const ScanTypes&, std::size_t) {
  not_built();
}

void cub_convert_scan(const ScanTypes&, const void*, void*, std::size_t, void*, std::size_t,
                      cudaStream_t) {
  not_built();
}

} // namespace scantune::tuner::gpu

#define SCANTUNE_CUB_BASELINES_OFF_INSTANTIATE(T)                                                  \
  SCANTUNE_CUB_BASELINE_INSTANTIATE(T);                                                            \
  SCANTUNE_CUB_TWIN_INSTANTIATE(T)
SCANTUNE_CUB_BASELINES_OFF_INSTANTIATE(std::int32_t);
SCANTUNE_CUB_BASELINES_OFF_INSTANTIATE(std::uint32_t);
SCANTUNE_CUB_BASELINES_OFF_INSTANTIATE(std::int64_t);
SCANTUNE_CUB_BASELINES_OFF_INSTANTIATE(std::uint64_t);
SCANTUNE_CUB_BASELINES_OFF_INSTANTIATE(float);
SCANTUNE_CUB_BASELINES_OFF_INSTANTIATE(double);
SCANTUNE_CUB_BY_KEY_INSTANTIATE(std::int32_t);
SCANTUNE_CUB_BY_KEY_INSTANTIATE(std::uint64_t);
