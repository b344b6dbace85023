// Tile layer, computation (the "agent"): load one tile, reduce per thread, scan
// the block, obtain the tile's prefix from the inter-block algorithm, and store
// the scanned tile.
//
// Tiles are laid over a "virtual" index space shifted by the input's misalignment
// (`shift` elements), so that every full tile starts on a vector boundary: tile t
// holds global elements [t*TILE - shift, (t+1)*TILE - shift) clipped to [0, n)
// (reversed: their mirror images, n - 1 - i; tile_io.cuh).
#pragma once

#include "scantune/block_scan.cuh"
#include "scantune/tile_io.cuh"

namespace scantune {

// x scanned in place from `running`, the scan before x[0] (exclusive: each element gets
// the scan before it); returns the scan past x.
template <int KIND, class T, int N, class Op>
__device__ __forceinline__ T thread_scan_from(T (&x)[N], T running, Op op) {
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const T v = x[i];
    if (KIND == KIND_EXCLUSIVE) {
      x[i] = running;
      running = op(running, v);
    } else {
      running = op(running, v);
      x[i] = running;
    }
  }
  return running;
}

// T: the accumulator; In and Out: the element types in memory (tile_io.cuh).
template <class T, class Op, int KIND, class P, class In = T, class Out = T>
struct tile_scan {
  static const int TPB = P::block_threads, IPT = P::items_per_thread, TILE = P::tile_items;
  typedef tile_io<T, P, In, Out> io;
  typedef block_scan<T, Op, TPB, P::block_scan> bscan;

  static __device__ __forceinline__ bool load(const In* in, unsigned long long n, long long g_start,
                                              T (&items)[IPT], T* smem) {
    const bool full = g_start >= 0 && (unsigned long long)g_start + TILE <= n;
    if (full)
      io::load_full(in + io::tile_offset(g_start, n), items, smem);
    else
      io::load_partial(in, g_start, n, items, smem, Op::identity());
    return full;
  }

  static __device__ __forceinline__ T thread_reduce(const T (&items)[IPT], Op op) {
    T agg = items[0];
#pragma unroll
    for (int i = 1; i < IPT; ++i)
      agg = op(agg, items[i]);
    return agg;
  }

  // Block aggregate of tile t (for reduce-then-scan's first pass).
  static __device__ T reduce(const In* in, unsigned long long n, unsigned shift,
                             unsigned long long t, T* smem) {
    Op op;
    T items[IPT];
    load(in, n, (long long)(t * TILE) - (long long)shift, items, smem);
    T prefix, agg;
    bscan::exclusive(thread_reduce(items, op), prefix, agg, op);
    return agg;
  }

  // Scans tile t. prefix_of(block_aggregate) is called by warp 0 only (see
  // block_scan::scan_with_prefix) and returns the tile's exclusive prefix (for
  // exclusive scans it already includes init).
  template <class PrefixFn>
  static __device__ __forceinline__ void run(const In* in, Out* out, unsigned long long n,
                                             unsigned shift, bool out_vec_ok, unsigned long long t,
                                             T* smem, PrefixFn prefix_of) {
    const long long g_start = (long long)(t * TILE) - (long long)shift;
    T items[IPT];
    const bool full = load(in, n, g_start, items, smem);
    scan_store(out, n, g_start, full, out_vec_ok, items, smem, prefix_of);
  }

  // The second half of run(): scans loaded items and stores them.
  template <class PrefixFn>
  static __device__ __forceinline__ void scan_store(Out* out, unsigned long long n,
                                                    long long g_start, bool full, bool out_vec_ok,
                                                    T (&items)[IPT], T* smem, PrefixFn prefix_of) {
    Op op;
    const T running = bscan::scan_with_prefix(thread_reduce(items, op), op, prefix_of);
    apply_store(out, n, g_start, full, out_vec_ok, items, running, smem);
  }

  // Scans the thread's items from its exclusive prefix `running` and stores the tile.
  static __device__ __forceinline__ void apply_store(Out* out, unsigned long long n,
                                                     long long g_start, bool full, bool out_vec_ok,
                                                     T (&items)[IPT], T running, T* smem) {
    thread_scan_from<KIND>(items, running, Op());
    store(out, n, g_start, full, out_vec_ok, items, smem);
  }

  // Stores a scanned tile (the full tiles' vector path, or the guarded partial one).
  static __device__ __forceinline__ void store(Out* out, unsigned long long n, long long g_start,
                                               bool full, bool out_vec_ok, T (&items)[IPT],
                                               T* smem) {
    if (full)
      io::store_full(out + io::tile_offset(g_start, n), items, smem, out_vec_ok);
    else
      io::store_partial(out, g_start, n, items, smem);
  }
};

} // namespace scantune
