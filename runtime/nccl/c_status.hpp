// The C API's status code of an ErrorKind (the same mapping as libscantune's C API).
#pragma once

#include "scantune/scantune.h"
#include "scantune/types.hpp"

namespace scantune::nccl::detail {

inline scantune_status_t status_of(ErrorKind k) {
  switch (k) {
  case ErrorKind::InvalidArgument:
    return SCANTUNE_ERROR_INVALID_ARGUMENT;
  case ErrorKind::Unsupported:
    return SCANTUNE_ERROR_UNSUPPORTED;
  case ErrorKind::Compile:
    return SCANTUNE_ERROR_COMPILE;
  case ErrorKind::Cuda:
    return SCANTUNE_ERROR_CUDA;
  case ErrorKind::NoDevice:
    return SCANTUNE_ERROR_NO_DEVICE;
  case ErrorKind::Database:
    return SCANTUNE_ERROR_DATABASE;
  case ErrorKind::Internal:
    break;
  }
  return SCANTUNE_ERROR_INTERNAL;
}

} // namespace scantune::nccl::detail
