// What the standalone experiments in this directory share: a CUDA error check
// that exits with the file and line, and the plain copy kernel they time beside
// their own kernels (16-byte loads and stores, grid-stride).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

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
