// Block layer: exclusive scan of one value per thread. Every algorithm returns
// the thread's exclusive prefix (identity for thread 0) and the block aggregate,
// and may be called repeatedly (it starts with a barrier guarding its storage).
//
// scan_with_prefix also asks for the block's own prefix: warp 0 alone calls
// prefix_of(block aggregate) (all 32 lanes, converged; the inter-block
// algorithm publishes and looks back there) and every thread gets
// prefix op (its exclusive prefix within the block). The caller guarantees a
// barrier between two calls (tiles loops end with one).
// exclusive_then is the same scan without a block prefix: warp 0 calls
// then(block aggregate) before the barrier that releases the results, so
// warp-0 work of the caller (publishing, looking back for another tile) and
// its shared-memory writes ride on that barrier.
#pragma once

#include "scantune/policy.cuh"
#include "scantune/warp_scan.cuh"

namespace scantune {

template <class T, class Op, int TPB, int BS>
struct block_scan;

// Warp shuffles, then one warp scans the warp totals.
template <class T, class Op, int TPB>
struct block_scan<T, Op, TPB, BS_WARP_SCANS> {
  static const int WARPS = TPB / 32;
  static __device__ __forceinline__ void exclusive(T x, T& prefix, T& aggregate, Op op) {
    __shared__ T warp_totals[WARPS];
    const unsigned lane = lane_id(), warp = threadIdx.x >> 5;
    T incl = warp_inclusive_scan(x, op);
    T excl = shfl_up(incl, 1u);
    __syncthreads(); // the previous call's readers are done with warp_totals
    if (lane == 31) warp_totals[warp] = incl;
    __syncthreads();
    if (warp == 0) {
      T t = lane < unsigned(WARPS) ? warp_totals[lane] : Op::identity();
      t = warp_inclusive_scan(t, op);
      if (lane < unsigned(WARPS)) warp_totals[lane] = t;
    }
    __syncthreads();
    T warp_prefix = warp > 0 ? warp_totals[warp - 1] : Op::identity();
    prefix = lane > 0 ? op(warp_prefix, excl) : warp_prefix;
    aggregate = warp_totals[WARPS - 1];
  }

  // Two barriers: warp totals in, then warp 0 scans them and
  // warp_start(aggregate, exclusive prefix of the warp totals; lane 0's is
  // undefined) returns each warp's full exclusive prefix for lane = warp.
  template <class WarpStart>
  static __device__ __forceinline__ T scan_core(T x, Op op, WarpStart warp_start) {
    __shared__ T warp_prefix[WARPS];
    const unsigned lane = lane_id(), warp = threadIdx.x >> 5;
    const T incl = warp_inclusive_scan(x, op);
    const T excl = shfl_up(incl, 1u);
    if (lane == 31) warp_prefix[warp] = incl;
    __syncthreads();
    if (warp == 0) {
      const T total = lane < unsigned(WARPS) ? warp_prefix[lane] : Op::identity();
      const T scanned = warp_inclusive_scan(total, op);
      const T before = shfl_up(scanned, 1u);
      const T start = warp_start(shfl_idx(scanned, unsigned(WARPS - 1)), before);
      // One warp: every lane may have loaded warp_prefix[0] above (speculatively,
      // the address being valid), so lane 0 overwrites it only after the warp's reads.
      if (WARPS == 1) __syncwarp();
      if (lane < unsigned(WARPS)) warp_prefix[lane] = start;
    }
    __syncthreads();
    const T wp = warp_prefix[warp];
    return lane > 0 ? op(wp, excl) : wp;
  }

  template <class PrefixFn>
  static __device__ __forceinline__ T scan_with_prefix(T x, Op op, PrefixFn prefix_of) {
    return scan_core(x, op, [&](T aggregate, T before) {
      const T block_prefix = prefix_of(aggregate);
      return lane_id() > 0 ? op(block_prefix, before) : block_prefix;
    });
  }

  template <class Then>
  static __device__ __forceinline__ T exclusive_then(T x, Op op, Then then) {
    return scan_core(x, op, [&](T aggregate, T before) {
      then(aggregate);
      return lane_id() > 0 ? before : Op::identity();
    });
  }
};

// The shared-memory scans: their own exclusive(), then warp 0 runs the hook and
// a barrier releases what it wrote (the block prefix, for scan_with_prefix).
template <class T, class Op, class Scan>
struct with_prefix_broadcast {
  template <class Then>
  static __device__ __forceinline__ T exclusive_then(T x, Op op, Then then) {
    T prefix, aggregate;
    Scan::exclusive(x, prefix, aggregate, op);
    if (threadIdx.x < 32) then(aggregate);
    __syncthreads();
    return prefix;
  }
  template <class PrefixFn>
  static __device__ __forceinline__ T scan_with_prefix(T x, Op op, PrefixFn prefix_of) {
    __shared__ T s_block_prefix;
    const T prefix = exclusive_then(x, op, [&](T aggregate) {
      const T p = prefix_of(aggregate);
      if (threadIdx.x == 0) s_block_prefix = p;
    });
    return op(s_block_prefix, prefix);
  }
};

// Hillis-Steele in shared memory, double buffered (log2(TPB) steps, O(n log n) work).
template <class T, class Op, int TPB>
struct block_scan<T, Op, TPB, BS_HILLIS_STEELE>
    : with_prefix_broadcast<T, Op, block_scan<T, Op, TPB, BS_HILLIS_STEELE>> {
  static __device__ __forceinline__ void exclusive(T x, T& prefix, T& aggregate, Op op) {
    __shared__ T buf[2][TPB];
    const int tid = threadIdx.x;
    __syncthreads();
    buf[0][tid] = x;
    int in = 0;
    for (int d = 1; d < TPB; d <<= 1) {
      __syncthreads();
      T v = buf[in][tid];
      if (tid >= d) v = op(buf[in][tid - d], v);
      buf[1 - in][tid] = v;
      in = 1 - in;
    }
    __syncthreads();
    prefix = tid > 0 ? buf[in][tid - 1] : Op::identity();
    aggregate = buf[in][TPB - 1];
  }
};

template <int N>
struct next_pow2 {
  static const int value = (N <= 1) ? 1 : 2 * next_pow2<(N + 1) / 2>::value;
};
template <>
struct next_pow2<1> {
  static const int value = 1;
};

// Blelloch up-sweep / down-sweep over the next power of two (padded with the
// identity). PADDED inserts one slot every 32 to spread tree levels over banks.
template <class T, class Op, int TPB, bool PADDED>
struct blelloch_scan : with_prefix_broadcast<T, Op, blelloch_scan<T, Op, TPB, PADDED>> {
  static const int P = next_pow2<TPB>::value;
  static __device__ __forceinline__ int at(int i) { return PADDED ? i + (i >> 5) : i; }
  static __device__ __forceinline__ void exclusive(T x, T& prefix, T& aggregate, Op op) {
    __shared__ T buf[PADDED ? P + P / 32 : P];
    __shared__ T total;
    const int tid = threadIdx.x;
    __syncthreads();
    buf[at(tid)] = x;
    if (tid + TPB < P) buf[at(tid + TPB)] = Op::identity();
    int offset = 1;
    for (int d = P >> 1; d > 0; d >>= 1) {
      __syncthreads();
      if (tid < d) {
        int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
        buf[at(bi)] = op(buf[at(ai)], buf[at(bi)]);
      }
      offset <<= 1;
    }
    __syncthreads();
    if (tid == 0) {
      total = buf[at(P - 1)];
      buf[at(P - 1)] = Op::identity();
    }
    for (int d = 1; d < P; d <<= 1) {
      offset >>= 1;
      __syncthreads();
      if (tid < d) {
        int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
        T left = buf[at(ai)];
        buf[at(ai)] = buf[at(bi)];           // left child: the parent's prefix
        buf[at(bi)] = op(buf[at(bi)], left); // right child: parent prefix op left subtree
      }
    }
    __syncthreads();
    prefix = buf[at(tid)];
    aggregate = total;
  }
};
template <class T, class Op, int TPB>
struct block_scan<T, Op, TPB, BS_BLELLOCH> : blelloch_scan<T, Op, TPB, false> {};
template <class T, class Op, int TPB>
struct block_scan<T, Op, TPB, BS_BLELLOCH_PADDED> : blelloch_scan<T, Op, TPB, true> {};

} // namespace scantune
