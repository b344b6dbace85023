#include "nccl_errors.hpp"

namespace scantune::nccl::detail {

void check_cuda(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  throw Error(std::string("scantune::nccl: ") + what + " failed: " + cudaGetErrorString(e) + " (" +
                  cudaGetErrorName(e) + ")",
              ErrorKind::Cuda);
}

ErrorKind kind_of(ncclResult_t r) {
  return r == ncclInvalidArgument || r == ncclInvalidUsage ? ErrorKind::InvalidArgument
                                                           : ErrorKind::Cuda;
}

void check_nccl(ncclResult_t r, ncclComm_t comm, const char* what) {
  // Non-blocking communicators report ncclInProgress until the operation is enqueued.
  while (r == ncclInProgress && comm)
    if (ncclCommGetAsyncError(comm, &r) != ncclSuccess) break;
  if (r == ncclSuccess) return;
  const char* last = ncclGetLastError(comm);
  std::string msg = std::string("scantune::nccl: ") + what + " failed: " + ncclGetErrorString(r);
  if (last && *last) msg += std::string(" (") + last + ")";
  throw Error(msg, kind_of(r));
}

} // namespace scantune::nccl::detail
