// Device choice and memory fit (see gpu_device.hpp).
#include "tuner/gpu/gpu_device.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "tuner/gpu/gpu_evaluator.hpp"
#include "tuner/run/tune.hpp"
#include "tuner/search/search_space.hpp"

namespace scantune::tuner {

GpuCount count_gpus() {
  GpuCount g;
  const cudaError_t e = cudaGetDeviceCount(&g.count);
  if (e != cudaSuccess) {
    cudaGetLastError();
    g.count = 0;
    g.why_none = cudaGetErrorString(e);
  } else if (g.count == 0) {
    g.why_none = "0 devices";
  }
  return g;
}

int use_device(int requested, int count) {
  int ordinal = requested;
  if (ordinal < 0 && cudaGetDevice(&ordinal) != cudaSuccess) ordinal = 0;
  if (ordinal >= count)
    throw UsageError(fmt::format("device {} requested, {} present", ordinal, count));
  cudaSetDevice(ordinal);
  return ordinal;
}

std::vector<std::uint64_t> fitting_sizes(const std::vector<std::uint64_t>& sizes, DataType type,
                                         const std::function<void(const std::string&)>& note,
                                         std::uint64_t extra_per_element) {
  std::size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
    cudaGetLastError();
    return sizes;
  }
  int dev = 0;
  cudaGetDevice(&dev);
  int l2 = 0;
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
  const std::uint64_t reserve = (std::uint64_t{1} << 30) + total_b / 20;
  std::vector<std::uint64_t> out;
  for (std::uint64_t n : sizes) {
    const std::uint64_t need =
        gpu_evaluator_bytes(type, n, static_cast<std::uint64_t>(l2), extra_per_element) +
        n * size_of(type) / 8 + reserve;
    if (need <= free_b)
      out.push_back(n);
    else
      note(fmt::format("skipping n = {} for {}: needs {} MiB of device memory, {} MiB free",
                       size_label(n), to_string(type), need >> 20, free_b >> 20));
  }
  return out;
}

} // namespace scantune::tuner
