// Warp layer: Kogge-Stone scans and reductions over 32 lanes with shuffles.
// Operand order is kept (lower lanes on the left), so operators need not commute.
#pragma once

namespace scantune {

static const unsigned FULL_WARP = 0xffffffffu;

__device__ __forceinline__ unsigned lane_id() {
  return threadIdx.x & 31u;
}

// Inclusive scan across the warp: lane i gets x0 op ... op xi.
template <class T, class Op>
__device__ __forceinline__ T warp_inclusive_scan(T x, Op op) {
  const unsigned lane = lane_id();
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    T y = __shfl_up_sync(FULL_WARP, x, d);
    if (lane >= unsigned(d)) x = op(y, x);
  }
  return x;
}

// N reductions in lane order at once: lane 0 gets x[i] of lane 0 op ... op x[i] of
// lane 31, for each i (other lanes hold partial results). The N shuffle chains are
// independent and interleaved, so their latencies overlap.
template <int N, class T, class Op>
__device__ __forceinline__ void warp_reduce_ascending(T (&x)[N], Op op) {
  const unsigned lane = lane_id();
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
#pragma unroll
    for (int i = 0; i < N; ++i) {
      T y = __shfl_down_sync(FULL_WARP, x[i], d);
      if (lane + d < 32u) x[i] = op(x[i], y);
    }
  }
}

// Reduction in lane order: lane 0 gets x0 op x1 op ... op x31.
template <class T, class Op>
__device__ __forceinline__ T warp_reduce_ascending(T x, Op op) {
  T one[1] = {x};
  warp_reduce_ascending<1>(one, op);
  return one[0];
}

// Reduction where higher lanes hold *earlier* elements (look-back windows):
// lane 0 gets x31 op x30 op ... op x0.
template <class T, class Op>
__device__ __forceinline__ T warp_reduce_descending(T x, Op op) {
  const unsigned lane = lane_id();
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    T y = __shfl_down_sync(FULL_WARP, x, d);
    if (lane + d < 32u) x = op(y, x);
  }
  return x;
}

} // namespace scantune
