// Warp layer: Kogge-Stone scans and reductions over 32 lanes with shuffles.
// Operand order is kept (lower lanes on the left), so operators need not commute.
// Values shuffle through shfl_up/down/idx: the scalar types by the intrinsics, a
// struct-valued custom operator's struct as 4-byte words (the intrinsics take
// scalars only; codegen guarantees its size is a multiple of 4), a narrow element
// (1 or 2 bytes, which compactions move) in the low bytes of one word.
#pragma once

namespace scantune {

static const unsigned FULL_WARP = 0xffffffffu;

__device__ __forceinline__ unsigned lane_id() {
  return threadIdx.x & 31u;
}

template <class T>
struct shuffles_natively {
  static const bool value = false;
};
template <>
struct shuffles_natively<int> {
  static const bool value = true;
};
template <>
struct shuffles_natively<unsigned> {
  static const bool value = true;
};
template <>
struct shuffles_natively<long long> {
  static const bool value = true;
};
template <>
struct shuffles_natively<unsigned long long> {
  static const bool value = true;
};
template <>
struct shuffles_natively<float> {
  static const bool value = true;
};
template <>
struct shuffles_natively<double> {
  static const bool value = true;
};

// The lanes whose label has the same low BITS bits as this lane's, one ballot a bit
// (every lane of the warp must call it). __match_any_sync gives the same mask, but it
// is a shared-memory-pipe instruction whose latency the radix ranking waited on
// (docs/decisions.md, "Radix sort"). The bit test feeds the ballot and the select
// from one predicate: four instructions a bit.
template <int BITS>
__device__ __forceinline__ unsigned warp_match_bits(unsigned label) {
  unsigned peers = FULL_WARP;
#pragma unroll
  for (int b = 0; b < BITS; ++b) {
    unsigned same;
    asm("{\n\t.reg .pred p;\n\t.reg .b32 m;\n\t"
        "and.b32 m, %1, %2;\n\tsetp.ne.u32 p, m, 0;\n\t"
        "vote.sync.ballot.b32 %0, p, 0xffffffff;\n\t@!p not.b32 %0, %0;\n\t}"
        : "=r"(same)
        : "r"(label), "r"(1u << b));
    peers &= same;
  }
  return peers;
}

enum shuffle_mode { SHFL_UP, SHFL_DOWN, SHFL_IDX };

template <int MODE>
__device__ __forceinline__ unsigned shuffle_word(unsigned x, unsigned arg) {
  if (MODE == SHFL_UP) return __shfl_up_sync(FULL_WARP, x, arg);
  if (MODE == SHFL_DOWN) return __shfl_down_sync(FULL_WARP, x, arg);
  return __shfl_sync(FULL_WARP, x, int(arg));
}

template <int MODE, class T>
__device__ __forceinline__ T shuffle(T x, unsigned arg) {
  if constexpr (shuffles_natively<T>::value) {
    if (MODE == SHFL_UP) return __shfl_up_sync(FULL_WARP, x, arg);
    if (MODE == SHFL_DOWN) return __shfl_down_sync(FULL_WARP, x, arg);
    return __shfl_sync(FULL_WARP, x, int(arg));
  } else if constexpr (sizeof(T) < 4) { // a narrow element (compaction): in one word
    union {
      T t;
      unsigned w;
    } b;
    b.w = 0u;
    b.t = x;
    b.w = shuffle_word<MODE>(b.w, arg);
    return b.t;
  } else {
    static_assert(sizeof(T) % 4 == 0, "a shuffled struct is a whole number of 4-byte words");
    union {
      T t;
      unsigned w[sizeof(T) / 4];
    } b;
    b.t = x;
#pragma unroll
    for (int i = 0; i < int(sizeof(T) / 4); ++i)
      b.w[i] = shuffle_word<MODE>(b.w[i], arg);
    return b.t;
  }
}
template <class T>
__device__ __forceinline__ T shfl_up(T x, unsigned delta) {
  return shuffle<SHFL_UP>(x, delta);
}
template <class T>
__device__ __forceinline__ T shfl_down(T x, unsigned delta) {
  return shuffle<SHFL_DOWN>(x, delta);
}
template <class T>
__device__ __forceinline__ T shfl_idx(T x, unsigned src_lane) {
  return shuffle<SHFL_IDX>(x, src_lane);
}

// Inclusive scan across the warp: lane i gets x0 op ... op xi.
template <class T, class Op>
__device__ __forceinline__ T warp_inclusive_scan(T x, Op op) {
  const unsigned lane = lane_id();
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    T y = shfl_up(x, unsigned(d));
    if (lane >= unsigned(d)) x = op(y, x);
  }
  return x;
}

// Where this lane's part of a row starts, from `incl`, the warp's inclusive scan of the
// lanes' parts, and `carry`, everything before the row (which then moves past the row).
template <class T, class Op>
__device__ __forceinline__ T warp_row_start(T incl, T& carry, Op op) {
  const T before = shfl_up(incl, 1u);
  const T start = lane_id() == 0 ? carry : op(carry, before);
  carry = op(carry, shfl_idx(incl, 31u));
  return start;
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
      T y = shfl_down(x[i], unsigned(d));
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
    T y = shfl_down(x, unsigned(d));
    if (lane + d < 32u) x = op(y, x);
  }
  return x;
}

} // namespace scantune
