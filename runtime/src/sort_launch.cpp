// Enqueues a radix sort (templates/radix_sort.cuh): one memset of the digit starts
// and tickets, the histogram of every pass, the digit starts, then per pass a reset
// of the look-back status and the onesweep kernel. Pass p writes the outputs when an
// even number of passes follows it, else the workspace copy, so the last pass always
// lands in the outputs and the inputs are only read.
#include <algorithm>
#include <climits>
#include <cstdint>

#include "cuda_check.hpp"
#include "errors.hpp"
#include "kernel_registry.hpp"
#include "launch.hpp"
#include "sort.hpp"
#include "workspace.hpp"

namespace scantune::detail {
namespace {

void launch(const KernelSet& kernels, SortKernel k, unsigned grid, unsigned block,
            cudaStream_t stream, void** args, const SortPolicy& policy) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(block);
  config.stream = stream;
  const cudaError_t e =
      cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(kernels.kernels.at(k)), args);
  if (e != cudaSuccess)
    fail<CudaError>("launch of sort kernel {} of {} ({} blocks x {} threads) failed: {}",
                    static_cast<int>(k), policy.key(), grid, block, cudaGetErrorString(e));
}

struct Buffers {
  const void* keys_in;
  void* keys_out;
  const void* values_in;
  void* values_out;
};

// Where pass `p` of `passes` reads and writes.
Buffers pass_buffers(const SortRequest& r, unsigned p, unsigned passes, void* alt_keys,
                     void* alt_values) {
  const bool to_out = (passes - 1 - p) % 2 == 0;
  const bool from_in = p == 0;
  void* k_dst = to_out ? r.keys_out : alt_keys;
  void* v_dst = to_out ? r.values_out : alt_values;
  const void* k_src = from_in ? r.keys_in : (to_out ? alt_keys : r.keys_out);
  const void* v_src = from_in ? r.values_in : (to_out ? alt_values : r.values_out);
  return {k_src, k_dst, v_src, v_dst};
}

} // namespace

void launch_sort(const KernelSet& kernels, const SortPolicy& policy, const SortRequest& r,
                 WorkspacePool& pool, const LaunchTarget& target) {
  const std::size_t key_bytes = size_of(r.key);
  const std::size_t value_bytes = r.values_in ? r.value_bytes : 0;
  const SortLayout l = sort_layout(policy, key_bytes, value_bytes, r.n);
  if (l.tiles > static_cast<std::size_t>(INT_MAX))
    fail("n = {} needs {} tiles with sort policy {}, more than one launch can hold ({})", r.n,
         l.tiles, policy.key(), INT_MAX);
  const unsigned passes = sort_passes(r.begin_bit, r.end_bit, policy.radix_bits);
  const unsigned radix = 1u << policy.radix_bits;

  // The partials buffer (whose header sort_layout leaves alone), not the status one:
  // the scans' status words carry generations that must survive between calls.
  WorkspacePool::Lease lease;
  unsigned char* ws = nullptr;
  const bool captured = capturing(r.stream);
  if (captured)
    SCANTUNE_CUDA_TRY(cudaMallocAsync(reinterpret_cast<void**>(&ws), l.bytes, r.stream));
  else
    ws = static_cast<unsigned char*>((lease = pool.acquire(r.stream, 0, l.bytes)).partials->ptr);
  auto* starts = reinterpret_cast<unsigned long long*>(ws + l.starts);
  auto* tickets = reinterpret_cast<unsigned*>(ws + l.tickets);
  auto* status = reinterpret_cast<unsigned long long*>(ws + l.status);
  SCANTUNE_CUDA_TRY(cudaMemsetAsync(starts, 0, l.status - l.starts, r.stream));

  const void* keys_in = r.keys_in;
  unsigned long long n = r.n;
  unsigned begin = r.begin_bit, end = r.end_bit;
  unsigned descending = r.order == SortOrder::Descending ? 1u : 0u;
  const unsigned block = static_cast<unsigned>(policy.block_threads);
  void* hist_args[] = {&keys_in, &n, &begin, &end, &descending, &starts};
  launch(kernels, kSortHistogram, sort_histogram_grid(policy, r.n, target.sm_count), block,
         r.stream, hist_args, policy);
  void* start_args[] = {&starts};
  launch(kernels, kSortDigitStarts, passes, radix, r.stream, start_args, policy);

  for (unsigned p = 0; p < passes; ++p) {
    SCANTUNE_CUDA_TRY(cudaMemsetAsync(status, 0, l.status_bytes, r.stream));
    Buffers b = pass_buffers(r, p, passes, ws + l.keys, ws + l.values);
    unsigned shift = r.begin_bit + p * static_cast<unsigned>(policy.radix_bits);
    unsigned bits = std::min(static_cast<unsigned>(policy.radix_bits), r.end_bit - shift);
    const unsigned long long* pass_starts = starts + static_cast<std::size_t>(p) * radix;
    unsigned* ticket = tickets + p;
    void* args[] = {&b.keys_in, &b.keys_out, &b.values_in, &b.values_out, &n,     &shift,
                    &bits,      &descending, &pass_starts, &status,       &ticket};
    launch(kernels, kSortOnesweep, static_cast<unsigned>(l.tiles), block, r.stream, args, policy);
  }
  if (captured) SCANTUNE_CUDA_TRY(cudaFreeAsync(ws, r.stream));
}

} // namespace scantune::detail
