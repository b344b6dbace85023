// CUB's DeviceRadixSort for every key type, keys only or with 4- or 8-byte values (see
// cub_baseline_sort.cuh; 8-byte ones as torch.sort's int64 indices). Ascending only:
// eighteen instantiations already compile slowly.
#include "tuner/gpu/cub_baseline_sort.cuh"

#include <cstdint>

#include <cub/device/device_radix_sort.cuh>

namespace scantune::tuner::gpu::cub_baseline {
namespace {

template <class K>
cudaError_t sort(const void* keys_in, void* keys_out, const void* values_in, void* values_out,
                 std::size_t value_bytes, std::size_t n, void* temp, std::size_t& temp_bytes,
                 cudaStream_t stream) {
  const auto* k_in = static_cast<const K*>(keys_in);
  auto* k_out = static_cast<K*>(keys_out);
  const auto count = static_cast<::cuda::std::int64_t>(n);
  const int bits = int(8 * sizeof(K));
  if (!values_in)
    return cub::DeviceRadixSort::SortKeys(temp, temp_bytes, k_in, k_out, count, 0, bits, stream);
  if (value_bytes == 8)
    return cub::DeviceRadixSort::SortPairs(
        temp, temp_bytes, k_in, k_out, static_cast<const std::uint64_t*>(values_in),
        static_cast<std::uint64_t*>(values_out), count, 0, bits, stream);
  return cub::DeviceRadixSort::SortPairs(
      temp, temp_bytes, k_in, k_out, static_cast<const std::uint32_t*>(values_in),
      static_cast<std::uint32_t*>(values_out), count, 0, bits, stream);
}

} // namespace

cudaError_t radix_sort(DataType key, const void* keys_in, void* keys_out, const void* values_in,
                       void* values_out, std::size_t value_bytes, std::size_t n, void* temp,
                       std::size_t& temp_bytes, cudaStream_t stream) {
  return visit_type(key, [&](auto tag) {
    using K = decltype(tag);
    return sort<K>(keys_in, keys_out, values_in, values_out, value_bytes, n, temp, temp_bytes,
                   stream);
  });
}

} // namespace scantune::tuner::gpu::cub_baseline
