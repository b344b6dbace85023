// SCANTUNE_CUDA_TRY(call): throws CudaError naming the call, the CUDA error and
// the source location. SCANTUNE_CUDA_WARN for destructors (reports, never throws).
#pragma once

#include <cstdio>

#include <cuda_runtime_api.h>

#include "errors.hpp"

#define SCANTUNE_CUDA_TRY(call)                                                                    \
  do {                                                                                             \
    const cudaError_t scantune_err_ = (call);                                                      \
    if (scantune_err_ != cudaSuccess)                                                              \
      ::scantune::detail::fail<::scantune::detail::CudaError>(                                     \
          "{} failed: {} ({}) at {}:{}", #call, cudaGetErrorString(scantune_err_),                 \
          cudaGetErrorName(scantune_err_), __FILE__, __LINE__);                                    \
  } while (0)

#define SCANTUNE_CUDA_WARN(call)                                                                   \
  do {                                                                                             \
    const cudaError_t scantune_err_ = (call);                                                      \
    if (scantune_err_ != cudaSuccess && scantune_err_ != cudaErrorCudartUnloading)                 \
      std::fprintf(stderr, "scantune: %s failed: %s\n", #call, cudaGetErrorString(scantune_err_)); \
  } while (0)
