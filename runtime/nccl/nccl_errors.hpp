// Error helpers of the NCCL component: CUDA and NCCL failures as scantune::Error.
#pragma once

#include <string>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "scantune/types.hpp"

namespace scantune::nccl::detail {

/// Throws Error (kind Cuda) naming `what` and the CUDA error, unless `e` is cudaSuccess.
void check_cuda(cudaError_t e, const char* what);

/// Throws Error naming `what`, ncclGetErrorString and ncclGetLastError(comm), unless `r`
/// is ncclSuccess. A non-blocking communicator's ncclInProgress is waited out first.
/// Invalid arguments and usage are InvalidArgument; everything else is Cuda.
void check_nccl(ncclResult_t r, ncclComm_t comm, const char* what);

/// The ErrorKind of an NCCL result (exposed for the tests).
ErrorKind kind_of(ncclResult_t r);

} // namespace scantune::nccl::detail
