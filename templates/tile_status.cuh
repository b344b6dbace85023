// Inter-tile communication: tile tickets, status words and the three ways of
// waiting for a predecessor's prefix (chained, one-thread and warp look-back).
//
// Workspace (64-bit words, owned by the host per stream, zeroed once at allocation):
//   ws[0]         ticket word: high 32 bits generation, low 32 bits next ticket
//   ws[32 ...]    status slots: 4 words (one 32-byte sector) per tile; 4-byte T
//                 uses the first word, 8-, 12- and 16-byte T (the last two: struct
//                 values of custom operators) one word per 4 bytes
// Each launch takes tile indices from the ticket (so tiles never depend on block
// scheduling order); the block taking the launch's last ticket (one per block,
// or tiles + blocks - 1 for the pipelined kernel) bumps the generation and
// zeroes the ticket, leaving the workspace valid for the next launch without a
// memset. A slot is valid only if its flag carries the launch's generation.
// A single-pass grid that fits on the device at once may take its tiles from
// blockIdx instead (scan_kernels.cuh): every block still draws a ticket, for the
// generation and the reset, but no load waits for it.
//
// Flag (32 bits) = generation(31 bits, never 0) << 1 | inclusive. The value sits
// beside the flag in the same 64-bit word, so no value bits are stolen: 4-byte
// values take one word; 8-byte values are split in two words whose flags must
// match (a torn pair is simply "not ready yet"), 12- and 16-byte values likewise in
// three or four.
#pragma once

#include "scantune/warp_scan.cuh"

namespace scantune {

static const int STATUS_OFFSET_WORDS = 32;
// Words per tile slot (runtime/src/workspace.cpp sizes the workspace by it): waiting
// warps poll their predecessors' slots while those are being published, and slots
// packed 4 or 8 to a 32-byte L2 sector made the polls and the publications queue
// behind each other. One sector per slot: 32-bit scans 2-5% faster at 2^24-2^30,
// 64-bit 1-3% (docs/decisions.md, status slots). Experiments may override it.
#ifndef SCANTUNE_STATUS_SLOT_WORDS
#define SCANTUNE_STATUS_SLOT_WORDS 4
#endif
static const int STATUS_SLOT_WORDS = SCANTUNE_STATUS_SLOT_WORDS;

// The first word of tile `tile`'s slot of SLOT words.
template <int SLOT = STATUS_SLOT_WORDS, class Word>
__device__ __forceinline__ Word* status_slot(Word* slots, unsigned tile) {
  return slots + (unsigned long long)tile * SLOT;
}

__device__ __forceinline__ unsigned long long load_relaxed(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_relaxed(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

// Every block of a co-resident (cooperative) grid waits here until `target` arrivals
// have been counted at `counter` (the k-th barrier of a launch that found the counter
// at `base` waits for base + k * gridDim.x; compared modulo 2^32, so the counter may
// run on from launch to launch). Release and acquire at gpu scope: what any thread of
// an arriving block wrote before the barrier is visible to every thread after it.
__device__ __forceinline__ void grid_barrier(unsigned* counter, unsigned target) {
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(counter) : "memory");
    unsigned seen = 0;
    do {
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(counter) : "memory");
    } while (int(seen - target) < 0);
  }
  __syncthreads();
}

// The second half of take_ticket, for a ticket word `w` already drawn with
// atomicAdd(ws, 1): returns the launch's generation (>= 1); the taker of the
// final ticket `last` resets the counter for the next launch.
__device__ __forceinline__ unsigned settle_ticket(unsigned long long* ws, unsigned long long w,
                                                  unsigned last) {
  const unsigned epoch = unsigned(w >> 32);
  if (unsigned(w) == last) atomicExch(ws, (unsigned long long)(epoch + 1u) << 32);
  return epoch % 0x7fffffffu + 1u;
}

// Takes a tile index; returns the launch's generation (>= 1). `last` is the
// launch's final ticket: whoever takes it resets the counter for the next launch.
__device__ __forceinline__ unsigned take_ticket(unsigned long long* ws, unsigned& ticket,
                                                unsigned last) {
  const unsigned long long w = atomicAdd(ws, 1ull);
  ticket = unsigned(w);
  return settle_ticket(ws, w, last);
}

__device__ __forceinline__ unsigned make_flag(unsigned gen, bool inclusive) {
  return (gen << 1) | (inclusive ? 1u : 0u);
}

// A tile's status in a slot of SLOT words (one sector by default; axis scans pack the
// columns of a tile, published together, into consecutive words).
template <class T, int SIZE = sizeof(T), int SLOT = STATUS_SLOT_WORDS>
struct tile_status;

template <class T, int SLOT>
struct tile_status<T, 4, SLOT> {
  static __device__ __forceinline__ void publish(unsigned long long* slots, unsigned tile,
                                                 unsigned flag, T v) {
    union {
      T t;
      unsigned u;
    } b;
    b.t = v;
    store_relaxed(status_slot<SLOT>(slots, tile), ((unsigned long long)flag << 32) | b.u);
  }
  // Returns the slot's flag and value (a flag of another generation = not ready).
  static __device__ __forceinline__ unsigned read(const unsigned long long* slots, unsigned tile,
                                                  T& v) {
    const unsigned long long w = load_relaxed(status_slot<SLOT>(slots, tile));
    union {
      T t;
      unsigned u;
    } b;
    b.u = unsigned(w);
    v = b.t;
    return unsigned(w >> 32);
  }
};

template <class T, int SLOT>
struct tile_status<T, 8, SLOT> {
  static __device__ __forceinline__ void publish(unsigned long long* slots, unsigned tile,
                                                 unsigned flag, T v) {
    union {
      T t;
      unsigned long long u;
    } b;
    b.t = v;
    const unsigned long long f = (unsigned long long)flag << 32;
    unsigned long long* slot = status_slot<SLOT>(slots, tile);
    store_relaxed(slot, f | (b.u & 0xffffffffull));
    store_relaxed(slot + 1, f | (b.u >> 32));
  }
  static __device__ __forceinline__ unsigned read(const unsigned long long* slots, unsigned tile,
                                                  T& v) {
    const unsigned long long* slot = status_slot<SLOT>(slots, tile);
    const unsigned long long lo = load_relaxed(slot);
    const unsigned long long hi = load_relaxed(slot + 1);
    if ((lo >> 32) != (hi >> 32)) return 0u; // torn: halves of two different publications
    union {
      T t;
      unsigned long long u;
    } b;
    b.u = (hi << 32) | (lo & 0xffffffffull);
    v = b.t;
    return unsigned(lo >> 32);
  }
};

// 12- and 16-byte struct values: one 4-byte chunk per word, all flags equal.
template <class T, int WORDS, int SLOT>
struct tile_status_words {
  static_assert(WORDS <= SLOT, "a value's words fit its tile's slot");
  union bits {
    T t;
    unsigned w[WORDS];
  };
  static __device__ __forceinline__ void publish(unsigned long long* slots, unsigned tile,
                                                 unsigned flag, T v) {
    bits b;
    b.t = v;
    const unsigned long long f = (unsigned long long)flag << 32;
    unsigned long long* slot = status_slot<SLOT>(slots, tile);
#pragma unroll
    for (int i = 0; i < WORDS; ++i)
      store_relaxed(slot + i, f | b.w[i]);
  }
  static __device__ __forceinline__ unsigned read(const unsigned long long* slots, unsigned tile,
                                                  T& v) {
    const unsigned long long* slot = status_slot<SLOT>(slots, tile);
    unsigned long long w[WORDS];
#pragma unroll
    for (int i = 0; i < WORDS; ++i)
      w[i] = load_relaxed(slot + i);
    bits b;
#pragma unroll
    for (int i = 0; i < WORDS; ++i) {
      if ((w[i] >> 32) != (w[0] >> 32)) return 0u; // torn: parts of different publications
      b.w[i] = unsigned(w[i]);
    }
    v = b.t;
    return unsigned(w[0] >> 32);
  }
};
template <class T, int SLOT>
struct tile_status<T, 12, SLOT> : tile_status_words<T, 3, SLOT> {};
template <class T, int SLOT>
struct tile_status<T, 16, SLOT> : tile_status_words<T, 4, SLOT> {};

// A tile's inclusive prefix: its exclusive prefix combined with its aggregate.
template <class T, class Op>
__device__ __forceinline__ void publish_inclusive(unsigned long long* slots, unsigned tile,
                                                  unsigned gen, T prefix, T aggregate, Op op) {
  tile_status<T>::publish(slots, tile, make_flag(gen, true), op(prefix, aggregate));
}

template <int BACKOFF_NS>
__device__ __forceinline__ void poll_backoff() {
  if (BACKOFF_NS > 0) __nanosleep(BACKOFF_NS);
}

// Chained scan: wait for the direct predecessor's inclusive prefix.
template <class T, int BACKOFF_NS>
__device__ T wait_predecessor_inclusive(const unsigned long long* slots, unsigned tile,
                                        unsigned gen) {
  const unsigned want = make_flag(gen, true);
  T v;
  while (tile_status<T>::read(slots, tile - 1, v) != want)
    poll_backoff<BACKOFF_NS>();
  return v;
}

// Decoupled look-back by one thread: fold predecessors' aggregates until an
// inclusive prefix is found. Returns the tile's exclusive prefix.
template <class T, class Op, int BACKOFF_NS>
__device__ T lookback_one_thread(const unsigned long long* slots, unsigned tile, unsigned gen,
                                 Op op) {
  T acc = Op::identity();
  for (unsigned j = tile - 1;; --j) {
    T v;
    unsigned f;
    while (((f = tile_status<T>::read(slots, j, v)) >> 1) != gen)
      poll_backoff<BACKOFF_NS>();
    acc = op(v, acc); // v covers earlier elements than acc
    if (f & 1u) return acc;
  }
}

// Reads the look-back window of SPAN slots per lane ending at `base` (lane l: tiles
// base - l*SPAN - r, r = 0..SPAN-1; slots before tile 0 read as inclusive identities).
// Returns whether this lane's slots all carry the launch's generation.
template <class T, class Op, int SPAN>
__device__ __forceinline__ bool read_window(const unsigned long long* slots, long long base,
                                            unsigned gen, T (&v)[SPAN], unsigned (&f)[SPAN]) {
  const unsigned lane = lane_id();
  bool ready = true;
#pragma unroll
  for (int r = 0; r < SPAN; ++r) {
    const long long j = base - (long long)lane * SPAN - r;
    if (j < 0) {
      v[r] = Op::identity();
      f[r] = 1u;
    } else if ((f[r] >> 1) != gen) { // not yet seen ready (f starts at 0)
      f[r] = tile_status<T>::read(slots, unsigned(j), v[r]);
      ready = ready && (f[r] >> 1) == gen;
    }
  }
  return ready;
}

// The reproducible look-back's fold of one window, in tile order: from `acc` (when
// `started`) or from the window's newest inclusive prefix (lane `first`, slot r0) over
// every newer slot, one at a time. Lane k's slots reach every lane by broadcast
// shuffles that do not wait on the fold, and every lane folds the same values, so the
// result is in all lanes.
template <class T, class Op, int SPAN>
__device__ __forceinline__ T fold_window(T acc, bool started, const T (&v)[SPAN], int first, int r0,
                                         Op op) {
#pragma unroll
  for (int k = 31; k >= 0; --k)
#pragma unroll
    for (int r = SPAN - 1; r >= 0; --r) {
      const T y = shfl_idx(v[r], unsigned(k));
      if (k < first || (k == first && r <= r0)) { // warp-uniform
        acc = started ? op(acc, y) : y;
        started = true;
      }
    }
  return acc;
}

// Where a window's newest inclusive prefix is: its lane (32 if none) and slot.
template <int SPAN>
__device__ __forceinline__ void newest_inclusive(const unsigned (&f)[SPAN], int& first, int& r0) {
  int mine = SPAN;
#pragma unroll
  for (int r = SPAN - 1; r >= 0; --r)
    if (f[r] & 1u) mine = r;
  const unsigned found = __ballot_sync(FULL_WARP, mine < SPAN);
  first = found ? __ffs(found) - 1 : 32;
  r0 = __shfl_sync(FULL_WARP, mine, unsigned(first) & 31u);
}

// Decoupled look-back by a full warp: lane l inspects the SPAN tiles
// base - l*SPAN - r (r = 0..SPAN-1), so one step covers 32*SPAN predecessors
// with one round trip to L2; the window is folded up to the nearest inclusive
// prefix. Wider steps shorten long walks (many tiles in flight), at the cost of
// more loads per step.
// REPRO: the prefix's bits must not depend on timing, but a tree over whatever
// windows were walked associates differently from run to run. So the walk back
// only finds the nearest inclusive prefix; the warp then folds forward from it, one
// aggregate at a time, rereading the newer windows (their slots may have become
// inclusive meanwhile: it restarts from the newest). Every inclusive prefix is then
// the left fold of all aggregates before it, whichever tile computed it.
template <class T, class Op, int BACKOFF_NS, int SPAN, int REPRO = 0>
__device__ T lookback_warp(const unsigned long long* slots, unsigned tile, unsigned gen, Op op) {
  const unsigned lane = lane_id();
  T acc = Op::identity();
  for (long long base = (long long)tile - 1;; base -= 32 * SPAN) {
    T v[SPAN];
    unsigned f[SPAN];
#pragma unroll
    for (int r = 0; r < SPAN; ++r)
      f[r] = 0u;
    while (!__all_sync(FULL_WARP, read_window<T, Op, SPAN>(slots, base, gen, v, f)))
      poll_backoff<BACKOFF_NS>();
    if (REPRO) {
      int first, r0;
      newest_inclusive<SPAN>(f, first, r0);
      if (first == 32) continue; // no inclusive prefix here: walk further back
      acc = fold_window<T, Op, SPAN>(acc, false, v, first, r0, op);
      for (base += 32 * SPAN; base <= (long long)tile - 1; base += 32 * SPAN) {
#pragma unroll
        for (int r = 0; r < SPAN; ++r) // read every slot again, as it is now (a torn
          f[r] = 0u;                   // 8-byte read is retried)
        while (!__all_sync(FULL_WARP, read_window<T, Op, SPAN>(slots, base, gen, v, f)))
          ;
        newest_inclusive<SPAN>(f, first, r0);
        acc = first < 32 ? fold_window<T, Op, SPAN>(acc, false, v, first, r0, op)
                         : fold_window<T, Op, SPAN>(acc, true, v, 31, SPAN - 1, op);
      }
      return acc;
    }
    // This lane's fold, newest slot last (earlier tiles on the left), stopping
    // at its first inclusive slot.
    bool has_inclusive = false;
    T mine = Op::identity();
#pragma unroll
    for (int r = 0; r < SPAN; ++r)
      if (!has_inclusive) {
        mine = op(v[r], mine);
        has_inclusive = (f[r] & 1u) != 0;
      }
    const unsigned inclusive = __ballot_sync(FULL_WARP, has_inclusive);
    const unsigned first = inclusive ? unsigned(__ffs(inclusive) - 1) : 32u;
    if (lane > first) mine = Op::identity();
    const T window = shfl_idx(warp_reduce_descending(mine, op), 0u);
    acc = op(window, acc);
    if (inclusive) return acc;
  }
}

} // namespace scantune
