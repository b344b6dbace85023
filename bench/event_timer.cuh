// What the nvcc-built bench drivers share: CHECK on CUDA calls (exits with the call's
// text), a CUDA-event timer taking the median of repeats after three warm-up calls, and
// the memcpy baseline.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    const cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                                \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

struct Timer {
  cudaEvent_t a, b;
  Timer() {
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
  }
  template <class F>
  double median_ms(F&& f, int repeats) {
    for (int i = 0; i < 3; ++i)
      f();
    std::vector<float> ms;
    for (int i = 0; i < repeats; ++i) {
      CHECK(cudaEventRecord(a));
      f();
      CHECK(cudaEventRecord(b));
      CHECK(cudaEventSynchronize(b));
      float t = 0;
      CHECK(cudaEventElapsedTime(&t, a, b));
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  }
};

// A device-to-device copy moving `bytes` in all (half read, half written), as the scans
// count their reads and writes.
struct CopyBaseline {
  std::size_t bytes;
  char* buf = nullptr;
  explicit CopyBaseline(std::size_t total) : bytes(total) { CHECK(cudaMalloc(&buf, bytes)); }
  ~CopyBaseline() { cudaFree(buf); }
  CopyBaseline(const CopyBaseline&) = delete;
  CopyBaseline& operator=(const CopyBaseline&) = delete;
  void operator()() const {
    CHECK(cudaMemcpyAsync(buf + bytes / 2, buf, bytes / 2, cudaMemcpyDeviceToDevice));
  }
};
