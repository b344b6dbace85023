// Enqueues a radix sort (templates/radix_sort.cuh): one memset of the digit starts and
// tickets, then the histogram of every pass, the digit starts and per pass the onesweep
// kernel (its status words tagged with tags no earlier sort left in the stream's sort
// status buffer: take_sort_tags); or all of that in one cooperative launch
// (SortPolicy::single_launch) and no memset (the control block, kSortControlBytes). Pass p writes
// the outputs when an even number of passes follows it, else the workspace copy, so the last pass
// always lands in the outputs and the inputs are only read; of the passes whose keys share one
// digit, two in a row are skipped (radix_skipped_passes in radix_sort.cuh: the device knows which).
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

void launch(const KernelSet& kernels, int k, unsigned grid, unsigned block, cudaStream_t stream,
            void** args, const SortPolicy& policy, bool cooperative = false) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(block);
  config.stream = stream;
  cudaLaunchAttribute attribute = {};
  attribute.id = cudaLaunchAttributeCooperative;
  attribute.val.cooperative = 1;
  if (cooperative) {
    config.attrs = &attribute;
    config.numAttrs = 1;
  }
  const cudaError_t e =
      cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(kernels.kernels.at(k)), args);
  if (e != cudaSuccess)
    fail<CudaError>("launch of sort kernel {} of {} ({} blocks x {} threads) failed: {}", k,
                    policy.key(), grid, block, cudaGetErrorString(e));
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

struct SortArgs {
  const SortRequest& r;
  const SortPolicy& policy;
  const SortLayout& l;
  unsigned char* ws;
  unsigned char* control; // the sort status buffer: control block, then status words
  WorkspacePool::SortState& state;
  unsigned tag; // pass p's: tag + p
  unsigned passes;

  unsigned long long* status() const {
    return reinterpret_cast<unsigned long long*>(control + kSortControlBytes);
  }
};

// The histogram, the digit starts (and the passes skipped) and one onesweep launch a pass.
void launch_passes(const KernelSet& kernels, const SortArgs& a, int sm_count) {
  const SortRequest& r = a.r;
  auto* starts = reinterpret_cast<unsigned long long*>(a.ws + a.l.starts);
  auto* tickets = reinterpret_cast<unsigned long long*>(a.ws + a.l.tickets);
  unsigned long long* status = a.status();
  const void* keys_in = r.keys_in;
  unsigned long long n = r.n;
  unsigned begin = r.begin_bit, end = r.end_bit;
  unsigned descending = r.order == SortOrder::Descending ? 1u : 0u;
  const unsigned block = static_cast<unsigned>(a.policy.block_threads);
  void* hist_args[] = {&keys_in, &n, &begin, &end, &descending, &starts};
  launch(kernels, kSortHistogram, sort_histogram_grid(a.policy, r.n, sm_count), block, r.stream,
         hist_args, a.policy);
  void* start_args[] = {&starts, &n, &tickets};
  launch(kernels, kSortDigitStarts, 1, a.passes * 32, r.stream, start_args, a.policy);

  const unsigned radix = 1u << a.policy.radix_bits;
  for (unsigned p = 0; p < a.passes; ++p) {
    unsigned tag = a.tag + p;
    Buffers b = pass_buffers(r, p, a.passes, a.ws + a.l.keys, a.ws + a.l.values);
    unsigned shift = r.begin_bit + p * static_cast<unsigned>(a.policy.radix_bits);
    unsigned bits = std::min(static_cast<unsigned>(a.policy.radix_bits), r.end_bit - shift);
    const unsigned long long* pass_starts = starts + static_cast<std::size_t>(p) * radix;
    unsigned long long* ticket = tickets + p;
    unsigned later = a.passes - 1 - p; // whose tickets say which of them are skipped
    void* args[] = {&b.keys_in,  &b.keys_out,  &b.values_in, &b.values_out, &n,      &shift, &bits,
                    &descending, &pass_starts, &status,      &tag,          &ticket, &later};
    launch(kernels, kSortOnesweep, static_cast<unsigned>(a.l.tiles), block, r.stream, args,
           a.policy);
  }
}

// radix_single_launch_kernel on as many blocks as the tiles or the device's resident
// blocks, whichever is fewer (a cooperative launch: all of them resident at once),
// with the control block's histogram of this launch (zeroed by the one before) and its
// barrier counter where the one before left it; the state moves on once it launched.
void launch_single(const KernelSet& kernels, const SortArgs& a, int sm_count) {
  const SortRequest& r = a.r;
  const std::size_t resident = resident_blocks(kernels, a.policy.block_threads, 0, sm_count);
  const unsigned grid = static_cast<unsigned>(std::min(a.l.tiles, resident));
  const void* keys_in = r.keys_in;
  void* keys_out = r.keys_out;
  const void* values_in = r.values_in;
  void* values_out = r.values_out;
  void* alt_keys = a.ws + a.l.keys;
  void* alt_values = a.ws + a.l.values;
  unsigned long long n = r.n;
  unsigned begin = r.begin_bit, end = r.end_bit;
  unsigned descending = r.order == SortOrder::Descending ? 1u : 0u;
  auto* hists = reinterpret_cast<unsigned long long*>(a.control + kSortBarrierBytes);
  void* hist = hists + (a.state.launches % 2) * kSortHistWords;
  void* next_hist = hists + (a.state.launches % 2 ? 0 : kSortHistWords);
  unsigned hist_words = kSortHistWords;
  void* status = a.status();
  void* barrier = a.control;
  unsigned barrier_base = a.state.barrier;
  unsigned tag = a.tag;
  void* args[] = {&keys_in,    &keys_out, &values_in, &values_out,   &alt_keys, &alt_values,
                  &n,          &begin,    &end,       &descending,   &hist,     &next_hist,
                  &hist_words, &status,   &barrier,   &barrier_base, &tag};
  launch(kernels, kSortSingleLaunch, grid, static_cast<unsigned>(a.policy.block_threads), r.stream,
         args, a.policy, true);
  a.state.launches += 1;
  a.state.barrier += a.passes * grid; // one barrier a pass
}

} // namespace

void launch_sort(const KernelSet& kernels, const SortSpec& spec, const SortRequest& r,
                 WorkspacePool& pool, const LaunchTarget& target) {
  const SortPolicy& policy = spec.policy;
  const SortLayout l = sort_layout(policy, size_of(r.key), spec.carried_bytes(), r.n);
  if (l.tiles > static_cast<std::size_t>(INT_MAX))
    fail("n = {} needs {} tiles with sort policy {}, more than one launch can hold ({})", r.n,
         l.tiles, policy.key(), INT_MAX);

  // The partials buffer (whose header sort_layout leaves alone), not the scans' status
  // one: their status words carry generations that must survive between calls.
  WorkspacePool::Lease lease;
  unsigned char* ws = nullptr;
  unsigned char* control = nullptr;
  WorkspacePool::SortState replayed; // under capture: a graph replays the zeroing
  WorkspacePool::SortState* state = &replayed;
  const unsigned passes = sort_passes(r.begin_bit, r.end_bit, policy.radix_bits);
  const std::size_t control_bytes = kSortControlBytes + l.status_bytes;
  SortTags tags;
  const bool captured = capturing(r.stream);
  if (captured) { // one allocation, its control block and status zeroed
    const std::size_t scratch = (l.bytes + 255) / 256 * 256;
    SCANTUNE_CUDA_TRY(
        cudaMallocAsync(reinterpret_cast<void**>(&ws), scratch + control_bytes, r.stream));
    control = ws + scratch;
    SCANTUNE_CUDA_TRY(cudaMemsetAsync(control, 0, control_bytes, r.stream));
  } else {
    lease = pool.acquire(r.stream, 0, l.bytes, control_bytes);
    ws = static_cast<unsigned char*>(lease.partials->ptr);
    control = static_cast<unsigned char*>(lease.sort_status->ptr);
    state = lease.sort;
    tags = take_sort_tags(state->tag, passes);
    if (tags.zero_first) {
      SCANTUNE_CUDA_TRY(cudaMemsetAsync(control, 0, lease.sort_status->bytes, r.stream));
      state->launches = state->barrier = 0;
    }
  }
  const SortArgs args{r, policy, l, ws, control, *state, tags.base, passes};
  if (policy.single_launch) {
    launch_single(kernels, args, target.sm_count);
  } else {
    SCANTUNE_CUDA_TRY(cudaMemsetAsync(ws + l.starts, 0, l.zeroed, r.stream));
    launch_passes(kernels, args, target.sm_count);
  }
  if (captured) SCANTUNE_CUDA_TRY(cudaFreeAsync(ws, r.stream));
}

} // namespace scantune::detail
