// CUB's compactions of 1-, 2-, 4- and 8-byte items, moved as words of their width (see
// cub_baseline_select.cuh).
#include "tuner/gpu/cub_baseline_select.cuh"

#include <cub/device/device_partition.cuh>
#include <cub/device/device_select.cuh>

namespace scantune::tuner::gpu::cub_baseline {
namespace {

template <class W>
cudaError_t compact_words(Compaction how, const void* in, const std::uint8_t* flags, void* out,
                          std::uint64_t* d_num_selected, std::size_t n, void* temp,
                          std::size_t& temp_bytes, cudaStream_t stream) {
  const auto* items = static_cast<const W*>(in);
  auto* kept = static_cast<W*>(out);
  const auto count = static_cast<::cuda::std::int64_t>(n);
  switch (how) {
  case Compaction::SelectFlagged:
    return cub::DeviceSelect::Flagged(temp, temp_bytes, items, flags, kept, d_num_selected, count,
                                      stream);
  case Compaction::Unique:
    return cub::DeviceSelect::Unique(temp, temp_bytes, items, kept, d_num_selected, count, stream);
  case Compaction::PartitionFlagged:
    return cub::DevicePartition::Flagged(temp, temp_bytes, items, flags, kept, d_num_selected,
                                         count, stream);
  default:
    return cudaErrorInvalidValue;
  }
}

} // namespace

cudaError_t compact(Compaction how, std::size_t item_bytes, const void* in,
                    const std::uint8_t* flags, void* out, std::uint64_t* d_num_selected,
                    std::size_t n, void* temp, std::size_t& temp_bytes, cudaStream_t stream) {
  if (item_bytes == 1)
    return compact_words<std::uint8_t>(how, in, flags, out, d_num_selected, n, temp, temp_bytes,
                                       stream);
  if (item_bytes == 2)
    return compact_words<std::uint16_t>(how, in, flags, out, d_num_selected, n, temp, temp_bytes,
                                        stream);
  if (item_bytes == 4)
    return compact_words<std::uint32_t>(how, in, flags, out, d_num_selected, n, temp, temp_bytes,
                                        stream);
  if (item_bytes == 8)
    return compact_words<std::uint64_t>(how, in, flags, out, d_num_selected, n, temp, temp_bytes,
                                        stream);
  return cudaErrorInvalidValue;
}

} // namespace scantune::tuner::gpu::cub_baseline
