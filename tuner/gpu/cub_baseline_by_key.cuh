// CUB's scan by key as the baseline of segmented scans (private to the tuner): the
// typed entry point gpu_support.cu dispatches to, defined in cub_baseline_by_key.cu.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "scantune/scantune.hpp"

namespace scantune::tuner::gpu::cub_baseline {

/// One cub::DeviceScan::InclusiveScanByKey / ExclusiveScanByKey call on n elements
/// of T, a segment being a run of equal keys, with CUB's convention: temp ==
/// nullptr only sets temp_bytes. `init` starts every segment of an exclusive scan.
/// Sums only (what InclusiveSumByKey runs, with an init for exclusive scans): each
/// operator costs a dozen CUB instantiations of compile time. Returns
/// cudaErrorInvalidValue for other operators and n >= 2^32.
template <class T>
cudaError_t scan_by_key(Op op, ScanKind kind, const std::int32_t* keys, const T* in, T* out,
                        std::size_t n, T init, void* temp, std::size_t& temp_bytes,
                        cudaStream_t stream);

} // namespace scantune::tuner::gpu::cub_baseline
