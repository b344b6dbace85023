// Tile layer, data movement: a tile of TPB * IPT elements between global memory
// and a blocked register layout (thread t owns elements t*IPT .. t*IPT+IPT-1).
//
// Full tiles start at a vector-aligned address (the host shifts the tiling by the
// input pointer's misalignment), so they use VEC-element vector accesses:
//  - IO_TRANSPOSE: the block moves the tile with coalesced striped vector
//    accesses and transposes it through shared memory (block barriers);
//  - IO_WARP_TRANSPOSE: the same, but each warp owns a contiguous 32*IPT segment
//    and transposes only its own part, so a warp barrier suffices;
//  - IO_DIRECT: each thread moves its own blocked items with vector accesses.
// Partial tiles use guarded scalar accesses and pad with the operator's identity,
// so the operator never sees uninitialised elements.
// P::reverse (suffix scans): tile t holds the elements [n - (t+1)*TILE + shift,
// n - t*TILE + shift), read back to front (the host aligns the end of the input).
// Memory is still read and written forward, with vectors; only the blocked items
// are reversed: a thread's items are the mirror of a chunk in the mirrored group
// segment, reversed in registers.
// CACHE_STREAMING marks full-tile accesses evict-first (ld/st.global.cs): every
// element is touched once, so the tile should not displace the status words.
// Precondition for stores (transposes): a barrier separates the load's
// shared-memory reads from the store (the block scan provides it).
//
// The pipelined look-back keeps P::stages staged tiles per block: prefetch_full
// copies a later tile into shared memory asynchronously (cp.async, sm_80+), in
// the striped order a transpose stores it, while earlier tiles are reduced and
// scanned; read_staged then reads the blocked items once wait_prefetch allows.
#pragma once

#include "scantune/policy.cuh"
#include "scantune/types.cuh"

namespace scantune {

template <class T, class P>
struct tile_io {
  static const int TPB = P::block_threads, IPT = P::items_per_thread, VEC = P::vector_width;
  static const int VECS = IPT / VEC; // vectors per thread
  typedef typename raw_vector<VEC * sizeof(T)>::type V;
  static const bool WARP_XPOSE = P::tile_io == IO_WARP_TRANSPOSE;
  static const bool STAGED = P::tile_io == IO_TRANSPOSE || WARP_XPOSE;
  static const bool STREAMING = P::cache == CACHE_STREAMING;
  // Threads that stripe one staged segment: the whole block, or one warp.
  static const int GROUP = WARP_XPOSE ? 32 : TPB;
  static const bool REV = P::reverse != 0;
  static const int TILE = P::tile_items, SEG = GROUP * IPT;

  // Staged tiles held at once, and the static shared bytes this layer needs
  // (lookback_pipelined's stages are dynamic shared memory, sized by the host).
  static const bool PIPELINED = P::algorithm == ALG_LOOKBACK_PIPELINED;
  static const int STAGES = PIPELINED ? P::stages : 1;
  static const int SHARED_BYTES = STAGED && !PIPELINED ? P::tile_items * int(sizeof(T)) : 16;

  // First element of this thread's segment within the tile, and its rank there.
  static __device__ __forceinline__ int group_base() {
    return WARP_XPOSE ? int(threadIdx.x >> 5) * 32 * IPT : 0;
  }
  static __device__ __forceinline__ int group_rank() {
    return WARP_XPOSE ? int(threadIdx.x & 31u) : int(threadIdx.x);
  }
  // The segment this thread's group moves in memory order (mirrored when reversed),
  // and this thread's blocked chunk there.
  static __device__ __forceinline__ int seg_base() {
    return REV ? TILE - SEG - group_base() : group_base();
  }
  static __device__ __forceinline__ int chunk_base() {
    return seg_base() + (REV ? SEG - (group_rank() + 1) * IPT : group_rank() * IPT);
  }
  // Position of blocked item i inside the chunk.
  static __device__ __forceinline__ int chunk_pos(int i) { return REV ? IPT - 1 - i : i; }
  // Memory offset of the tile whose first (virtual) element is g_start.
  static __device__ __forceinline__ long long tile_offset(long long g_start, unsigned long long n) {
    return REV ? (long long)n - g_start - TILE : g_start;
  }
  static __device__ __forceinline__ void mirror(T (&items)[IPT]) {
    if (!REV) return;
#pragma unroll
    for (int i = 0; i < IPT / 2; ++i) {
      const T x = items[i];
      items[i] = items[IPT - 1 - i];
      items[IPT - 1 - i] = x;
    }
  }
  static __device__ __forceinline__ void group_sync() {
    if (WARP_XPOSE)
      __syncwarp();
    else
      __syncthreads();
  }

  template <class U>
  static __device__ __forceinline__ U load_global(const U* p) {
    return STREAMING ? __ldcs(p) : *p;
  }
  template <class U>
  static __device__ __forceinline__ void store_global(U* p, U v) {
    if (STREAMING)
      __stcs(p, v);
    else
      *p = v;
  }

  static __device__ __forceinline__ void load_full(const T* in_tile, T (&items)[IPT], T* smem) {
    V* vitems = reinterpret_cast<V*>(items);
    if (STAGED) {
      const int base = seg_base(), rank = group_rank();
      const V* src = reinterpret_cast<const V*>(in_tile + base);
      V staged[VECS];
#pragma unroll
      for (int k = 0; k < VECS; ++k)
        staged[k] = load_global(src + k * GROUP + rank);
      V* dst = reinterpret_cast<V*>(smem + base);
#pragma unroll
      for (int k = 0; k < VECS; ++k)
        dst[k * GROUP + rank] = staged[k];
      group_sync();
      read_staged(items, smem);
    } else {
      const V* src = reinterpret_cast<const V*>(in_tile + chunk_base());
#pragma unroll
      for (int k = 0; k < VECS; ++k)
        vitems[k] = load_global(src + k);
      mirror(items);
    }
  }

  // Starts copying a full tile into `stage` (striped); completes with wait_prefetch.
  static __device__ __forceinline__ void prefetch_full(const T* in_tile, T* stage) {
    const int base = seg_base(), rank = group_rank();
    const V* src = reinterpret_cast<const V*>(in_tile + base);
    V* dst = reinterpret_cast<V*>(stage + base);
#pragma unroll
    for (int k = 0; k < VECS; ++k) {
#if __CUDA_ARCH__ >= 800
      const unsigned to = unsigned(__cvta_generic_to_shared(dst + k * GROUP + rank));
      if (sizeof(V) == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(to),
                     "l"(src + k * GROUP + rank)
                     : "memory");
      else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(to),
                     "l"(src + k * GROUP + rank), "n"(int(sizeof(V)))
                     : "memory");
#else
      dst[k * GROUP + rank] = src[k * GROUP + rank];
#endif
    }
  }
  // Closes the prefetches issued since the last commit into one group.
  static __device__ __forceinline__ void commit_prefetch() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
  }
  // Waits until at most `PENDING` committed groups are in flight, then makes the
  // landed data visible to the staging group.
  template <int PENDING>
  static __device__ __forceinline__ void wait_prefetch() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;" ::"n"(PENDING) : "memory");
#endif
    group_sync();
  }
  // This thread's blocked items of a staged full tile.
  static __device__ __forceinline__ void read_staged(T (&items)[IPT], const T* stage) {
    V* vitems = reinterpret_cast<V*>(items);
    const V* mine = reinterpret_cast<const V*>(stage + chunk_base());
#pragma unroll
    for (int k = 0; k < VECS; ++k)
      vitems[k] = mine[k];
    mirror(items);
  }

  // g_start: virtual index of the tile's first slot (may be negative for the
  // first tile of a misaligned input). Shared memory holds the tile in memory
  // order, as the full tiles' path does (the pipelined kernel reads both alike).
  static __device__ __forceinline__ void load_partial(const T* in, long long g_start,
                                                      unsigned long long n, T (&items)[IPT],
                                                      T* smem, T pad) {
    const long long at = tile_offset(g_start, n);
    if (STAGED) {
      const int base = seg_base(), rank = group_rank();
#pragma unroll
      for (int e = 0; e < IPT; ++e) {
        const int local = base + e * GROUP + rank;
        const long long g = at + local;
        smem[local] = (g >= 0 && (unsigned long long)g < n) ? in[g] : pad;
      }
      group_sync();
      T* mine = smem + chunk_base();
#pragma unroll
      for (int i = 0; i < IPT; ++i)
        items[i] = mine[chunk_pos(i)];
    } else {
#pragma unroll
      for (int i = 0; i < IPT; ++i) {
        const long long g = at + chunk_base() + chunk_pos(i);
        items[i] = (g >= 0 && (unsigned long long)g < n) ? in[g] : pad;
      }
    }
  }

  // vec_ok: the output has the input's misalignment, so full tiles are aligned there too.
  static __device__ __forceinline__ void store_full(T* out_tile, T (&items)[IPT], T* smem,
                                                    bool vec_ok) {
    mirror(items); // the caller's items are dead after the store
    const V* vitems = reinterpret_cast<const V*>(items);
    if (STAGED) {
      const int base = seg_base(), rank = group_rank();
      V* mine = reinterpret_cast<V*>(smem + chunk_base());
#pragma unroll
      for (int k = 0; k < VECS; ++k)
        mine[k] = vitems[k];
      group_sync();
      if (vec_ok) {
        V* dst = reinterpret_cast<V*>(out_tile + base);
        const V* src = reinterpret_cast<const V*>(smem + base);
#pragma unroll
        for (int k = 0; k < VECS; ++k)
          store_global(dst + k * GROUP + rank, src[k * GROUP + rank]);
      } else {
#pragma unroll
        for (int e = 0; e < IPT; ++e)
          store_global(out_tile + base + e * GROUP + rank, smem[base + e * GROUP + rank]);
      }
    } else if (vec_ok) {
      V* dst = reinterpret_cast<V*>(out_tile + chunk_base());
#pragma unroll
      for (int k = 0; k < VECS; ++k)
        store_global(dst + k, vitems[k]);
    } else {
#pragma unroll
      for (int i = 0; i < IPT; ++i)
        store_global(out_tile + chunk_base() + i, items[i]);
    }
  }

  static __device__ __forceinline__ void
  store_partial(T* out, long long g_start, unsigned long long n, T (&items)[IPT], T* smem) {
    const long long at = tile_offset(g_start, n);
    if (STAGED) {
      const int base = seg_base(), rank = group_rank();
      T* mine = smem + chunk_base();
#pragma unroll
      for (int i = 0; i < IPT; ++i)
        mine[chunk_pos(i)] = items[i];
      group_sync();
#pragma unroll
      for (int e = 0; e < IPT; ++e) {
        const int local = base + e * GROUP + rank;
        const long long g = at + local;
        if (g >= 0 && (unsigned long long)g < n) out[g] = smem[local];
      }
    } else {
#pragma unroll
      for (int i = 0; i < IPT; ++i) {
        const long long g = at + chunk_base() + chunk_pos(i);
        if (g >= 0 && (unsigned long long)g < n) out[g] = items[i];
      }
    }
  }
};

} // namespace scantune
