#include "workspace.hpp"

#include "cuda_check.hpp"

namespace scantune::detail {
namespace {
constexpr std::size_t kHeaderBytes =
    32 * sizeof(unsigned long long); // STATUS_OFFSET_WORDS in tile_status.cuh
constexpr std::size_t kSlotBytes =
    4 * sizeof(unsigned long long); // STATUS_SLOT_WORDS in tile_status.cuh
} // namespace

std::size_t WorkspacePool::status_bytes(std::size_t tiles) {
  return kHeaderBytes + tiles * kSlotBytes; // one slot holds a 4- or 8-byte value
}
std::size_t WorkspacePool::packed_status_bytes(std::size_t slots, std::size_t words) {
  return kHeaderBytes + slots * words * sizeof(unsigned long long);
}
std::size_t WorkspacePool::partial_bytes(std::size_t tiles, std::size_t element_size) {
  return kHeaderBytes + tiles * element_size;
}

bool WorkspacePool::grow(Buffer& b, std::size_t bytes, cudaStream_t stream) {
  if (bytes <= b.bytes) return false;
  // Over-allocate so a slowly growing n does not reallocate on every call.
  const std::size_t capacity = std::max<std::size_t>(bytes + bytes / 2, 4096);
  void* fresh = nullptr;
  SCANTUNE_CUDA_TRY(cudaMallocAsync(&fresh, capacity, stream));
  // Zero = no valid status word and generation 0 in the ticket word.
  SCANTUNE_CUDA_TRY(cudaMemsetAsync(fresh, 0, capacity, stream));
  if (b.ptr) SCANTUNE_CUDA_TRY(cudaFreeAsync(b.ptr, stream)); // after the stream's earlier launches
  b.ptr = fresh;
  b.bytes = capacity;
  return true;
}

WorkspacePool::Lease WorkspacePool::acquire(cudaStream_t stream, std::size_t status_bytes,
                                            std::size_t partial_bytes,
                                            std::size_t sort_status_bytes) {
  PerStream* ps;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::thread::id thread =
        stream == cudaStreamPerThread ? std::this_thread::get_id() : std::thread::id();
    auto& slot = streams_[{stream, thread}];
    if (!slot) slot = std::make_unique<PerStream>();
    ps = slot.get();
  }
  Lease lease{std::unique_lock<std::mutex>(ps->mutex), &ps->status, &ps->partials, &ps->sort_status,
              &ps->sort};
  if (status_bytes) grow(ps->status, status_bytes, stream);
  if (partial_bytes) grow(ps->partials, partial_bytes, stream);
  if (sort_status_bytes && grow(ps->sort_status, sort_status_bytes, stream)) ps->sort = {};
  return lease;
}

WorkspacePool::~WorkspacePool() {
  int current = -1;
  if (cudaGetDevice(&current) != cudaSuccess) return;
  if (current != device_) cudaSetDevice(device_);
  // The streams may already be destroyed: free synchronously once the device is idle.
  if (!streams_.empty()) SCANTUNE_CUDA_WARN(cudaDeviceSynchronize());
  for (auto& entry : streams_)
    for (Buffer* b : {&entry.second->status, &entry.second->partials, &entry.second->sort_status})
      if (b->ptr) SCANTUNE_CUDA_WARN(cudaFree(b->ptr));
  if (current != device_) cudaSetDevice(current);
}

} // namespace scantune::detail
