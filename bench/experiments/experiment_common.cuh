// What the standalone experiments in this directory share: a CUDA error check
// that exits with the file and line, the plain copy kernel they time beside their
// own kernels (16-byte loads and stores, grid-stride), one call's event time, the
// median of back-to-back calls, the look-backs' status-word packing, a list parser,
// and (from the library's templates) relaxed status-word loads and stores and the
// sm_90 mbarrier and bulk-copy (TMA) instructions. Compile with -Ibench/experiments
// (scantune/ there is a link to templates/, the include path the library's NVRTC
// build gives them).
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <string>
#include <vector>

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t err_ = (x);                                                                        \
    if (err_ != cudaSuccess) {                                                                     \
      printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));                          \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

__global__ void copy_vec4(const int4* in, int4* out, long long n4) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4;
       i += (long long)gridDim.x * blockDim.x)
    out[i] = in[i];
}

// "a,b,c" -> {"a", "b", "c"} (command-line lists).
inline std::vector<std::string> split_list(const char* s) {
  std::vector<std::string> v(1);
  for (; *s; ++s) {
    if (*s == ',')
      v.emplace_back();
    else
      v.back() += *s;
  }
  return v;
}

// CUDA-event time of what f() enqueues on the default stream, us.
template <class F>
float event_us(F&& f) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaEventRecord(e0));
  f();
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  return ms * 1000.f;
}

// Median of CUDA-event intervals between back-to-back calls (3 warm-up calls), us.
template <class F>
float median_us(F&& f, int reps) {
  std::vector<cudaEvent_t> ev(reps + 1);
  for (auto& e : ev)
    CK(cudaEventCreate(&e));
  for (int w = 0; w < 3; ++w)
    f();
  CK(cudaEventRecord(ev[0]));
  for (int r = 0; r < reps; ++r) {
    f();
    CK(cudaEventRecord(ev[r + 1]));
  }
  CK(cudaEventSynchronize(ev[reps]));
  std::vector<float> t(reps);
  for (int r = 0; r < reps; ++r)
    CK(cudaEventElapsedTime(&t[r], ev[r], ev[r + 1]));
  for (auto& e : ev)
    CK(cudaEventDestroy(e));
  std::sort(t.begin(), t.end());
  return t[reps / 2] * 1000.f;
}

// Status words of the experiments' look-backs: flag in the high half, value low,
// loaded and stored with the library's relaxed accesses (templates/tile_status.cuh).
#include "scantune/tile_status.cuh"
using scantune::load_relaxed;
using scantune::store_relaxed;
__device__ __forceinline__ unsigned long long pack(unsigned flag, int v) {
  return (unsigned long long)flag << 32 | unsigned(v);
}

// The library's mbarrier and bulk-copy (TMA) wrappers (device-only, no includes).
#include "scantune/bulk_copy.cuh"
using scantune::bulk_commit;
using scantune::bulk_load;
using scantune::bulk_store;
using scantune::bulk_wait_all;
using scantune::bulk_wait_read;
using scantune::fence_shared_to_async;
using scantune::mbar_arrive;
using scantune::mbar_arrive_expect_tx;
using scantune::mbar_init;
using scantune::mbar_init_fence;
using scantune::mbar_wait;
