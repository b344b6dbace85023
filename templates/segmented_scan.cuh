// Segmented scans (agent, block and warp layers for (head, value) pairs): a scan
// that restarts at every segment head. Heads come from a flag array (nonzero
// starts a segment) or fall every `period` elements (rows of a batched scan laid
// end to end). Element 0 always starts a segment.
//
// The pair operator (h1, v1) . (h2, v2) = (h1 | h2, h2 ? v2 : v1 op v2) is
// associative, so the flat engine's structure carries over: a tile's pair
// aggregate, a block scan of pairs, and decoupled look-back. A tile holding a
// head knows its inclusive carry without its predecessors, so it publishes it
// as inclusive at once: look-backs stop there, and need no extra status bits.
// Exclusive scans restart at init: the carry of a segment includes init once.
#pragma once

#include "scantune/tile_scan.cuh"
#include "scantune/tile_status.cuh"

namespace scantune {

// Where segment heads come from (the host's detail::Heads names the same values):
// flags, a period (rows), a run of equal 32/64-bit keys (scan by key), or CSR begin
// offsets of 32/64 bits (segment s is [offsets[s], offsets[s + 1])).
enum heads_id {
  HEADS_FLAGS = 1,
  HEADS_PERIODIC = 2,
  HEADS_KEYS32 = 3,
  HEADS_KEYS64 = 4,
  HEADS_OFFSETS32 = 5,
  HEADS_OFFSETS64 = 6
};

// The arguments segmented kernels take beyond the flat ones (launch.cpp mirrors them).
struct segment_args {
  const unsigned char* flags; // HEADS_FLAGS: one byte per element
  unsigned long long period;  // HEADS_PERIODIC: elements per segment (row length)
  const void* keys;           // HEADS_KEYS*: one key per element
  const void* offsets;        // HEADS_OFFSETS*: num_segments + 1 begin offsets
  unsigned long long num_segments;
  unsigned long long axis_len;      // axis scans (axis_scan.cuh): elements per column
  unsigned long long axis_inner;    // axis scans: columns, the stride of a column's elements
  unsigned long long* num_selected; // compaction (select.cuh): the count of selected items
};

// The word type of 32- or 64-bit keys and offsets.
template <int HEADS>
struct head_word {
  typedef unsigned long long type;
};
template <>
struct head_word<HEADS_KEYS32> {
  typedef unsigned type;
};
template <>
struct head_word<HEADS_OFFSETS32> {
  typedef unsigned type;
};

// Heads of the elements g0 .. g0 + IPT - 1 (bit i: g0 + i starts a segment) from
// flags or keys, read per thread. Only elements in [0, n) are asked about; in a full
// tile (`full`: all of them in [0, n)) none is checked, which halves the 64-bit
// compares of a scan by 64-bit keys. Element 0's bit is the caller's. KEY_VECTORS:
// full tiles read keys by vectors where they can (load_keys).
template <int HEADS, int IPT, bool KEY_VECTORS>
struct read_heads {
  typedef typename head_word<HEADS>::type W;
  static __device__ __forceinline__ bool valid(long long g, unsigned long long n) {
    return g >= 0 && (unsigned long long)g < n;
  }
  static __device__ __forceinline__ unsigned get_full(long long g0, const segment_args& seg) {
    unsigned heads = 0;
    if (HEADS == HEADS_FLAGS) {
#pragma unroll
      for (int i = 0; i < IPT; ++i)
        heads |= seg.flags[g0 + i] != 0 ? 1u << i : 0u;
    } else {
      const W* keys = static_cast<const W*>(seg.keys) + g0;
      W prev = g0 > 0 ? keys[-1] : keys[0];
      W k[IPT];
      load_keys(keys, k);
#pragma unroll
      for (int i = 0; i < IPT; ++i) {
        heads |= k[i] != prev ? 1u << i : 0u;
        prev = k[i];
      }
    }
    return heads;
  }
  // A thread's IPT keys by 16- or 8-byte vectors where they start on one (the keys are
  // aligned as the values are), else one by one: a warp's key load asks for 32 scattered
  // sectors, and vectors halve those requests for 64-bit keys, quarter them for 32-bit.
  static const int KEY_BYTES = IPT * int(sizeof(W));
  static const int KEY_VEC = !KEY_VECTORS          ? int(sizeof(W))
                             : KEY_BYTES % 16 == 0 ? 16
                             : KEY_BYTES % 8 == 0  ? 8
                                                   : int(sizeof(W));
  static __device__ __forceinline__ void load_keys(const W* keys, W (&k)[IPT]) {
    typedef typename raw_vector<KEY_VEC>::type V;
    if (KEY_VEC > int(sizeof(W)) && reinterpret_cast<unsigned long long>(keys) % KEY_VEC == 0) {
#pragma unroll
      for (int v = 0; v < KEY_BYTES / KEY_VEC; ++v)
        reinterpret_cast<V*>(k)[v] = reinterpret_cast<const V*>(keys)[v];
    } else {
#pragma unroll
      for (int i = 0; i < IPT; ++i)
        k[i] = keys[i];
    }
  }
  static __device__ __forceinline__ unsigned get(long long g0, unsigned long long n, bool full,
                                                 const segment_args& seg) {
    if (full) return get_full(g0, seg);
    unsigned heads = 0;
    if (HEADS == HEADS_FLAGS) {
#pragma unroll
      for (int i = 0; i < IPT; ++i)
        if (valid(g0 + i, n) && seg.flags[g0 + i] != 0) heads |= 1u << i;
    } else {
      const W* keys = static_cast<const W*>(seg.keys);
      W prev = valid(g0 - 1, n) ? keys[g0 - 1] : W(0);
#pragma unroll
      for (int i = 0; i < IPT; ++i) {
        const long long g = g0 + i;
        if (!valid(g, n)) continue;
        const W k = keys[g];
        if (g > 0 && k != prev) heads |= 1u << i;
        prev = k;
      }
    }
    return heads;
  }
};

// The head source segmented_bulk_kernel stages beside a tile's values: a flag byte or a
// key per element. bits<VEC>(h, p, start, n, mask, before): the head bits of the VEC
// elements at offset p of a stage whose element 0 is input element `start` (bit e:
// start + p + e starts a segment; element 0 always does; with `mask`, a partial tile,
// none outside [0, n)). A key is compared with the one before it: in the stage, or for
// the tile's first element *before, which the producer staged (the reducer and the
// first consumer read it from the input: a round trip on their path every tile).
__device__ __forceinline__ unsigned element_zero_bit(long long g0, int vec) {
  return g0 <= 0 && g0 + vec > 0 ? 1u << unsigned(-g0) : 0u;
}

// Bit e set where byte e of the VEC staged flag bytes at h is nonzero.
template <int VEC>
__device__ __forceinline__ unsigned flag_byte_bits(const unsigned char* h) {
  const typename raw_vector<VEC>::type w =
      *reinterpret_cast<const typename raw_vector<VEC>::type*>(h);
  if (VEC == 4) { // byte e's nonzero bit moved to bit 24 + e by one multiply
    const unsigned ones = __vcmpne4(unsigned(w), 0u) & 0x01010101u;
    return (ones * 0x01020408u) >> 24;
  }
  const unsigned char* b = reinterpret_cast<const unsigned char*>(&w);
  unsigned out = 0;
#pragma unroll
  for (int e = 0; e < VEC; ++e)
    out |= b[e] != 0 ? 1u << e : 0u;
  return out;
}

// What a staged head source holds: words of `type` (each for ELEMENTS_PER_WORD elements)
// read from `source_type` in memory.
template <class Word, class Source, int PER_WORD>
struct staged_words {
  typedef Word type;
  typedef Source source_type;
  static const int ELEMENTS_PER_WORD = PER_WORD;
};

// flags: the producer stages 0 outside the input
template <int HEADS>
struct staged_head : staged_words<unsigned char, unsigned char, 1> {
  static const bool BEFORE = false; // no word before the tile staged
  template <int VEC>
  static __device__ __forceinline__ unsigned bits(const unsigned char* h, long long p,
                                                  long long start, unsigned long long, bool,
                                                  const unsigned char*) {
    return flag_byte_bits<VEC>(h + p) | element_zero_bit(start + p, VEC);
  }
};

template <class K>
struct staged_keys : staged_words<K, K, 1> {
  static const bool BEFORE = true; // the key before the tile staged
  template <int VEC>
  static __device__ __forceinline__ unsigned
  bits(const K* h, long long p, long long start, unsigned long long n, bool mask, const K* before) {
    const int BYTES = VEC * int(sizeof(K)), CHUNK = BYTES > 16 ? 16 : BYTES;
    typedef typename raw_vector<CHUNK>::type C;
    C chunks[BYTES / CHUNK];
#pragma unroll
    for (int c = 0; c < BYTES / CHUNK; ++c)
      chunks[c] = reinterpret_cast<const C*>(h + p)[c];
    const K* k = reinterpret_cast<const K*>(chunks);
    const long long g0 = start + p;
    K prev = p > 0 ? h[p - 1] : g0 > 0 ? *before : K(0);
    unsigned out = element_zero_bit(g0, VEC);
#pragma unroll
    for (int e = 0; e < VEC; ++e) {
      out |= k[e] != prev ? 1u << e : 0u;
      prev = k[e];
    }
    if (mask)
#pragma unroll
      for (int e = 0; e < VEC; ++e)
        if (g0 + e < 0 || (unsigned long long)(g0 + e) >= n) out &= ~(1u << e);
    return out;
  }
};
template <>
struct staged_head<HEADS_KEYS32> : staged_keys<unsigned> {};
template <>
struct staged_head<HEADS_KEYS64> : staged_keys<unsigned long long> {};

// CSR offsets are no per-element source: the producer stages a tile's heads as bits, a
// word per 32 elements (stage_offset_bits), none outside [0, n).
template <class OffsetWord>
struct staged_offset_bits : staged_words<unsigned, OffsetWord, 32> {
  static const bool BEFORE = false;
  template <int VEC>
  static __device__ __forceinline__ unsigned bits(const unsigned* h, long long p, long long start,
                                                  unsigned long long, bool, const unsigned*) {
    const unsigned mask = VEC >= 32 ? ~0u : (1u << VEC) - 1u; // VEC divides 32: one word
    return ((h[p >> 5] >> unsigned(p & 31)) & mask) | element_zero_bit(start + p, VEC);
  }
};
template <>
struct staged_head<HEADS_OFFSETS32> : staged_offset_bits<unsigned> {};
template <>
struct staged_head<HEADS_OFFSETS64> : staged_offset_bits<unsigned long long> {};

// Heads of g0 .. g0 + IPT - 1 from few CSR offsets, by the thread alone: the first
// offset >= g0 by binary search (off stays in L1), then every offset inside the range
// (empty segments repeat an offset: the same head).
template <class W, int IPT>
__device__ __forceinline__ unsigned thread_offset_heads(long long g0, unsigned long long n,
                                                        const W* off, unsigned long long count) {
  const long long lo_g = g0 < 0 ? 0 : g0;
  unsigned long long lo = 0, hi = count;
  while (lo < hi) {
    const unsigned long long mid = (lo + hi) / 2;
    if ((long long)off[mid] < lo_g)
      lo = mid + 1;
    else
      hi = mid;
  }
  unsigned heads = 0;
  for (unsigned long long s = lo; s < count; ++s) {
    const long long g = (long long)off[s];
    if (g >= g0 + IPT || (unsigned long long)g >= n) break;
    heads |= 1u << unsigned(g - g0);
  }
  return heads;
}

// The first index s in [lo, hi) with off[s] >= target (hi if none), off ascending, by a
// whole warp: each round samples 32 evenly spaced offsets in one round trip and keeps
// the gap where they cross the target (a binary search takes log2(hi - lo) trips).
template <class W>
__device__ __forceinline__ unsigned long long
warp_lower_bound(const W* off, unsigned long long lo, unsigned long long hi, long long target) {
  const unsigned lane = lane_id();
  while (hi - lo > 32) { // the answer is in [lo, hi]
    const unsigned long long step = (hi - lo + 31) / 32, idx = lo + lane * step;
    const unsigned yes =
        __ballot_sync(FULL_WARP, idx >= hi || (long long)off[idx] >= target); // monotone
    if (yes == 0) {
      lo += 31 * step + 1;
    } else {
      const unsigned k = unsigned(__ffs(yes) - 1);
      hi = min(hi, lo + k * step);
      if (k > 0) lo += (k - 1) * step + 1;
    }
  }
  const unsigned long long idx = lo + lane;
  const unsigned yes = __ballot_sync(FULL_WARP, idx >= hi || (long long)off[idx] >= target);
  return yes ? lo + unsigned(__ffs(yes) - 1) : hi;
}

// The first index of a 32-offset window centred where the first offset at or past
// `target` would be if `count` segments split n evenly.
__device__ __forceinline__ unsigned long long
mean_length_window(long long target, unsigned long long count, unsigned long long n) {
  const unsigned long long guess =
      (unsigned long long)(double(target) * (double(count) / double(n > 0 ? n : 1)));
  return guess > 16 ? guess - 16 : 0;
}

// off[s + r * stride] for r < R, `none` past count.
template <int R, class W>
__device__ __forceinline__ void read_offsets(long long (&g)[R], const W* off,
                                             unsigned long long count, unsigned long long s,
                                             unsigned stride, long long none) {
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const unsigned long long i = s + unsigned(r) * stride;
    g[r] = i < count ? (long long)off[i] : none;
  }
}

// Sets bit g - at of `bits` for each offset g in [lo, hi) (empty segments repeat one);
// true if one is at or past hi (a reader's later offsets are too).
template <int R>
__device__ __forceinline__ bool offsets_to_bits(unsigned* bits, const long long (&g)[R],
                                                long long at, long long lo, long long hi) {
  bool past = false;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    past |= g[r] >= hi;
    if (g[r] >= lo && g[r] < hi) {
      const unsigned k = unsigned(g[r] - at);
      atomicOr(&bits[k >> 5], 1u << (k & 31));
    }
  }
  return past;
}

// The first index s in [0, count) with off[s] >= target (count if none), n the input's
// length: one round trip reads the 32 offsets around where target falls if segments had
// the mean length n / count (for uniform segments the answer), and warp_lower_bound
// searches only the side they leave (from 0: offsets every 32 at 2^28 took five trips).
template <class W>
__device__ __forceinline__ unsigned long long
warp_lower_bound_guessed(const W* off, unsigned long long count, unsigned long long n,
                         long long target) {
  const unsigned long long base = mean_length_window(target, count, n), idx = base + lane_id();
  const unsigned yes = __ballot_sync(FULL_WARP, idx >= count || (long long)off[idx] >= target);
  if (yes & 1u) return base == 0 ? 0ull : warp_lower_bound(off, 0ull, min(base, count), target);
  if (yes) return base + unsigned(__ffs(yes) - 1);
  return warp_lower_bound(off, base + 32, count, target);
}

// The producer warp of segmented_bulk_kernel stages the head bits of tile [at, at + tile)
// from `count` CSR offsets: `words` cleared, then a bit set at each offset inside the
// tile and [0, n) (empty segments repeat one). Two searches share the first round trip:
// a window of 32 * R offsets around where the tile's first offset would be if segments
// had the input's mean length (uniform segments: the tile's offsets in one trip; the
// search alone took six for segments of 32 and tiles far apart), and a probe from
// `cursor` (the warp's, from 0: the first offset at or past the previous tile's start;
// a block's tiles rise) of 16 consecutive offsets and 16 doubling distances ahead,
// which for segments longer than a tile finds the tile's heads at once; a gap it leaves
// goes to warp_lower_bound. Offsets past the trip's go by 32 * R a trip.
template <class W>
__device__ __forceinline__ void
stage_offset_bits(unsigned* bits, int words, const W* off, unsigned long long count, long long at,
                  long long tile, unsigned long long n, unsigned long long& cursor) {
  const int R = 4;
  const unsigned lane = lane_id();
  for (int i = int(lane); i < words; i += 32)
    bits[i] = 0u;
  __syncwarp();
  const long long lo_g = at < 0 ? 0 : at, end = (long long)n;
  const long long hi_g = at + tile < end ? at + tile : end;
  const long long NONE = 0x7fffffffffffffffll; // past the last offset: ends both searches
  auto take_from = [&](unsigned long long s) { // R offsets a lane a trip until past the tile
    for (;; s += 32 * R) {
      long long g[R];
      read_offsets<R>(g, off, count, s + lane, 32, NONE);
      if (__any_sync(FULL_WARP, offsets_to_bits<R>(bits, g, at, lo_g, hi_g))) return;
    }
  };
  const unsigned long long base = mean_length_window(lo_g, count, n);
  long long w[R];
  read_offsets<R>(w, off, count, base + lane, 32, NONE);
  auto ahead = [](unsigned k) { return k < 16 ? 1ull * k : 16ull << (k - 16); };
  const unsigned long long cur = cursor, idx = cur + ahead(lane);
  const long long v = idx < count ? (long long)off[idx] : NONE;
  // The window holds the first offset at or past lo_g if it starts before lo_g and
  // reaches it (offsets ascend: the count below lo_g is that index's distance from base).
  unsigned below = 0;
#pragma unroll
  for (int j = 0; j < R; ++j)
    below += unsigned(__popc(__ballot_sync(FULL_WARP, w[j] < lo_g)));
  if ((base == 0 || below > 0) && below < 32u * R) {
    cursor = base + below;
    if (!__any_sync(FULL_WARP, offsets_to_bits<R>(bits, w, at, lo_g, hi_g)))
      take_from(base + 32 * R);
    return;
  }
  const unsigned yes = __ballot_sync(FULL_WARP, v >= lo_g);
  unsigned long long first;
  if (yes & 0xffffu) {
    first = cur + unsigned(__ffs(yes) - 1);
  } else {
    const unsigned k = yes ? unsigned(__ffs(yes) - 1) : 32u; // in (ahead(k - 1), ahead(k)]
    const unsigned long long hi = k < 32 ? cur + ahead(k) : count;
    first = warp_lower_bound(off, cur + ahead(k - 1) + 1, hi < count ? hi : count, lo_g);
  }
  cursor = first;
  if (first >= cur + 16) return take_from(first);
  // the probe's consecutive offsets from `first` on are read
  const long long mine[1] = {lane < 16 && idx >= first ? v : lo_g - 1};
  if (!__ballot_sync(FULL_WARP, offsets_to_bits<1>(bits, mine, at, lo_g, hi_g)))
    take_from(cur + 16);
}

// A (head, value) pair; a.then(b) is a . b under the pair operator, whose identity is
// (no head, the operator's identity).
template <class T, class Op>
struct seg_pair {
  T v;
  unsigned h;
  static __device__ __forceinline__ seg_pair identity() { return seg_pair{Op::identity(), 0u}; }
  __device__ __forceinline__ seg_pair then(const seg_pair& b, Op op) const {
    return seg_pair{b.h ? b.v : op(v, b.v), h | b.h};
  }
};

// Warp and block inclusive/exclusive scans of (head, value) pairs.
template <class T, class Op>
struct pair_scan {
  // N reductions in lane order, interleaved: lane 0 gets each pair(x0) . ... . pair(x31).
  template <int N>
  static __device__ __forceinline__ void warp_reduce_ascending(T (&v)[N], unsigned (&h)[N], Op op) {
    const unsigned lane = lane_id();
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
#pragma unroll
      for (int i = 0; i < N; ++i) {
        const T yv = shfl_down(v[i], unsigned(d));
        const unsigned yh = __shfl_down_sync(FULL_WARP, h[i], d);
        if (lane + d < 32u) {
          v[i] = yh ? yv : op(v[i], yv);
          h[i] |= yh;
        }
      }
    }
  }

  // Inclusive across the warp: lane i gets pair(x0) . ... . pair(xi).
  static __device__ __forceinline__ void warp_inclusive(T& v, unsigned& h, Op op) {
    const unsigned lane = lane_id();
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const T yv = __shfl_up_sync(FULL_WARP, v, d);
      const unsigned yh = __shfl_up_sync(FULL_WARP, h, d);
      if (lane >= unsigned(d)) {
        if (!h) v = op(yv, v);
        h |= yh;
      }
    }
  }

  // Every thread's exclusive carry: `prefix_of(aggregate value, aggregate head)`,
  // called by warp 0 (all lanes), returns the block's carry-in; a thread whose
  // exclusive pair holds a head ignores it. One barrier pair; the caller guarantees
  // a barrier between two calls.
  template <int TPB, class PrefixFn>
  static __device__ __forceinline__ T block_exclusive(T v, unsigned h, Op op, PrefixFn prefix_of) {
    const int WARPS = TPB / 32;
    __shared__ T s_val[WARPS];
    __shared__ unsigned s_head[WARPS];
    const unsigned lane = lane_id(), warp = threadIdx.x >> 5;
    warp_inclusive(v, h, op);
    const T ev = __shfl_up_sync(FULL_WARP, v, 1);
    const unsigned eh = __shfl_up_sync(FULL_WARP, h, 1); // every lane shuffles; lane 0 ignores it
    if (lane == 31) {
      s_val[warp] = v;
      s_head[warp] = h;
    }
    __syncthreads();
    if (warp == 0) {
      T tv = lane < unsigned(WARPS) ? s_val[lane] : Op::identity();
      unsigned th = lane < unsigned(WARPS) ? s_head[lane] : 0u;
      warp_inclusive(tv, th, op);
      const T carry =
          prefix_of(__shfl_sync(FULL_WARP, tv, WARPS - 1), __shfl_sync(FULL_WARP, th, WARPS - 1));
      // Warp w's carry-in: the block's, folded with warps 0 .. w-1.
      const T bv = __shfl_up_sync(FULL_WARP, tv, 1);
      const unsigned bh = __shfl_up_sync(FULL_WARP, th, 1);
      const T start = lane == 0 ? carry : (bh ? bv : op(carry, bv));
      if (WARPS == 1) __syncwarp(); // lane 0 overwrites what the warp read above
      if (lane < unsigned(WARPS)) s_val[lane] = start;
    }
    __syncthreads();
    const T ws = s_val[warp];
    if (lane == 0) return ws;
    return eh ? ev : op(ws, ev);
  }
};

template <class T, class Op, int KIND, class P, int HEADS>
struct segmented_tile_scan {
  static const int TPB = P::block_threads, IPT = P::items_per_thread, TILE = P::tile_items;
  static const int HEAD_WORDS = TILE / 32 + 2; // a tile's head bits and a spare word
  typedef tile_io<T, P> io;

  // HEAD_WORDS of shared memory: the staged tile's buffer where it has one, else its own.
  static __device__ __forceinline__ unsigned* head_bits(T* smem) {
    if constexpr (tile_footprint<T, P>::SHARED_BYTES >= HEAD_WORDS * 4) {
      return reinterpret_cast<unsigned*>(smem);
    } else {
      __shared__ unsigned own[HEAD_WORDS];
      return own;
    }
  }

  // CSR offsets: warp 0 finds the tile's first segment (warp_lower_bound_guessed), then
  // the block reads the tile's offsets coalesced, R a thread a trip, and sets their bits
  // (empty segments repeat one); each thread takes its IPT bits. A thread's own binary
  // search took log2(segments) dependent loads (offsets every 32 at 2^28: 0.68x memcpy);
  // a search from 0 and an offset a thread a trip, 0.79x (0.71x for segments of 4);
  // this way 0.97x (0.86x). Up to kFewSegments a thread's search stays in L1 and costs
  // less than three barriers (14 segments at 2^20: 1.06x). Every thread of the block
  // calls it.
  static __device__ __forceinline__ unsigned offset_heads(long long g_start, long long g0,
                                                          unsigned long long n,
                                                          const segment_args& seg, T* smem) {
    typedef typename head_word<HEADS>::type W;
    const W* off = static_cast<const W*>(seg.offsets);
    const unsigned long long kFewSegments = 64;
    if (seg.num_segments <= kFewSegments) // the same for the whole grid
      return thread_offset_heads<W, IPT>(g0, n, off, seg.num_segments);
    unsigned* bits = head_bits(smem);
    __shared__ unsigned long long s_first;
    __syncthreads(); // a staged load has read the buffer
    for (int i = threadIdx.x; i < HEAD_WORDS; i += TPB)
      bits[i] = 0u;
    if (threadIdx.x < 32) {
      const unsigned long long first =
          warp_lower_bound_guessed(off, seg.num_segments, n, g_start < 0 ? 0 : g_start);
      if (threadIdx.x == 0) s_first = first;
    }
    __syncthreads();
    // A thread's indices rise: it stops at its first offset past the tile.
    const int R = 4;
    const long long end = min(g_start + TILE, (long long)n);
    for (unsigned long long s = s_first + threadIdx.x;; s += R * TPB) {
      long long g[R];
      read_offsets<R>(g, off, seg.num_segments, s, TPB, end);
      if (offsets_to_bits<R>(bits, g, g_start, g_start, end)) break;
    }
    __syncthreads(); // the bits are read before the block scan's barrier, the store after
    const unsigned j0 = unsigned(g0 - g_start);
    const unsigned long long w = bits[j0 / 32] | ((unsigned long long)bits[j0 / 32 + 1] << 32);
    return unsigned(w >> (j0 % 32)) & (IPT == 32 ? ~0u : (1u << IPT) - 1u);
  }

  // Heads of this thread's items (bit i: item i starts a segment); none outside [0, n).
  static __device__ __forceinline__ unsigned load_heads(long long g_start, long long g0,
                                                        unsigned long long n, bool full,
                                                        const segment_args& seg, T* smem) {
    unsigned heads = 0;
    if constexpr (HEADS == HEADS_OFFSETS32 || HEADS == HEADS_OFFSETS64) {
      heads = offset_heads(g_start, g0, n, seg, smem);
    } else if (HEADS == HEADS_PERIODIC) {
      long long first = g0 < 0 ? 0 : g0;
      unsigned long long pos = (unsigned long long)first % seg.period;
#pragma unroll
      for (int i = 0; i < IPT; ++i) {
        const long long g = g0 + i;
        if (g >= 0 && (unsigned long long)g < n) {
          if (pos == 0) heads |= 1u << i;
          if (++pos == seg.period) pos = 0;
        }
      }
    } else {
      // Not where keys are wider than values: int32 by 64-bit keys lost up to 28% at 2^28.
      heads = read_heads<HEADS, IPT, sizeof(typename head_word<HEADS>::type) <= sizeof(T)>::get(
          g0, n, full, seg);
    }
    heads |= element_zero_bit(g0, IPT); // element 0
    return heads;
  }

  // The carry after this thread's items from a thread-local start (pair value).
  static __device__ __forceinline__ T thread_reduce(const T (&items)[IPT], unsigned heads, T init,
                                                    Op op) {
    T acc = Op::identity();
#pragma unroll
    for (int i = 0; i < IPT; ++i) {
      if (heads & (1u << i))
        acc = KIND == KIND_EXCLUSIVE ? op(init, items[i]) : items[i];
      else
        acc = op(acc, items[i]);
    }
    return acc;
  }

  // Scans tile t. prefix_of(aggregate, has_head, first_is_head) runs in warp 0 and
  // returns the tile's carry-in (ignored where a head comes first).
  template <class PrefixFn>
  static __device__ __forceinline__ void
  run(const T* in, T* out, unsigned long long n, unsigned shift, bool out_vec_ok,
      unsigned long long t, T* smem, const segment_args& seg, T init, PrefixFn prefix_of) {
    Op op;
    const long long g_start = (long long)(t * TILE) - (long long)shift;
    T items[IPT];
    const bool full = tile_scan<T, Op, KIND, P>::load(in, n, g_start, items, smem);
    const long long g0 = g_start + (long long)threadIdx.x * IPT;
    const unsigned heads = load_heads(g_start, g0, n, full, seg, smem);
    // Tile 0's padding before element 0 holds no head: its thread-0 pair is headless.
    const bool first_is_head = (heads & 1u) != 0;
    T running = pair_scan<T, Op>::template block_exclusive<TPB>(
        thread_reduce(items, heads, init, op), heads != 0u, op, [&](T agg, unsigned has_head) {
          const unsigned first = __shfl_sync(FULL_WARP, first_is_head ? 1u : 0u, 0);
          return prefix_of(agg, has_head != 0u, first != 0u);
        });
#pragma unroll
    for (int i = 0; i < IPT; ++i) {
      const T x = items[i];
      const bool head = (heads & (1u << i)) != 0;
      if (KIND == KIND_EXCLUSIVE) {
        items[i] = head ? init : running;
        running = op(head ? init : running, x);
      } else {
        running = head ? x : op(running, x);
        items[i] = running;
      }
    }
    tile_scan<T, Op, KIND, P>::store(out, n, g_start, full, out_vec_ok, items, smem);
  }
};

} // namespace scantune
