// CUB's compactions as the baselines of `bench --select` (private to the tuner), defined
// in cub_baseline_select.cu.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "scantune/scantune.hpp"

namespace scantune::tuner::gpu::cub_baseline {

/// One CUB compaction of n items of `item_bytes` (1, 2, 4 or 8) bytes: SelectFlagged runs
/// DeviceSelect::Flagged, Unique DeviceSelect::Unique (neighbours compared as words, bit
/// for bit), PartitionFlagged DevicePartition::Flagged (the rejected items after the
/// selected ones in reverse order, as CUB writes them; `flags` null for Unique). Items are
/// moved as words, never read as numbers, so one instantiation per width serves every
/// element type. CUB's convention: temp == nullptr only sets temp_bytes. Returns
/// cudaErrorInvalidValue for another width or compaction.
cudaError_t compact(Compaction how, std::size_t item_bytes, const void* in,
                    const std::uint8_t* flags, void* out, std::uint64_t* d_num_selected,
                    std::size_t n, void* temp, std::size_t& temp_bytes, cudaStream_t stream);

} // namespace scantune::tuner::gpu::cub_baseline
