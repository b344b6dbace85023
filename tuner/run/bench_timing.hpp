// The device buffer, stream and call timing the compaction and sort benchmarks and
// their tuner share: the median of back-to-back calls between CUDA events, as the tuner
// times its baselines.
#pragma once

#include <algorithm>
#include <functional>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"
#include "tuner/gpu/timing.hpp"

namespace scantune::tuner {

/// `count` elements of T in device memory, freed on scope exit.
template <class T>
struct Device {
  T* ptr = nullptr;
  explicit Device(std::size_t count) {
    SCANTUNE_CUDA_TRY(
        cudaMalloc(reinterpret_cast<void**>(&ptr), std::max<std::size_t>(count, 1) * sizeof(T)));
  }
  ~Device() { cudaFree(ptr); }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
};

/// A non-blocking stream of its own, destroyed on scope exit.
struct OwnStream {
  cudaStream_t stream = nullptr;
  OwnStream() { SCANTUNE_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); }
  ~OwnStream() { cudaStreamDestroy(stream); }
  OwnStream(const OwnStream&) = delete;
  OwnStream& operator=(const OwnStream&) = delete;
};

// The median ns of one call, from back-to-back calls between CUDA events.
inline double time_call(const std::function<void()>& call, cudaStream_t stream) {
  cudaEvent_t start, stop;
  SCANTUNE_CUDA_TRY(cudaEventCreate(&start));
  SCANTUNE_CUDA_TRY(cudaEventCreate(&stop));
  auto sample = [&](int calls) {
    SCANTUNE_CUDA_TRY(cudaEventRecord(start, stream));
    for (int c = 0; c < calls; ++c)
      call();
    SCANTUNE_CUDA_TRY(cudaEventRecord(stop, stream));
    SCANTUNE_CUDA_TRY(cudaEventSynchronize(stop));
    float ms = 0;
    SCANTUNE_CUDA_TRY(cudaEventElapsedTime(&ms, start, stop));
    return static_cast<double>(ms) * 1e6 / calls;
  };
  sample(1); // warm: compiles, workspaces
  const int calls = calls_per_sample(sample(1));
  std::vector<double> samples;
  for (int s = 0; s < 9; ++s)
    samples.push_back(sample(calls));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return summarize(samples).median_ns;
}

} // namespace scantune::tuner
