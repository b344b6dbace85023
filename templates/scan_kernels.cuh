// Kernel layer: the __global__ entry points, one per inter-block algorithm.
// Every kernel takes the same parameters so the host launches them uniformly:
//   in, out   element pointers (in == out for in-place scans)
//   n         element count
//   init      exclusive scans' initial value (ignored by inclusive scans)
//   shift     input misalignment in elements (tiles start on vector boundaries)
//   flags     bit 0: the output shares the input's misalignment (vector stores)
//   ws        per-stream workspace (see tile_status.cuh)
#pragma once

#include "scantune/operators.cuh"
#include "scantune/tile_scan.cuh"
#include "scantune/tile_status.cuh"

#define SCANTUNE_KERNEL_PARAMS                                                                     \
  const T *in, T *out, unsigned long long n, T init, unsigned shift, unsigned flags,               \
      unsigned long long *ws

namespace scantune {

template <class T, class P>
struct tile_smem {
  __device__ __forceinline__ static T* get() {
    __shared__ __align__(16) unsigned char raw[tile_io<T, P>::SHARED_BYTES];
    return reinterpret_cast<T*>(raw);
  }
};

template <class T, class Op, int KIND>
__device__ __forceinline__ T first_prefix(T init) {
  return KIND == KIND_EXCLUSIVE ? init : Op::identity();
}

// One thread walks every element: the baseline.
template <class T, class Op, int KIND>
__global__ void __launch_bounds__(32) sequential_kernel(SCANTUNE_KERNEL_PARAMS) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  Op op;
  T acc = first_prefix<T, Op, KIND>(init);
  for (unsigned long long i = 0; i < n; ++i) {
    const T x = in[i];
    if (KIND == KIND_EXCLUSIVE) {
      out[i] = acc;
      acc = op(acc, x);
    } else {
      acc = op(acc, x);
      out[i] = acc;
    }
  }
}

// One block scans every tile in order; warp 0 carries the prefix in registers.
template <class T, class Op, int KIND, class P>
__global__ void __launch_bounds__(P::block_threads) single_block_kernel(SCANTUNE_KERNEL_PARAMS) {
  Op op;
  T* smem = tile_smem<T, P>::get();
  const unsigned long long tiles = (n + shift + P::tile_items - 1) / P::tile_items;
  T carry = first_prefix<T, Op, KIND>(init);
  for (unsigned long long t = 0; t < tiles; ++t) {
    tile_scan<T, Op, KIND, P>::run(in, out, n, shift, flags & 1u, t, smem, [&](T aggregate) {
      const T prefix = carry;
      carry = op(carry, aggregate);
      return prefix;
    });
    __syncthreads(); // the next tile's load reuses shared memory
  }
}

// Warp 0's part of the single-pass algorithms for one tile: publish the tile's
// aggregate, obtain its exclusive prefix (chained wait or look-back), publish its
// inclusive prefix. Called by all 32 lanes of warp 0; returns the prefix in each.
template <class T, class Op, int KIND, class P>
__device__ __forceinline__ T resolve_prefix(unsigned long long* slots, unsigned tile, unsigned gen,
                                            T aggregate, T init) {
  Op op;
  const bool leader = threadIdx.x == 0;
  if (tile == 0) {
    if (leader)
      tile_status<T>::publish(slots, 0, make_flag(gen, true),
                              KIND == KIND_EXCLUSIVE ? op(init, aggregate) : aggregate);
    return first_prefix<T, Op, KIND>(init);
  }
  T prefix = Op::identity();
  if (P::algorithm == ALG_LOOKBACK_WARP || P::algorithm == ALG_LOOKBACK_PIPELINED) {
    if (leader) tile_status<T>::publish(slots, tile, make_flag(gen, false), aggregate);
    prefix = lookback_warp<T, Op, P::backoff_ns, P::lookback_span>(slots, tile, gen, op);
  } else {
    if (leader) {
      if (P::algorithm == ALG_CHAINED) {
        prefix = wait_predecessor_inclusive<T, P::backoff_ns>(slots, tile, gen);
      } else {
        tile_status<T>::publish(slots, tile, make_flag(gen, false), aggregate);
        prefix = lookback_one_thread<T, Op, P::backoff_ns>(slots, tile, gen, op);
      }
    }
    prefix = __shfl_sync(FULL_WARP, prefix, 0);
  }
  if (leader) tile_status<T>::publish(slots, tile, make_flag(gen, true), op(prefix, aggregate));
  return prefix;
}

// Single pass over the input, one tile per block: chained scan or decoupled
// look-back (thread/warp).
template <class T, class Op, int KIND, class P>
__global__ void __launch_bounds__(P::block_threads) single_pass_kernel(SCANTUNE_KERNEL_PARAMS) {
  static_assert(P::algorithm == ALG_CHAINED || P::algorithm == ALG_LOOKBACK_THREAD ||
                    P::algorithm == ALG_LOOKBACK_WARP,
                "single_pass_kernel runs the chained and look-back algorithms");
  __shared__ unsigned s_ticket, s_gen;
  if (threadIdx.x == 0) s_gen = take_ticket(ws, s_ticket, gridDim.x - 1);
  __syncthreads();
  const unsigned tile = s_ticket, gen = s_gen;
  tile_scan<T, Op, KIND, P>::run(
      in, out, n, shift, flags & 1u, tile, tile_smem<T, P>::get(), [&](T aggregate) {
        return resolve_prefix<T, Op, KIND, P>(ws + STATUS_OFFSET_WORDS, tile, gen, aggregate, init);
      });
}

// Pipelined warp look-back: a grid of resident blocks, each taking tiles by
// ticket until none is left. A block holds two tickets: while it scans tile
// `cur` (and waits on its look-back), the copy of tile `next` into the other
// shared-memory stage is already in flight, and the ticket after it is taken.
// Tickets are taken in order by running blocks and each block finishes its
// tiles in order, so the lowest unfinished tile never waits on a later one.
template <class T, class Op, int KIND, class P>
__global__ void __launch_bounds__(P::block_threads) pipelined_kernel(SCANTUNE_KERNEL_PARAMS) {
  static_assert(P::algorithm == ALG_LOOKBACK_PIPELINED && P::tile_io != IO_DIRECT,
                "pipelined_kernel stages tiles in shared memory");
  typedef tile_io<T, P> io;
  __shared__ unsigned s_first[2], s_fetched[2], s_gen;
  T* stages = tile_smem<T, P>::get();
  const long long TILE = P::tile_items;
  const unsigned long long tiles = (n + shift + TILE - 1) / TILE;
  // Every block takes tickets until one is past the end: the last of those resets.
  const unsigned last = unsigned(tiles) + gridDim.x - 1;
  if (threadIdx.x == 0) {
    unsigned t, t2;
    s_gen = take_ticket(ws, t, last);
    if (t < tiles) take_ticket(ws, t2, last);
    s_first[0] = t;
    s_first[1] = t < tiles ? t2 : t;
  }
  __syncthreads();
  const unsigned gen = s_gen;
  unsigned cur = s_first[0], next = s_first[1], stage = 0;
  if (cur >= tiles) return;
  auto start_of = [&](unsigned t) { return (long long)t * TILE - (long long)shift; };
  auto is_full = [&](unsigned t) {
    return start_of(t) >= 0 && (unsigned long long)(start_of(t) + TILE) <= n;
  };
  if (is_full(cur)) io::prefetch_full(in + start_of(cur), stages);
  io::commit_prefetch();
  for (unsigned i = 0;; ++i) {
    T* here = stages + stage * TILE;
    // The next tile's copy goes into the stage the previous tile stored from.
    io::group_sync();
    if (next < tiles && is_full(next))
      io::prefetch_full(in + start_of(next), stages + (stage ^ 1u) * TILE);
    io::commit_prefetch();
    if (threadIdx.x == 0) {
      unsigned t = next;
      if (next < tiles) take_ticket(ws, t, last);
      s_fetched[i & 1u] = t; // read after the block scan's barriers
    }
    io::template wait_prefetch<1>(); // every group but the newest: tile `cur` has landed
    T items[P::items_per_thread];
    const long long g = start_of(cur);
    const bool full = is_full(cur);
    if (full)
      io::read_staged(items, here);
    else
      io::load_partial(in, g, n, items, here, Op::identity());
    const unsigned tile = cur;
    tile_scan<T, Op, KIND, P>::scan_store(
        out, n, g, full, flags & 1u, items, here, [&](T aggregate) {
          return resolve_prefix<T, Op, KIND, P>(ws + STATUS_OFFSET_WORDS, tile, gen, aggregate,
                                                init);
        });
    if (next >= tiles) break;
    cur = next;
    next = s_fetched[i & 1u];
    stage ^= 1u;
  }
}

// Reduce-then-scan, pass 1: each block reduces its tile into partials[tile].
template <class T, class Op, int KIND, class P>
__global__ void __launch_bounds__(P::block_threads) rts_reduce_kernel(SCANTUNE_KERNEL_PARAMS) {
  T* partials = reinterpret_cast<T*>(ws + STATUS_OFFSET_WORDS);
  const T aggregate =
      tile_scan<T, Op, KIND, P>::reduce(in, n, shift, blockIdx.x, tile_smem<T, P>::get());
  if (threadIdx.x == 0) partials[blockIdx.x] = aggregate;
}

// Pass 2: one block turns the partials into exclusive tile prefixes, in place.
template <class T, class Op, int KIND, class P>
__global__ void __launch_bounds__(P::block_threads) rts_partials_kernel(SCANTUNE_KERNEL_PARAMS) {
  Op op;
  T* partials = reinterpret_cast<T*>(ws + STATUS_OFFSET_WORDS);
  T* smem = tile_smem<T, P>::get();
  const unsigned long long tiles = (n + shift + P::tile_items - 1) / P::tile_items;
  const unsigned long long chunks = (tiles + P::tile_items - 1) / P::tile_items;
  T carry = first_prefix<T, Op, KIND>(init);
  for (unsigned long long c = 0; c < chunks; ++c) {
    tile_scan<T, Op, KIND_EXCLUSIVE, P>::run(partials, partials, tiles, 0u, true, c, smem,
                                             [&](T aggregate) {
                                               const T prefix = carry;
                                               carry = op(carry, aggregate);
                                               return prefix;
                                             });
    __syncthreads();
  }
}

// Pass 3: each block scans its tile from its prefix.
template <class T, class Op, int KIND, class P>
__global__ void __launch_bounds__(P::block_threads) rts_downsweep_kernel(SCANTUNE_KERNEL_PARAMS) {
  const T* partials = reinterpret_cast<const T*>(ws + STATUS_OFFSET_WORDS);
  const T prefix = partials[blockIdx.x];
  tile_scan<T, Op, KIND, P>::run(in, out, n, shift, flags & 1u, blockIdx.x, tile_smem<T, P>::get(),
                                 [&](T) { return prefix; });
}

} // namespace scantune
