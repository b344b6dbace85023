// CUB's DeviceSelect::Flagged as the baseline of compaction (private to the tuner),
// defined in cub_baseline_select.cu.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace scantune::tuner::gpu::cub_baseline {

/// One cub::DeviceSelect::Flagged call on n items of `item_bytes` (4 or 8) bytes: the
/// items are moved, never read as numbers, so one instantiation per width serves every
/// element type. CUB's convention: temp == nullptr only sets temp_bytes. Returns
/// cudaErrorInvalidValue for another width.
cudaError_t select_flagged(std::size_t item_bytes, const void* in, const std::uint8_t* flags,
                           void* out, std::uint64_t* d_num_selected, std::size_t n, void* temp,
                           std::size_t& temp_bytes, cudaStream_t stream);

} // namespace scantune::tuner::gpu::cub_baseline
