// The small buffers of a distributed scan, cached per (communicator, stream): the
// gathered partial results and prefixes on the device, the gathered descriptors on
// the device and in pinned host memory.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "descriptor.hpp"

namespace scantune::nccl::detail {

struct Buffers {
  int ranks = 0;                     ///< G, the communicator's size
  unsigned char* values = nullptr;   ///< device: G partial results of up to 8 bytes
  unsigned char* prefixes = nullptr; ///< device: the scan of `values`
  Descriptor* descriptors = nullptr; ///< device: G descriptors
  Descriptor* host = nullptr;        ///< pinned: G gathered descriptors, then this rank's own
  Buffers() = default;
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
  ~Buffers();
};

/// The bytes of one slot of `values` and `prefixes`: the largest element type.
inline constexpr std::size_t kSlotBytes = 8;

/// The buffers of (comm, stream), allocated on the current device at first use for a
/// communicator of `ranks` ranks. Thread-safe; the reference stays valid until
/// release_buffers(comm).
Buffers& buffers_for(ncclComm_t comm, cudaStream_t stream, int ranks);

/// Frees the buffers of every stream of `comm`.
void release_buffers(ncclComm_t comm);

} // namespace scantune::nccl::detail
