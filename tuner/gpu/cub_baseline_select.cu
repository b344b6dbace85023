// CUB's DeviceSelect::Flagged for 4- and 8-byte items (see cub_baseline_select.cuh).
#include "tuner/gpu/cub_baseline_select.cuh"

#include <cub/device/device_select.cuh>

namespace scantune::tuner::gpu::cub_baseline {
namespace {

template <class W>
cudaError_t flagged(const void* in, const std::uint8_t* flags, void* out,
                    std::uint64_t* d_num_selected, std::size_t n, void* temp,
                    std::size_t& temp_bytes, cudaStream_t stream) {
  return cub::DeviceSelect::Flagged(temp, temp_bytes, static_cast<const W*>(in), flags,
                                    static_cast<W*>(out), d_num_selected,
                                    static_cast<::cuda::std::int64_t>(n), stream);
}

} // namespace

cudaError_t select_flagged(std::size_t item_bytes, const void* in, const std::uint8_t* flags,
                           void* out, std::uint64_t* d_num_selected, std::size_t n, void* temp,
                           std::size_t& temp_bytes, cudaStream_t stream) {
  if (item_bytes == 4)
    return flagged<std::uint32_t>(in, flags, out, d_num_selected, n, temp, temp_bytes, stream);
  if (item_bytes == 8)
    return flagged<std::uint64_t>(in, flags, out, d_num_selected, n, temp, temp_bytes, stream);
  return cudaErrorInvalidValue;
}

} // namespace scantune::tuner::gpu::cub_baseline
