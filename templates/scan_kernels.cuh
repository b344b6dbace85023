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

// Publishes a tile's aggregate (tile 0: its inclusive prefix, which is known).
template <class T, class Op, int KIND>
__device__ __forceinline__ void publish_aggregate(unsigned long long* slots, unsigned tile,
                                                  unsigned gen, T aggregate, T init) {
  if (lane_id() != 0) return;
  Op op;
  if (tile == 0)
    tile_status<T>::publish(slots, 0, make_flag(gen, true),
                            KIND == KIND_EXCLUSIVE ? op(init, aggregate) : aggregate);
  else
    tile_status<T>::publish(slots, tile, make_flag(gen, false), aggregate);
}

// Warp look-back for a tile whose aggregate is published: returns its exclusive
// prefix (for exclusive scans including init) and publishes its inclusive one.
// Called by all 32 lanes of one warp (lane 0 publishes, as in publish_aggregate).
template <class T, class Op, int KIND, class P>
__device__ __forceinline__ T finish_lookback(unsigned long long* slots, unsigned tile, unsigned gen,
                                             T aggregate, T init) {
  Op op;
  if (tile == 0) return first_prefix<T, Op, KIND>(init);
  const T prefix = lookback_warp<T, Op, P::backoff_ns, P::lookback_span>(slots, tile, gen, op);
  if (lane_id() == 0)
    tile_status<T>::publish(slots, tile, make_flag(gen, true), op(prefix, aggregate));
  return prefix;
}

// Warp 0's part of the single-pass algorithms for one tile: publish the tile's
// aggregate, obtain its exclusive prefix (chained wait or look-back), publish its
// inclusive prefix. Called by all 32 lanes of warp 0; returns the prefix in each.
template <class T, class Op, int KIND, class P>
__device__ __forceinline__ T resolve_prefix(unsigned long long* slots, unsigned tile, unsigned gen,
                                            T aggregate, T init) {
  if (P::algorithm == ALG_LOOKBACK_WARP || tile == 0) {
    publish_aggregate<T, Op, KIND>(slots, tile, gen, aggregate, init);
    return finish_lookback<T, Op, KIND, P>(slots, tile, gen, aggregate, init);
  }
  Op op;
  const bool leader = threadIdx.x == 0;
  T prefix = Op::identity();
  if (leader) {
    if (P::algorithm == ALG_CHAINED) {
      prefix = wait_predecessor_inclusive<T, P::backoff_ns>(slots, tile, gen);
    } else {
      tile_status<T>::publish(slots, tile, make_flag(gen, false), aggregate);
      prefix = lookback_one_thread<T, Op, P::backoff_ns>(slots, tile, gen, op);
    }
  }
  prefix = __shfl_sync(FULL_WARP, prefix, 0);
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

// Look-ahead warp look-back: a grid of resident blocks, each taking tiles by
// ticket until none is left, with three shared-memory stages. One step of a
// block: (1) start copying tile C (cp.async) and take the ticket after it,
// (2) reduce tile B, which has landed, and publish its aggregate, then, in warp
// 0 while the others wait, (3) look back for tile A (reduced one step earlier)
// and (4) scan and store A. So every tile's aggregate is out one step before its
// block waits on a look-back, and while it waits a tile copy is in flight.
// Tickets are taken in order by running blocks and each block finishes its
// tiles in order, so the lowest unfinished tile never waits on a later one.
template <class T, class Op, int KIND, class P>
__global__ void __launch_bounds__(P::block_threads) pipelined_kernel(SCANTUNE_KERNEL_PARAMS) {
  static_assert(P::algorithm == ALG_LOOKBACK_PIPELINED && P::tile_io != IO_DIRECT,
                "pipelined_kernel stages tiles in shared memory");
  typedef tile_io<T, P> io;
  typedef tile_scan<T, Op, KIND, P> ts;
  typedef block_scan<T, Op, P::block_threads, P::block_scan> bscan;
  static_assert(io::STAGES == 3, "tiles A, B and C each have a stage");
  __shared__ unsigned s_first[3], s_next[2], s_gen;
  __shared__ T s_prefix;
  Op op;
  unsigned long long* slots = ws + STATUS_OFFSET_WORDS;
  T* stages = tile_smem<T, P>::get();
  const long long TILE = P::tile_items;
  const unsigned long long tiles = (n + shift + TILE - 1) / TILE;
  // Every block takes tickets until one is past the end: the last of those resets.
  const unsigned last = unsigned(tiles) + gridDim.x - 1;
  auto take_after = [&](unsigned prev) {
    unsigned t = prev;
    if (prev < tiles) take_ticket(ws, t, last);
    return t;
  };
  if (threadIdx.x == 0) {
    unsigned t;
    s_gen = take_ticket(ws, t, last);
    s_first[0] = t;
    s_first[1] = take_after(t);
    s_first[2] = take_after(s_first[1]);
  }
  __syncthreads();
  const unsigned gen = s_gen;
  unsigned a = s_first[0], b = s_first[1], c = s_first[2], sa = 0;
  if (a >= tiles) return;
  auto start_of = [&](unsigned t) { return (long long)t * TILE - (long long)shift; };
  auto is_full = [&](unsigned t) {
    return t < tiles && start_of(t) >= 0 && (unsigned long long)(start_of(t) + TILE) <= n;
  };
  auto stage = [&](unsigned k) { return stages + (k % 3u) * TILE; };
  auto prefetch = [&](unsigned t, T* to) {
    if (is_full(t)) io::prefetch_full(in + start_of(t), to);
    io::commit_prefetch();
  };
  // The landed (or, for a partial tile, freshly loaded) tile's thread partial.
  auto reduce_landed = [&](unsigned t, T* from) {
    T items[P::items_per_thread];
    if (is_full(t))
      io::read_staged(items, from);
    else
      io::load_partial(in, start_of(t), n, items, from, Op::identity());
    return ts::thread_reduce(items, op);
  };
  prefetch(a, stage(0));
  prefetch(b, stage(1));
  io::template wait_prefetch<1>();
  T agg_a = Op::identity(); // warp 0 only
  T part_a = bscan::exclusive_then(reduce_landed(a, stage(0)), op, [&](T aggregate) {
    publish_aggregate<T, Op, KIND>(slots, a, gen, aggregate, init);
    agg_a = aggregate;
  });
  for (unsigned step = 0;; ++step) {
    // (1) Tile C goes into the stage tile A of the previous step stored from.
    io::group_sync();
    prefetch(c, stage(sa + 2));
    if (threadIdx.x == 0) s_next[step & 1u] = take_after(c); // read after (2)'s barriers
    io::template wait_prefetch<1>(); // all but the newest group: tile B has landed
    // (2) + (3): warp 0 publishes B's aggregate, then looks back for A.
    const bool has_b = b < tiles;
    auto warp0 = [&](T agg_b) {
      if (has_b) publish_aggregate<T, Op, KIND>(slots, b, gen, agg_b, init);
      const T p = finish_lookback<T, Op, KIND, P>(slots, a, gen, agg_a, init);
      if (threadIdx.x == 0) s_prefix = p;
      agg_a = agg_b;
    };
    T part_b = Op::identity();
    if (has_b) {
      part_b = bscan::exclusive_then(reduce_landed(b, stage(sa + 1)), op, warp0);
    } else {
      if (threadIdx.x < 32) warp0(Op::identity());
      __syncthreads();
    }
    // (4) Scan and store tile A from its stage.
    T items[P::items_per_thread];
    T* here = stage(sa);
    io::read_staged(items, here);
    ts::apply_store(out, n, start_of(a), is_full(a), flags & 1u, items, op(s_prefix, part_a), here);
    if (!has_b) break;
    a = b;
    part_a = part_b;
    b = c;
    c = s_next[step & 1u];
    sa = (sa + 1u) % 3u;
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
