#include "buffers.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "nccl_errors.hpp"

namespace scantune::nccl::detail {
namespace {

struct Cache {
  std::mutex mutex;
  std::map<std::pair<ncclComm_t, cudaStream_t>, std::unique_ptr<Buffers>> entries;
};

// Never destroyed: freeing device memory from a static destructor races the CUDA
// runtime's own teardown; the process exit reclaims it.
Cache& cache() {
  static Cache* c = new Cache;
  return *c;
}

std::unique_ptr<Buffers> allocate(int ranks) {
  auto b = std::make_unique<Buffers>();
  b->ranks = ranks;
  const std::size_t g = static_cast<std::size_t>(ranks);
  check_cuda(cudaMalloc(reinterpret_cast<void**>(&b->values), g * kSlotBytes), "cudaMalloc");
  check_cuda(cudaMalloc(reinterpret_cast<void**>(&b->prefixes), g * kSlotBytes), "cudaMalloc");
  check_cuda(cudaMalloc(reinterpret_cast<void**>(&b->descriptors), g * sizeof(Descriptor)),
             "cudaMalloc");
  check_cuda(cudaMallocHost(reinterpret_cast<void**>(&b->host), (g + 1) * sizeof(Descriptor)),
             "cudaMallocHost");
  return b;
}

} // namespace

Buffers::~Buffers() {
  // Errors are ignored: a freed communicator's context may be gone already.
  cudaFree(values);
  cudaFree(prefixes);
  cudaFree(descriptors);
  cudaFreeHost(host);
}

Buffers& buffers_for(ncclComm_t comm, cudaStream_t stream, int ranks) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto& slot = c.entries[{comm, stream}];
  // A communicator's size never changes; a new one may reuse a destroyed one's address.
  if (!slot || slot->ranks != ranks) slot = allocate(ranks);
  return *slot;
}

void release_buffers(ncclComm_t comm) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  for (auto it = c.entries.begin(); it != c.entries.end();)
    it = it->first.first == comm ? c.entries.erase(it) : std::next(it);
}

} // namespace scantune::nccl::detail
