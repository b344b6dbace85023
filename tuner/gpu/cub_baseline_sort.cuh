// CUB's DeviceRadixSort as the baseline of the radix sort (private to the tuner),
// defined in cub_baseline_sort.cu.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

#include "scantune/types.hpp"

namespace scantune::tuner::gpu::cub_baseline {

/// One ascending cub::DeviceRadixSort::SortKeys call on n keys of `key` (values_in
/// null), or SortPairs with values of `value_bytes` (4 or 8) moved as raw bits. CUB's
/// convention: temp == nullptr only sets temp_bytes.
cudaError_t radix_sort(DataType key, const void* keys_in, void* keys_out, const void* values_in,
                       void* values_out, std::size_t value_bytes, std::size_t n, void* temp,
                       std::size_t& temp_bytes, cudaStream_t stream);

} // namespace scantune::tuner::gpu::cub_baseline
