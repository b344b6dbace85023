#include "launch.hpp"

#include <climits>
#include <cstdint>
#include <cstring>

#include "cuda_check.hpp"

namespace scantune::detail {

std::size_t tile_count(const Policy& p, std::size_t n, unsigned shift) {
  const std::size_t tile = p.tile_items();
  return (n + shift + tile - 1) / tile;
}

unsigned misalignment(const void* p, std::size_t element_size, int vector_width) {
  return static_cast<unsigned>((reinterpret_cast<std::uintptr_t>(p) / element_size) %
                               static_cast<std::uintptr_t>(vector_width));
}

void launch_scan(const KernelSet& kernels, const Policy& policy, const ScanRequest& r,
                 WorkspacePool& pool) {
  const std::size_t size = size_of(r.type);
  const unsigned shift = misalignment(r.in, size, policy.vector_width);
  unsigned flags = misalignment(r.out, size, policy.vector_width) == shift ? 1u : 0u;
  unsigned long long n = r.n;
  alignas(8) unsigned char init[8] = {};
  if (r.kind == ScanKind::Exclusive) std::memcpy(init, r.init, size);
  const std::size_t tiles =
      policy.algorithm == Algorithm::Sequential ? 1 : tile_count(policy, r.n, shift);
  if (tiles > static_cast<std::size_t>(INT_MAX))
    fail("n = {} needs {} tiles with policy {}, more than one launch can hold ({})", r.n, tiles,
         policy.key(), INT_MAX);

  const bool single_pass = policy.uses_tile_status();
  const bool rts = policy.algorithm == Algorithm::ReduceThenScan;
  auto lease = pool.acquire(r.stream, single_pass ? WorkspacePool::status_bytes(tiles, size) : 0,
                            rts ? WorkspacePool::partial_bytes(tiles, size) : 0);
  void* ws = single_pass ? lease.status->ptr : rts ? lease.partials->ptr : nullptr;
  const void* in = r.in;
  void* out = r.out;
  void* args[] = {&in, &out, &n, init, const_cast<unsigned*>(&shift), &flags, &ws};

  auto launch = [&](std::size_t k, unsigned grid, unsigned block) {
    const cudaError_t e = cudaLaunchKernel(reinterpret_cast<const void*>(kernels.kernels.at(k)),
                                           dim3(grid), dim3(block), args, 0, r.stream);
    if (e != cudaSuccess)
      fail<CudaError>("launch of {} ({} blocks x {} threads) failed: {}", policy.key(), grid, block,
                      cudaGetErrorString(e));
  };
  const unsigned tpb = static_cast<unsigned>(policy.block_threads);
  switch (policy.algorithm) {
  case Algorithm::Sequential:
    launch(0, 1, 1);
    break;
  case Algorithm::SingleBlock:
    launch(0, 1, tpb);
    break;
  case Algorithm::ReduceThenScan:
    launch(0, static_cast<unsigned>(tiles), tpb);
    launch(1, 1, tpb);
    launch(2, static_cast<unsigned>(tiles), tpb);
    break;
  default:
    launch(0, static_cast<unsigned>(tiles), tpb);
    break;
  }
}

} // namespace scantune::detail
