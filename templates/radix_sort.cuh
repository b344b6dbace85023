// LSD radix sort, onesweep style: one histogram kernel counts the digits of every
// pass in one read of the keys, a tiny kernel turns each pass's counts into digit
// start offsets, then one kernel per pass ranks, looks back and scatters; or, for
// small inputs, one cooperative kernel does all of it between grid barriers. Passes
// whose keys all share one digit (the high bytes of small integers, the low ones of
// short floats) would leave them in place: two of them in a row are skipped
// (radix_skipped_passes).
//
// Keys are sorted as unsigned bit patterns: radix_key<K> maps each key type to an
// unsigned word whose unsigned order is the key order (sign flip for signed
// integers; for floats the IEEE total order: -NaN < -inf < ... < -0.0 < +0.0 < ... <
// +inf < +NaN). Descending order inverts that word. Values move as raw bits.
//
// Per pass, a block takes the next tile from an atomic ticket (so every earlier tile
// has started: the look-back below makes progress), ranks its keys by digit within
// the tile (stable: warp-private counters filled in input order, the lanes of a digit
// found by ballots), publishes its per-digit counts (before the ranking with early
// counts), looks back over the earlier tiles' counts of each digit (one 64-bit
// status word per (tile, digit)), and scatters through shared memory to
// digit_start[d] + (items of digit d in earlier tiles) + local rank.
//
// Device-only: no host or standard headers (NVRTC).
#pragma once

#include "scantune/tile_status.cuh"
#include "scantune/warp_scan.cuh"

namespace scantune {

// The ordered unsigned word of each key type.
template <class K>
struct radix_key;
template <>
struct radix_key<unsigned int> {
  typedef unsigned int U;
  static __device__ __forceinline__ U to_ordered(U x) { return x; }
  static __device__ __forceinline__ U from_ordered(U x) { return x; }
};
template <>
struct radix_key<unsigned long long> {
  typedef unsigned long long U;
  static __device__ __forceinline__ U to_ordered(U x) { return x; }
  static __device__ __forceinline__ U from_ordered(U x) { return x; }
};
template <>
struct radix_key<int> {
  typedef unsigned int U;
  static __device__ __forceinline__ U to_ordered(U x) { return x ^ 0x80000000u; }
  static __device__ __forceinline__ U from_ordered(U x) { return x ^ 0x80000000u; }
};
template <>
struct radix_key<long long> {
  typedef unsigned long long U;
  static __device__ __forceinline__ U to_ordered(U x) { return x ^ 0x8000000000000000ull; }
  static __device__ __forceinline__ U from_ordered(U x) { return x ^ 0x8000000000000000ull; }
};
// Negative floats reverse their order by inverting every bit; positive ones go above
// them by setting the sign bit.
template <class U>
struct radix_float_key {
  static const U SIGN = U(1) << (sizeof(U) * 8 - 1);
  static __device__ __forceinline__ U to_ordered(U x) { return (x & SIGN) ? ~x : (x | SIGN); }
  static __device__ __forceinline__ U from_ordered(U x) { return (x & SIGN) ? (x & ~SIGN) : ~x; }
};
template <>
struct radix_key<float> : radix_float_key<unsigned int> {
  typedef unsigned int U;
};
template <>
struct radix_key<double> : radix_float_key<unsigned long long> {
  typedef unsigned long long U;
};

// The raw word moving a value of VALUE_BYTES (0: keys only, no values).
template <int VALUE_BYTES>
struct radix_value {
  typedef unsigned int type;
};
template <>
struct radix_value<8> {
  typedef unsigned long long type;
};

// A pass's digit: `bits` (at most RADIX_BITS) bits of the ordered key from `shift`.
template <class U>
__device__ __forceinline__ unsigned radix_digit(U ordered, unsigned shift, unsigned bits) {
  return unsigned(ordered >> shift) & ((1u << bits) - 1u);
}

// Status word of one (tile, digit): the count of that digit in the tile (AGGREGATE)
// or in every tile up to this one (INCLUSIVE); 0 = not published yet.
// Bits 40-61 carry the pass's tag, which no other pass or earlier sort has left in the
// stream's status words (the host's take_sort_tags): a word they left reads as not
// published in this pass.
static const unsigned long long RADIX_INCLUSIVE = 1ull << 63;
static const unsigned long long RADIX_AGGREGATE = 1ull << 62;
static const int RADIX_TAG_SHIFT = 40; // counts below 2^40 keys
static const unsigned long long RADIX_COUNT_MASK = (1ull << RADIX_TAG_SHIFT) - 1ull;
static const unsigned long long RADIX_TAG_MASK = RADIX_AGGREGATE - 1ull - RADIX_COUNT_MASK;

// Passes over [begin_bit, end_bit) with digits of RADIX_BITS (sort_passes on the host).
template <int RADIX_BITS>
__device__ __forceinline__ unsigned radix_passes(unsigned begin_bit, unsigned end_bit) {
  return (end_bit - begin_bit + RADIX_BITS - 1) / RADIX_BITS;
}

// Histogram of every pass in one read: per-block 32-bit shared counters
// [pass][digit] (`counts`, MAX_PASSES * RADIX words), then one 64-bit global atomic per
// nonzero counter into hist[pass * RADIX + digit] (zeroed by the host). A grid-stride
// loop over 16-byte vectors, LOADS of them in flight a thread (one key at a time kept
// too few bytes in flight: 2^28 uint32 keys took 742 us, CUB's histogram 455); the keys
// before the first 16-byte boundary and after the last whole vector one at a time. The
// host keeps a block's share of the keys below 2^32.
template <class K, int TPB, int RADIX_BITS>
struct radix_histogram {
  typedef radix_key<K> RK;
  typedef typename RK::U U;
  static const int RADIX = 1 << RADIX_BITS;
  static const int MAX_PASSES = (int(sizeof(U)) * 8 + RADIX_BITS - 1) / RADIX_BITS;
  static const int VEC = 16 / int(sizeof(U)), LOADS = 4;

  struct passes_of {
    unsigned count, shift[MAX_PASSES], bits[MAX_PASSES];
  };

  // WHOLE: the passes cover the whole key from bit 0 (every sort but one given a bit
  // range), so each digit's shift and width are constants and no pass is tested (2^28
  // uint32 keys: 324 M warp instructions -> 171 M, CUB's histogram 184 M).
  template <bool WHOLE>
  static __device__ __forceinline__ void add(unsigned* counts, const passes_of& ps, U u) {
    const int KEY_BITS = int(sizeof(U)) * 8;
#pragma unroll
    for (int p = 0; p < MAX_PASSES; ++p) {
      const int last = KEY_BITS - p * RADIX_BITS; // the whole key's bits from this pass on
      const unsigned shift = WHOLE ? p * RADIX_BITS : ps.shift[p];
      const unsigned bits = WHOLE ? (last < RADIX_BITS ? last : RADIX_BITS) : ps.bits[p];
      if (WHOLE || p < ps.count) atomicAdd(&counts[p * RADIX + radix_digit(u, shift, bits)], 1u);
    }
  }

  // A grid-stride loop over the 16-byte vectors, LOADS in flight a thread, then the keys
  // before the first and after the last one at a time.
  template <bool WHOLE>
  static __device__ __forceinline__ void sweep(const U* words, unsigned long long n, U flip,
                                               const passes_of& ps, unsigned* counts) {
    const unsigned long long misaligned =
        (reinterpret_cast<unsigned long long>(words) & 15) / sizeof(U);
    const unsigned long long head = min(n, (unsigned long long)(misaligned ? VEC - misaligned : 0));
    const unsigned long long vectors = (n - head) / VEC;
    const unsigned long long thread = (unsigned long long)blockIdx.x * TPB + threadIdx.x;
    const unsigned long long threads = (unsigned long long)gridDim.x * TPB;
    const uint4* vec = reinterpret_cast<const uint4*>(words + head);
    for (unsigned long long v = (unsigned long long)blockIdx.x * TPB * LOADS + threadIdx.x;
         v < vectors; v += threads * LOADS) {
      uint4 x[LOADS];
#pragma unroll
      for (int l = 0; l < LOADS; ++l)
        if (v + l * TPB < vectors) x[l] = vec[v + l * TPB];
#pragma unroll
      for (int l = 0; l < LOADS; ++l) {
        if (v + l * TPB >= vectors) break;
        const U* k = reinterpret_cast<const U*>(&x[l]);
#pragma unroll
        for (int j = 0; j < VEC; ++j)
          add<WHOLE>(counts, ps, RK::to_ordered(k[j]) ^ flip);
      }
    }
    for (unsigned long long i = thread; i < head; i += threads)
      add<WHOLE>(counts, ps, RK::to_ordered(words[i]) ^ flip);
    for (unsigned long long i = head + vectors * VEC + thread; i < n; i += threads)
      add<WHOLE>(counts, ps, RK::to_ordered(words[i]) ^ flip);
  }

  static __device__ __forceinline__ void count(const K* keys, unsigned long long n,
                                               unsigned begin_bit, unsigned end_bit,
                                               unsigned descending, unsigned* counts,
                                               unsigned long long* hist) {
    passes_of ps;
    ps.count = radix_passes<RADIX_BITS>(begin_bit, end_bit);
#pragma unroll
    for (int p = 0; p < MAX_PASSES; ++p) {
      ps.shift[p] = min(begin_bit + p * RADIX_BITS, end_bit);
      ps.bits[p] = min(unsigned(RADIX_BITS), end_bit - ps.shift[p]);
    }
    for (unsigned i = threadIdx.x; i < ps.count * RADIX; i += TPB)
      counts[i] = 0;
    __syncthreads();
    const U* words = reinterpret_cast<const U*>(keys);
    const U flip = descending ? ~U(0) : U(0);
    if (begin_bit == 0 && end_bit == sizeof(U) * 8)
      sweep<true>(words, n, flip, ps, counts);
    else
      sweep<false>(words, n, flip, ps, counts);
    __syncthreads();
    for (unsigned i = threadIdx.x; i < ps.count * RADIX; i += TPB)
      if (counts[i]) atomicAdd(&hist[i], (unsigned long long)counts[i]);
  }
};

template <class K, int TPB, int RADIX_BITS>
__global__ void __launch_bounds__(TPB)
    radix_histogram_kernel(const K* keys, unsigned long long n, unsigned begin_bit,
                           unsigned end_bit, unsigned descending, unsigned long long* hist) {
  typedef radix_histogram<K, TPB, RADIX_BITS> H;
  __shared__ unsigned counts[H::MAX_PASSES * H::RADIX];
  H::count(keys, n, begin_bit, end_bit, descending, counts, hist);
}

// Exclusive scan of N counts into `starts` (may be `counts`) by the calling warp, each
// lane a run of consecutive entries.
template <int N, class T>
__device__ __forceinline__ void lane_exclusive_runs(const T* counts, T* starts) {
  const int RUN = (N + 31) / 32;
  const int first = int(lane_id()) * RUN;
  T sum = 0;
  for (int d = first; d < first + RUN && d < N; ++d)
    sum += counts[d];
  T incl = sum;
#pragma unroll
  for (int k = 1; k < 32; k <<= 1) {
    const T y = __shfl_up_sync(FULL_WARP, incl, k);
    if (lane_id() >= unsigned(k)) incl += y;
  }
  T run = incl - sum;
  for (int d = first; d < first + RUN && d < N; ++d) {
    const T c = counts[d];
    starts[d] = run;
    run += c;
  }
}

// The same by warp 0 (the other threads return at once).
template <int N, class T>
__device__ __forceinline__ void warp_exclusive_runs(const T* counts, T* starts) {
  if (threadIdx.x < 32) lane_exclusive_runs<N>(counts, starts);
}

// Whether some digit's word of a pass lies strictly between 0 and n: the pass reorders
// the keys. A pass whose keys all share one digit has one count n and n - 1 zeros,
// whose exclusive starts are 0s then ns; a pass with two digits d1 < d2 has count[d2]
// and start[d2] = count[d1], both in (0, n). So the test holds on counts, starts, or
// words of both while a block converts them in place (n >= 2).
__device__ __forceinline__ bool radix_spread(unsigned long long word, unsigned long long n) {
  return word != 0 && word != n;
}

// The passes that are skipped (a bit each), given the passes whose keys have two digits
// or more (`runs`, a bit each). Every pass reads and writes where the host routes it
// (pass_buffers in runtime/src/sort_launch.cpp: the inputs, then alternately the
// outputs and the alternate buffers, the last pass into the outputs), so that no
// pointer is chosen in a tile's code. A pass whose keys share one digit leaves them in
// place, so two of them in a row after pass 0 are skipped: the keys stay where the pass
// before the pair left them, which is where the one after it reads. Any other pass
// ranks (a lone one of one digit too: copying its keys instead, a loop of loads and
// stores, took 3.6 ms for 2^28 uint32 pairs where a pass takes 2.2).
__device__ __forceinline__ unsigned radix_skipped_passes(unsigned runs, unsigned passes) {
  unsigned skipped = 0;
  for (unsigned p = 1; p + 1 < passes; ++p)
    if (!(runs >> p & 1u) && !(runs >> (p + 1) & 1u)) {
      skipped |= 3u << p;
      ++p; // past the pair
    }
  return skipped;
}

// Whether pass p is the last that runs: every pass after it is skipped (a pair of
// skipped passes may end the sort).
__device__ __forceinline__ bool radix_last_to_run(unsigned skipped, unsigned p, unsigned passes) {
  for (unsigned q = p + 1; q < passes; ++q)
    if (!(skipped >> q & 1u)) return false;
  return true;
}

// Each pass's counts (hist[p * RADIX ...]) become exclusive digit starts, warp p's
// pass's, and whether each pass is skipped (radix_skipped_passes) goes to the high word
// of its ticket (zeroed by the host), where the onesweep kernel's blocks draw it with
// their tiles.
template <int RADIX_BITS>
__global__ void __launch_bounds__(512)
    radix_digit_starts_kernel(unsigned long long* hist, unsigned long long n,
                              unsigned long long* tickets) {
  const int RADIX = 1 << RADIX_BITS;
  const unsigned pass = threadIdx.x / 32, passes = blockDim.x / 32;
  __shared__ unsigned runs;
  if (threadIdx.x == 0) runs = 0;
  __syncthreads();
  unsigned long long* h = hist + (unsigned long long)pass * RADIX;
  bool spread = false; // no short cut: the loads stay in flight together
  for (int d = lane_id(); d < RADIX; d += 32)
    spread |= radix_spread(h[d], n);
  if (__any_sync(FULL_WARP, spread) && lane_id() == 0) atomicOr(&runs, 1u << pass);
  lane_exclusive_runs<RADIX>(h, h);
  __syncthreads();
  if (threadIdx.x < passes)
    tickets[threadIdx.x] =
        (unsigned long long)(radix_skipped_passes(runs, passes) >> threadIdx.x & 1u) << 32;
}

// Shared memory of the onesweep kernel. `exchange` holds the tile's keys, then its
// values, in rank order; the warps' digit counters live apart from it where the static
// shared memory allows (SEPARATE), else in it while the tile ranks. BESIDE: the bytes
// its kernel keeps beside it (the single launch's digit starts).
template <class U, class V, int TPB, int IPT, int RADIX_BITS, bool PAIRS, int BESIDE>
struct onesweep_smem {
  static const int RADIX = 1 << RADIX_BITS, WARPS = TPB / 32, TILE = TPB * IPT;
  static const int COUNTER_BYTES = WARPS * RADIX * 4;
  static const int ITEM_BYTES = PAIRS && sizeof(V) > sizeof(U) ? sizeof(V) : sizeof(U);
  static const int TILE_BYTES = TILE * ITEM_BYTES;
  // Apart, a tile's keys go to the exchange as they are ranked (early counts) or before
  // its look-back, instead of after it. The bound leaves room for the rest of this struct.
  static const bool SEPARATE = COUNTER_BYTES + TILE_BYTES + RADIX * 16 + 32 + BESIDE <= 48 * 1024;
  static const int EXCHANGE_BYTES =
      SEPARATE || TILE_BYTES > COUNTER_BYTES ? TILE_BYTES : COUNTER_BYTES;
  __align__(16) unsigned char exchange[EXCHANGE_BYTES];
  unsigned apart[SEPARATE ? WARPS * RADIX : 1];
  // Per digit: the output address of the tile's first key less its start (an integer: it
  // may point before the output).
  unsigned long long base[RADIX];
  unsigned count[RADIX];  // items of each digit in the tile
  unsigned start[RADIX];  // tile-local rank of each digit's first item
  unsigned long long tag; // the pass's tag, in place in a status word
  unsigned tile;
  // In the tile's padding: whether the pass is skipped (bit 0) and whether it widens
  // indices (bit 1; onesweep kernel), or the passes whose keys have two digits or more,
  // a bit each (single launch).
  unsigned pass_bits;

  __device__ __forceinline__ unsigned* counters() {
    return SEPARATE ? apart : reinterpret_cast<unsigned*>(exchange);
  }
};

// EARLY_COUNTS (SortPolicy::early_counts): each warp counts its digits (shared atomics)
// before the ranking, and the tile publishes its counts and ranks from the warps'
// offsets; otherwise the ranking's warp counters give the counts and offsets after it.
// INDICES: a sort with indices, whose first pass (values_in null) makes each key's
// input position instead of loading a value (a kernel of its own: pairs keep theirs).
// WIDEN (with INDICES and VALUE_BYTES 4): the positions travel as 32-bit words, and the
// pass told to widen (the last) writes them as 64-bit indices: a third fewer value bytes
// than carrying 64-bit indices through every pass.
template <class K, int VALUE_BYTES, int TPB, int IPT, int RADIX_BITS, bool EARLY_COUNTS,
          int BESIDE = 0, bool INDICES = false, bool GROUPS = false, bool WIDEN = false>
struct onesweep_tile {
  typedef K Key;
  typedef radix_key<K> RK;
  typedef typename RK::U U;
  typedef typename radix_value<VALUE_BYTES>::type V;
  static const bool PAIRS = VALUE_BYTES != 0, MAKES_INDICES = PAIRS && INDICES;
  static const bool WIDENS = MAKES_INDICES && WIDEN && VALUE_BYTES == 4;
  static const int RADIX = 1 << RADIX_BITS, WARPS = TPB / 32, TILE = TPB * IPT;
  static const int WARP_ITEMS = 32 * IPT, THREADS = TPB, ITEMS = IPT;
  static const bool EARLY = EARLY_COUNTS;
  typedef onesweep_smem<U, V, TPB, IPT, RADIX_BITS, PAIRS, BESIDE> Smem;
  // Early counts give each warp its offsets before the ranking; with the counters apart
  // from the exchange, each key goes there as soon as it is ranked (its register is free
  // again, and no second pass over the items adds the digits' starts).
  static const bool FUSED = EARLY_COUNTS && Smem::SEPARATE;

  // Warp-striped: the warp's items are 32 * IPT consecutive ones, item i of a lane at
  // i * 32 + lane, so that ranking items 0, 1, ... of the lanes in order is input order.
  template <bool FULL, class W>
  static __device__ __forceinline__ void load(const W* in, unsigned long long first, unsigned valid,
                                              W (&x)[IPT]) {
    const unsigned w0 = (threadIdx.x >> 5) * WARP_ITEMS + lane_id();
    const W* from = in + first + w0;
#pragma unroll
    for (int i = 0; i < IPT; ++i)
      if (FULL || w0 + i * 32 < valid) x[i] = from[i * 32];
  }

  // The input positions of the items load() would read (in the value's width).
  template <class W>
  static __device__ __forceinline__ void positions(unsigned long long first, W (&x)[IPT]) {
    const unsigned long long at = first + (threadIdx.x >> 5) * WARP_ITEMS + lane_id();
#pragma unroll
    for (int i = 0; i < IPT; ++i)
      x[i] = W(at + i * 32);
  }

  // Each item's rank among the warp's items of its digit (warp-private counters in
  // `counters`), as `rank | digit << 16` (invalid items: digit RADIX): one register an
  // item instead of two leaves room for more items at three blocks an SM.
  // FULL: every item is valid (all but a pass's last tile), which drops the validity
  // ballot and tests from the per-item chain.
  // FUSED: the rank is the tile's (the digit's start added) and the key is in the exchange.
  template <bool FULL>
  static __device__ __forceinline__ void rank_in_warp(Smem& s, const U (&u)[IPT], unsigned valid,
                                                      unsigned shift, unsigned bits,
                                                      unsigned (&item)[IPT], unsigned* counters) {
    U* ranked = reinterpret_cast<U*>(s.exchange);
    const unsigned lane = lane_id(), w0 = (threadIdx.x >> 5) * WARP_ITEMS + lane;
    const unsigned upto = (2u << lane) - 1u; // this lane and the lower ones
#pragma unroll
    for (int i = 0; i < IPT; ++i) {
      const bool is_valid = FULL || w0 + i * 32 < valid;
      const unsigned digit = is_valid ? radix_digit(u[i], shift, bits) : unsigned(RADIX);
      // Invalid lanes (the warp's last ones) share a digit's low bits with valid ones:
      // the valid lanes' ballot keeps them out of every group.
      const unsigned same = warp_match_bits<RADIX_BITS>(digit);
      const unsigned valid_lanes = FULL ? FULL_WARP : __ballot_sync(FULL_WARP, is_valid);
      const unsigned peers = is_valid ? same & valid_lanes : 1u << lane;
      // The leader, the group's highest lane, counts the whole group in `here`.
      const unsigned leader = 31 - __clz(peers), here = __popc(peers & upto);
      const bool leads = lane == leader && is_valid;
      unsigned before = 0, first = 0;
      if (leads) {
        before = counters[digit];
        first = FUSED ? before + s.start[digit] : before;
      }
      const unsigned rank = __shfl_sync(FULL_WARP, first, leader) + here - 1u;
      if (FUSED && is_valid) ranked[rank] = u[i];
      item[i] = rank | digit << 16;
      if (leads) counters[digit] = before + here;
      __syncwarp();
    }
  }

  // Items of `digit` in every tile before `tile`: reads LOOK_BACK_WINDOW tiles' words
  // at once (one round trip to L2 instead of one a tile), adds them from the nearest
  // until an inclusive count, and reads again from the first one not published yet.
  // 8 ran uint32 keys 4% slower at 2^28; in the single launch, where every tile of a
  // pass looks back at once, 16 and 32 ran 2^20 keys 8% and 21% slower.
  static const int LOOK_BACK_WINDOW = 4;
  static __device__ __forceinline__ unsigned long long look_back(const unsigned long long* status,
                                                                 unsigned tile, unsigned digit,
                                                                 unsigned long long tag) {
    unsigned long long before = 0;
    long long t = (long long)tile - 1;
    for (;;) {
      unsigned long long w[LOOK_BACK_WINDOW];
#pragma unroll
      for (int k = 0; k < LOOK_BACK_WINDOW; ++k)
        w[k] = t - k >= 0 ? load_relaxed(status + (unsigned long long)(t - k) * RADIX + digit)
                          : RADIX_INCLUSIVE | tag; // tile 0 publishes inclusive: never reached
      int k = 0;
      for (; k < LOOK_BACK_WINDOW && (w[k] & RADIX_TAG_MASK) == tag; ++k) {
        before += w[k] & RADIX_COUNT_MASK;
        if (w[k] & RADIX_INCLUSIVE) return before;
      }
      t -= k;
    }
  }

  // Early counts: each warp counts its items' digits in its own counters (zeroed by
  // the caller) before the ranking, so that the tile publishes its counts a ranking's
  // time before it looks back, and the ranking starts from each warp's offsets.
  static __device__ __forceinline__ void count_warp(const U (&u)[IPT], unsigned valid,
                                                    unsigned shift, unsigned bits,
                                                    unsigned* warp_counters) {
    const unsigned w0 = (threadIdx.x >> 5) * WARP_ITEMS + lane_id();
    // The test stays in full tiles: without it the compiler keeps every item's digit
    // from here to the ranking (tpb384.ipt20 at 56 registers: 140 bytes of spills).
#pragma unroll
    for (int i = 0; i < IPT; ++i)
      if (w0 + i * 32 < valid) atomicAdd(&warp_counters[radix_digit(u[i], shift, bits)], 1u);
  }

  // GROUPS (SortPolicy::look_back_groups, single launch only): the single launch starts
  // every tile of a pass at once, so a chain of look-backs finds few inclusive counts
  // and walks nearly every earlier tile, a window a round trip. Instead a tile adds its
  // group's earlier counts (GROUP tiles), the group's last tile publishes the group's
  // total, and every tile adds the earlier groups' totals: two waits of a few loads
  // each, whatever the tile's place. A group's tiles' words are followed by its total's
  // (`slot`).
  static const int GROUP = 8; // the host's kSortLookBackGroup

  static __device__ __forceinline__ unsigned long long slot(unsigned tile) {
    return GROUPS ? tile + tile / GROUP : tile;
  }

  // The counts in words at[0], at[stride], ..., at[(count - 1) * stride], each waited
  // for until it carries `tag`; 8 loads in flight.
  static __device__ __forceinline__ unsigned long long sum_published(const unsigned long long* at,
                                                                     unsigned long long stride,
                                                                     unsigned count,
                                                                     unsigned long long tag) {
    unsigned long long sum = 0;
    for (unsigned k0 = 0; k0 < count; k0 += 8) {
      unsigned long long w[8];
#pragma unroll
      for (int k = 0; k < 8; ++k)
        w[k] = k0 + k < count ? load_relaxed(at + (k0 + k) * stride) : tag;
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        while ((w[k] & RADIX_TAG_MASK) != tag)
          w[k] = load_relaxed(at + (k0 + k) * stride);
        sum += w[k] & RADIX_COUNT_MASK;
      }
    }
    return sum;
  }

  // Items of `digit` in every tile before this one, by groups (GROUPS).
  static __device__ __forceinline__ unsigned long long
  grouped_prefix(const Smem& s, unsigned long long* status, unsigned digit) {
    const unsigned group = s.tile / GROUP, place = s.tile % GROUP;
    const unsigned long long span = (GROUP + 1ull) * RADIX; // a group's words
    unsigned long long* words = status + group * span + digit;
    const unsigned long long in_group = sum_published(words, RADIX, place, s.tag);
    if (place == GROUP - 1)
      store_relaxed(words + GROUP * RADIX, (in_group + s.count[digit]) | s.tag);
    return in_group + sum_published(status + GROUP * RADIX + digit, span, group, s.tag);
  }

  // The tile's count of `digit`, inclusive for tile 0 (it has no predecessor).
  static __device__ __forceinline__ void publish_count(const Smem& s, unsigned long long* status,
                                                       int digit, unsigned count) {
    store_relaxed(status + slot(s.tile) * RADIX + digit,
                  count | s.tag | (s.tile == 0 ? RADIX_INCLUSIVE : RADIX_AGGREGATE));
  }

  // Per digit: the warps' counters become each warp's start within the digit, and the
  // tile's count is kept and published.
  static __device__ __forceinline__ void count_digits(Smem& s, unsigned* counters,
                                                      unsigned long long* status) {
    for (int d = threadIdx.x; d < RADIX; d += TPB) {
      unsigned sum = 0;
      for (int w = 0; w < WARPS; ++w) {
        const unsigned c = counters[w * RADIX + d];
        counters[w * RADIX + d] = sum;
        sum += c;
      }
      s.count[d] = sum;
      publish_count(s, status, d, sum);
    }
  }

  // Digit counts to warps' offsets and tile starts (s.start), published.
  static __device__ __forceinline__ void offsets(Smem& s, unsigned* counters,
                                                 unsigned long long* status) {
    count_digits(s, counters, status);
    __syncthreads();
    warp_exclusive_runs<RADIX>(s.count, s.start);
    __syncthreads();
  }

  // Each thread's x[i] to its item's place in the tile's rank order in `exchange`.
  template <bool FULL, class W>
  static __device__ __forceinline__ void scatter(Smem& s, const W (&x)[IPT],
                                                 const unsigned (&item)[IPT]) {
    W* ranked = reinterpret_cast<W*>(s.exchange);
#pragma unroll
    for (int i = 0; i < IPT; ++i)
      if (FULL || item[i] >> 16 < unsigned(RADIX)) ranked[item[i] & 0xffffu] = x[i];
  }

  static __device__ __forceinline__ void publish_inclusive(Smem& s,
                                                           const unsigned long long* starts,
                                                           unsigned long long* status,
                                                           const K* out) {
    for (int d = threadIdx.x; d < RADIX; d += TPB) {
      unsigned long long before = 0;
      if (GROUPS) {
        before = grouped_prefix(s, status, unsigned(d));
      } else if (s.tile != 0) {
        before = look_back(status, s.tile, d, s.tag);
        store_relaxed(status + (unsigned long long)s.tile * RADIX + d,
                      (before + s.count[d]) | s.tag | RADIX_INCLUSIVE);
      }
      s.base[d] =
          reinterpret_cast<unsigned long long>(out) + (starts[d] + before - s.start[d]) * sizeof(U);
    }
  }

  // Items in rank order from `exchange` to base[digit] + rank (an address each: one
  // multiply-add an item); `dst` keeps each thread's output places for the values.
  template <bool FULL>
  static __device__ __forceinline__ void store_keys(const Smem& s, unsigned valid, unsigned shift,
                                                    unsigned bits, unsigned flip, U* (&dst)[IPT]) {
    const U* ranked = reinterpret_cast<const U*>(s.exchange);
    const U mask = flip ? ~U(0) : U(0);
#pragma unroll
    for (int i = 0; i < IPT; ++i) {
      const unsigned j = threadIdx.x + i * TPB;
      if (FULL || j < valid) {
        const U u = ranked[j];
        dst[i] = reinterpret_cast<U*>(s.base[radix_digit(u, shift, bits)]) + j;
        *dst[i] = RK::from_ordered(u ^ mask);
      }
    }
  }
};

// The tile's values, in rank order in `ranked`, to the places of their keys (`dst`, in
// the key output `words`), as words of `out`'s width.
template <int IPT, int TPB, bool FULL, class V, class W, class U>
__device__ __forceinline__ void store_values(const V* ranked, W* out, const U* words,
                                             U* const (&dst)[IPT], unsigned valid) {
#pragma unroll
  for (int i = 0; i < IPT; ++i)
    if (FULL || threadIdx.x + i * TPB < valid)
      out[dst[i] - words] = W(ranked[threadIdx.x + i * TPB]);
}

// The items of one tile: FULL (every tile of a pass but its last) drops every test of
// an item's validity (and the predicates the compiler keeps for them).
template <class T, bool FULL>
__device__ __forceinline__ void
radix_sort_items(typename T::Smem& s, const typename T::Key* keys_in, typename T::Key* keys_out,
                 const void* values_in, void* values_out, unsigned long long first, unsigned valid,
                 unsigned shift, unsigned bits, unsigned descending,
                 const unsigned long long* starts, unsigned long long* status, bool widen) {
  typedef typename T::Key K;
  typedef typename T::U U;
  typedef typename T::V V;
  const int RADIX = T::RADIX, IPT = T::ITEMS, TPB = T::THREADS;
  unsigned* counters = s.counters();
  U u[IPT];
  T::template load<FULL>(reinterpret_cast<const U*>(keys_in), first, valid, u);
  const U flip = descending ? ~U(0) : U(0);
#pragma unroll
  for (int i = 0; i < IPT; ++i)
    u[i] = radix_key<K>::to_ordered(u[i]) ^ flip;
  V v[IPT];
  if (T::MAKES_INDICES && !values_in) // the first pass: each key's input position
    T::positions(first, v);
  else if (T::PAIRS)
    T::template load<FULL>(reinterpret_cast<const V*>(values_in), first, valid, v);

  unsigned* warp_counters = counters + (threadIdx.x >> 5) * RADIX;
  if (T::EARLY) {
    T::count_warp(u, valid, shift, bits, warp_counters);
    __syncthreads();
    T::offsets(s, counters, status);
  }
  unsigned item[IPT]; // rank | digit << 16
  T::template rank_in_warp<FULL>(s, u, valid, shift, bits, item, warp_counters);
  if (!T::EARLY) {
    __syncthreads();
    T::offsets(s, counters, status);
  }
#pragma unroll
  for (int i = 0; i < IPT && !T::FUSED; ++i) {
    const unsigned d = item[i] >> 16; // the tile's rank stays below 2^15: no carry
    if (FULL || d < unsigned(RADIX)) item[i] += (T::EARLY ? 0u : warp_counters[d]) + s.start[d];
  }
  if (T::Smem::SEPARATE) {
    if (!T::FUSED) T::template scatter<FULL>(s, u, item);
    T::publish_inclusive(s, starts, status, keys_out);
  } else {
    T::publish_inclusive(s, starts, status, keys_out);
    __syncthreads(); // the counters are read: the exchange takes the keys
    T::template scatter<FULL>(s, u, item);
  }
  __syncthreads();
  U* dst[IPT];
  T::template store_keys<FULL>(s, valid, shift, bits, descending, dst);
  if (!T::PAIRS) return;
  __syncthreads();
  T::template scatter<FULL>(s, v, item);
  __syncthreads();
  const V* ranked_values = reinterpret_cast<const V*>(s.exchange);
  if (T::WIDENS && widen)
    store_values<IPT, TPB, FULL>(ranked_values, reinterpret_cast<unsigned long long*>(values_out),
                                 reinterpret_cast<const U*>(keys_out), dst, valid);
  else
    store_values<IPT, TPB, FULL>(ranked_values, reinterpret_cast<V*>(values_out),
                                 reinterpret_cast<const U*>(keys_out), dst, valid);
}

// The warps' digit counters of a tile, zeroed (before the barrier after which the
// block reads its tile's place).
template <class T>
__device__ __forceinline__ void radix_zero_counters(typename T::Smem& s) {
  unsigned* counters = s.counters();
  for (int i = threadIdx.x; i < T::WARPS * T::RADIX; i += T::THREADS)
    counters[i] = 0;
}

// One tile of a pass, its counters zeroed and s.tile and s.tag seen by every thread:
// ranks the tile by the digit at `shift` (`bits` wide), publishes and looks back, and
// scatters keys (and values) to their place in this pass's order. `starts`: the pass's
// digit starts (global or shared).
template <class T>
__device__ __forceinline__ void
radix_sort_zeroed_tile(typename T::Smem& s, const typename T::Key* keys_in,
                       typename T::Key* keys_out, const void* values_in, void* values_out,
                       unsigned long long n, unsigned shift, unsigned bits, unsigned descending,
                       const unsigned long long* starts, unsigned long long* status, bool widen) {
  const unsigned long long first = (unsigned long long)s.tile * T::TILE;
  const unsigned valid = unsigned(min((unsigned long long)T::TILE, n - first));
  if (valid == unsigned(T::TILE))
    radix_sort_items<T, true>(s, keys_in, keys_out, values_in, values_out, first, valid, shift,
                              bits, descending, starts, status, widen);
  else
    radix_sort_items<T, false>(s, keys_in, keys_out, values_in, values_out, first, valid, shift,
                               bits, descending, starts, status, widen);
}

// The same, s.tile and s.tag set by thread 0 and the block done with `s`'s previous tile.
template <class T>
__device__ __forceinline__ void
radix_sort_tile(typename T::Smem& s, const typename T::Key* keys_in, typename T::Key* keys_out,
                const void* values_in, void* values_out, unsigned long long n, unsigned shift,
                unsigned bits, unsigned descending, const unsigned long long* starts,
                unsigned long long* status, bool widen) {
  radix_zero_counters<T>(s);
  __syncthreads();
  radix_sort_zeroed_tile<T>(s, keys_in, keys_out, values_in, values_out, n, shift, bits, descending,
                            starts, status, widen);
}

// One pass over the tiles, a block a tile, unless the ticket's high word says the pass
// is skipped (radix_digit_starts_kernel). MIN_BLOCKS: resident blocks per SM that
// the registers must allow (SortPolicy::min_blocks). `starts`: the pass's digit starts;
// `status`: tiles x RADIX words; `tag`: the pass's (in 22 bits, no word carries it
// yet); `ticket`: tiles drawn in its low word, zeroed by the host, followed by the
// `later` passes' tickets, whose high words say which of them are skipped: the last pass
// that runs writes WIDEN's indices 64 bits wide.
template <class K, int VALUE_BYTES, int TPB, int IPT, int RADIX_BITS, int MIN_BLOCKS,
          bool EARLY_COUNTS, bool INDICES, bool WIDEN>
__global__ void __launch_bounds__(TPB, MIN_BLOCKS)
    radix_onesweep_kernel(const K* keys_in, K* keys_out, const void* values_in, void* values_out,
                          unsigned long long n, unsigned shift, unsigned bits, unsigned descending,
                          const unsigned long long* starts, unsigned long long* status,
                          unsigned tag, unsigned long long* ticket, unsigned later) {
  typedef onesweep_tile<K, VALUE_BYTES, TPB, IPT, RADIX_BITS, EARLY_COUNTS, 0, INDICES, false,
                        WIDEN>
      T;
  __shared__ typename T::Smem s;
  if (threadIdx.x == 0) {
    const unsigned long long drawn = atomicAdd(ticket, 1ull); // skipped or not, above the tile
    s.tile = unsigned(drawn);
    bool last = true;
    for (unsigned k = 1; WIDEN && k <= later; ++k)
      last = last && (ticket[k] >> 32) != 0;
    s.pass_bits = unsigned(drawn >> 32) | (WIDEN && last ? 2u : 0u); // skipped, widens
    s.tag = (unsigned long long)tag << RADIX_TAG_SHIFT;
  }
  radix_zero_counters<T>(s);
  __syncthreads();
  if (!(s.pass_bits & 1u))
    radix_sort_zeroed_tile<T>(s, keys_in, keys_out, values_in, values_out, n, shift, bits,
                              descending, starts, status, (s.pass_bits & 2u) != 0);
}

// The whole sort in one cooperative launch (SortPolicy::single_launch), for inputs
// whose several launches would cost more than their work: the histogram, the digit
// starts (pass 0's in each block, the later passes' in `hist`), then per pass the
// tiles (block b takes tiles b, b + gridDim.x, ...: every block is resident, so each
// tile's predecessors make progress), with grid barriers between the phases. Pass p
// reads and writes as the host's pass_buffers() (runtime/src/sort_launch.cpp) would:
// the last pass lands in the outputs; every block finds the passes whose keys have two
// digits or more in `hist` and skips what radix_skipped_passes says. `hist`: passes x
// RADIX words, zero, left holding digit starts; `next_hist`: the next launch's, of
// `hist_words` words, zeroed here (no launch zeroes anything on the host: the stream's
// launches alternate between two histograms); `barrier`: a counter at `barrier_base`,
// left a barrier a pass further; `status`: tiles x RADIX words (GROUPS: and RADIX more
// after each GROUP tiles' words), pass p's tagged `tag + p`.
template <class K, int VALUE_BYTES, int TPB, int IPT, int RADIX_BITS, int MIN_BLOCKS,
          bool EARLY_COUNTS, bool INDICES, bool GROUPS, bool WIDEN>
__global__ void __launch_bounds__(TPB, MIN_BLOCKS)
    radix_single_launch_kernel(const K* keys_in, K* keys_out, const void* values_in,
                               void* values_out, K* alt_keys, void* alt_values,
                               unsigned long long n, unsigned begin_bit, unsigned end_bit,
                               unsigned descending, unsigned long long* hist,
                               unsigned long long* next_hist, unsigned hist_words,
                               unsigned long long* status, unsigned* barrier, unsigned barrier_base,
                               unsigned tag) {
  typedef onesweep_tile<K, VALUE_BYTES, TPB, IPT, RADIX_BITS, EARLY_COUNTS, (8 << RADIX_BITS),
                        INDICES, GROUPS, WIDEN>
      T;
  typedef radix_histogram<K, TPB, RADIX_BITS> H;
  __shared__ union {
    typename T::Smem tile;
    unsigned counts[H::MAX_PASSES * H::RADIX];
  } s;
  __shared__ unsigned long long starts[T::RADIX];
  for (unsigned i = blockIdx.x * TPB + threadIdx.x; i < hist_words; i += gridDim.x * TPB)
    next_hist[i] = 0;
  H::count(keys_in, n, begin_bit, end_bit, descending, s.counts, hist);
  const unsigned passes = radix_passes<RADIX_BITS>(begin_bit, end_bit);
  const unsigned tiles = unsigned((n + T::TILE - 1) / T::TILE);
  grid_barrier(barrier, barrier_base + gridDim.x); // the counts (and s.counts is free)
  if (threadIdx.x == 0) s.tile.pass_bits = 0;
  __syncthreads();
  // Pass 0's digit starts in each block (warp 0); every later pass's in place in `hist`
  // by one block (its warp 1), seen by all after the barrier before that pass: no block
  // computes starts between two passes, where the last tile's block held up the barrier.
  // Meanwhile the other warps find the passes whose keys have two digits or more (all of
  // them, after, in a block of 64 threads), 8 loads in flight a thread.
  if (threadIdx.x < 32)
    lane_exclusive_runs<T::RADIX>(hist, starts);
  else if (threadIdx.x < 64)
    for (unsigned p = 1 + blockIdx.x; p < passes; p += gridDim.x)
      lane_exclusive_runs<T::RADIX>(hist + (unsigned long long)p * T::RADIX,
                                    hist + (unsigned long long)p * T::RADIX);
  if (TPB == 64 || threadIdx.x >= 64) {
    const unsigned finders = TPB > 64 ? TPB - 64 : TPB, words = passes * T::RADIX, LOADS = 8;
    unsigned spread = 0;
    for (unsigned i = threadIdx.x % finders; i < words; i += LOADS * finders) {
      unsigned long long w[LOADS];
#pragma unroll
      for (unsigned k = 0; k < LOADS; ++k)
        w[k] = i + k * finders < words ? load_relaxed(hist + i + k * finders) : 0;
#pragma unroll
      for (unsigned k = 0; k < LOADS; ++k)
        if (radix_spread(w[k], n)) spread |= 1u << ((i + k * finders) >> RADIX_BITS);
    }
    spread = __reduce_or_sync(FULL_WARP, spread);
    if (lane_id() == 0 && spread) atomicOr(&s.tile.pass_bits, spread);
  }
  __syncthreads();
  const unsigned skipped = radix_skipped_passes(s.tile.pass_bits, passes);
  unsigned barriers = 1;
  for (unsigned p = 0; p < passes; ++p) {
    if (skipped >> p & 1u) continue;
    if (p > 0) // the items of the last pass that ran
      grid_barrier(barrier, barrier_base + ++barriers * gridDim.x);
    const unsigned long long* pass_starts =
        p == 0 ? starts : hist + (unsigned long long)p * T::RADIX;
    const bool to_out = (passes - 1 - p) % 2 == 0;
    const K* src = p == 0 ? keys_in : (to_out ? alt_keys : keys_out);
    const void* src_values = p == 0 ? values_in : (to_out ? alt_values : values_out);
    const unsigned shift = begin_bit + p * RADIX_BITS;
    const unsigned bits = min(unsigned(RADIX_BITS), end_bit - shift);
    const bool last_to_run = radix_last_to_run(skipped, p, passes);
    for (unsigned tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      __syncthreads(); // the previous tile is done with `s` (and `starts` is written)
      if (threadIdx.x == 0) {
        s.tile.tile = tile;
        s.tile.tag = (unsigned long long)(tag + p) << RADIX_TAG_SHIFT;
      }
      radix_sort_tile<T>(s.tile, src, to_out ? keys_out : alt_keys, src_values,
                         to_out ? values_out : alt_values, n, shift, bits, descending, pass_starts,
                         status, last_to_run);
    }
  }
  // The barriers of the skipped passes, counted once this block waited at its last one
  // (every block waits at the same ones): the host moves the base on by one a pass.
  if (threadIdx.x == 0 && barriers < passes) atomicAdd(barrier, passes - barriers);
}

} // namespace scantune
