// GPU gate for Gpu* suites: they skip (and CTest reports them skipped) on
// machines without a CUDA device or driver.
#pragma once

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace scantune::test {

inline bool has_gpu() {
  static const bool present = [] {
    int count = 0;
    const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
    cudaGetLastError();
    return ok;
  }();
  return present;
}

class GpuTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!has_gpu()) GTEST_SKIP() << "no CUDA device";
  }
};

/// Device 0's compute capability, major * 10 + minor.
inline int device_arch() {
  cudaDeviceProp p{};
  SCANTUNE_CUDA_TRY(cudaGetDeviceProperties(&p, 0));
  return p.major * 10 + p.minor;
}

/// A device buffer of T, freed on scope exit.
template <class T>
struct DeviceBuffer {
  T* ptr = nullptr;
  std::size_t count = 0;
  explicit DeviceBuffer(std::size_t n) : count(n) {
    SCANTUNE_CUDA_TRY(
        cudaMalloc(reinterpret_cast<void**>(&ptr), std::max<std::size_t>(n, 1) * sizeof(T)));
  }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  // upload() and poison() complete before they return: a pageable cudaMemcpy may
  // return before its DMA lands, and cudaMemset is asynchronous; neither is ordered
  // with non-blocking streams.
  void upload(const std::vector<T>& v, std::size_t offset = 0) {
    SCANTUNE_CUDA_TRY(
        cudaMemcpy(ptr + offset, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    SCANTUNE_CUDA_TRY(cudaStreamSynchronize(cudaStreamLegacy));
  }
  std::vector<T> download(std::size_t n, std::size_t offset = 0) const {
    std::vector<T> v(n);
    SCANTUNE_CUDA_TRY(cudaMemcpy(v.data(), ptr + offset, n * sizeof(T), cudaMemcpyDeviceToHost));
    return v;
  }
  /// Fills with a byte pattern so unwritten outputs never look right.
  void poison() {
    SCANTUNE_CUDA_TRY(cudaMemset(ptr, 0xA5, std::max<std::size_t>(count, 1) * sizeof(T)));
    SCANTUNE_CUDA_TRY(cudaStreamSynchronize(cudaStreamLegacy));
  }
};

} // namespace scantune::test
