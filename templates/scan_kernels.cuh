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

// One block scans every tile in order, carrying the prefix in registers.
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

// Single pass over the input: chained scan or decoupled look-back (thread/warp).
template <class T, class Op, int KIND, class P>
__global__ void __launch_bounds__(P::block_threads) single_pass_kernel(SCANTUNE_KERNEL_PARAMS) {
  static_assert(P::algorithm == ALG_CHAINED || P::algorithm == ALG_LOOKBACK_THREAD ||
                    P::algorithm == ALG_LOOKBACK_WARP,
                "single_pass_kernel runs the chained and look-back algorithms");
  __shared__ unsigned s_ticket, s_gen;
  __shared__ T s_prefix;
  Op op;
  T* smem = tile_smem<T, P>::get();
  if (threadIdx.x == 0) s_gen = take_ticket(ws, s_ticket);
  __syncthreads();
  const unsigned tile = s_ticket, gen = s_gen;
  unsigned long long* slots = ws + STATUS_OFFSET_WORDS;

  tile_scan<T, Op, KIND, P>::run(in, out, n, shift, flags & 1u, tile, smem, [&](T aggregate) -> T {
    if (tile == 0) {
      const T prefix = first_prefix<T, Op, KIND>(init);
      if (threadIdx.x == 0)
        tile_status<T>::publish(slots, 0, make_flag(gen, true),
                                KIND == KIND_EXCLUSIVE ? op(init, aggregate) : aggregate);
      return prefix;
    }
    if (P::algorithm == ALG_LOOKBACK_WARP) {
      if (threadIdx.x < 32) {
        if (threadIdx.x == 0)
          tile_status<T>::publish(slots, tile, make_flag(gen, false), aggregate);
        const T prefix = lookback_warp<T, Op, P::backoff_ns>(slots, tile, gen, op);
        if (threadIdx.x == 0) {
          s_prefix = prefix;
          tile_status<T>::publish(slots, tile, make_flag(gen, true), op(prefix, aggregate));
        }
      }
    } else if (threadIdx.x == 0) {
      T prefix;
      if (P::algorithm == ALG_CHAINED) {
        prefix = wait_predecessor_inclusive<T, P::backoff_ns>(slots, tile, gen);
      } else {
        tile_status<T>::publish(slots, tile, make_flag(gen, false), aggregate);
        prefix = lookback_one_thread<T, Op, P::backoff_ns>(slots, tile, gen, op);
      }
      s_prefix = prefix;
      tile_status<T>::publish(slots, tile, make_flag(gen, true), op(prefix, aggregate));
    }
    __syncthreads();
    return s_prefix;
  });
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
