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

// The static shared memory the tile layer needs for items of T: a staged tile
// (lookback_pipelined's stages are dynamic shared memory, sized by the host).
template <class T, class P>
struct tile_footprint {
  static const bool STAGED = P::tile_io == IO_TRANSPOSE || P::tile_io == IO_WARP_TRANSPOSE;
  static const bool PIPELINED = P::algorithm == ALG_LOOKBACK_PIPELINED;
  static const int SHARED_BYTES = STAGED && !PIPELINED ? P::tile_items * int(sizeof(T)) : 16;
};

// T: the items' (accumulator) type in registers; In and Out: the element types in
// memory, converted on the way in and out (at most sizeof(T) bytes each: a staged
// tile of T fits either). Vectors move VEC elements of the type in memory.
template <class T, class P, class In = T, class Out = T>
struct tile_io {
  static const int TPB = P::block_threads, IPT = P::items_per_thread, VEC = P::vector_width;
  // A vector moves VEC elements, or 16 bytes of them where VEC elements are more (a
  // converting scan's policy sizes VEC for its wider side; tiles align to VEC elements).
  static const int IN_BYTES = VEC * sizeof(In) < 16 ? VEC * sizeof(In) : 16;
  static const int OUT_BYTES = VEC * sizeof(Out) < 16 ? VEC * sizeof(Out) : 16;
  static const int VECS = IPT * sizeof(In) / IN_BYTES;       // input vectors per thread
  static const int VECS_OUT = IPT * sizeof(Out) / OUT_BYTES; // output vectors per thread
  typedef typename raw_vector<IN_BYTES>::type V;
  typedef typename raw_vector<OUT_BYTES>::type VO;
  static_assert(sizeof(In) <= sizeof(T) && sizeof(Out) <= sizeof(T),
                "a staged tile of accumulators holds the input and the output elements");
  static const bool WARP_XPOSE = P::tile_io == IO_WARP_TRANSPOSE;
  static const bool STAGED = P::tile_io == IO_TRANSPOSE || WARP_XPOSE;
  static const bool STREAMING = P::cache == CACHE_STREAMING;
  // Threads that stripe one staged segment: the whole block, or one warp.
  static const int GROUP = WARP_XPOSE ? 32 : TPB;
  static const bool REV = P::reverse != 0;
  static const int TILE = P::tile_items, SEG = GROUP * IPT;

  // Staged tiles held at once.
  static const int STAGES = tile_footprint<T, P>::PIPELINED ? P::stages : 1;

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
  // Converted items, mirrored when reversed (a load's last step).
  static __device__ __forceinline__ void take(const In (&raw)[IPT], T (&items)[IPT]) {
#pragma unroll
    for (int i = 0; i < IPT; ++i)
      items[i] = convert<T>(raw[REV ? IPT - 1 - i : i]);
  }
  // The output elements of the items in memory order (a store's first step).
  static __device__ __forceinline__ void give(const T (&items)[IPT], Out (&outs)[IPT]) {
#pragma unroll
    for (int i = 0; i < IPT; ++i)
      outs[i] = convert<Out>(items[REV ? IPT - 1 - i : i]);
  }
  static __device__ __forceinline__ void group_sync() {
    if (WARP_XPOSE)
      __syncwarp();
    else
      __syncthreads();
  }

  // Without hints only plain accesses are instantiated: a 12-byte struct's uint3 has no
  // hinted form (struct policies refuse hints for it).
  template <class U>
  static __device__ __forceinline__ U load_global(const U* p) {
    if constexpr (STREAMING)
      return __ldcs(p);
    else
      return *p;
  }
  // Any element or vector type: the hinted store takes its bits (half_t is a struct).
  template <class U>
  static __device__ __forceinline__ void store_global(U* p, U v) {
    typedef typename raw_vector<sizeof(U)>::type R;
    if constexpr (STREAMING)
      __stcs(reinterpret_cast<R*>(p), *reinterpret_cast<const R*>(&v));
    else
      *p = v;
  }

  static __device__ __forceinline__ void load_full(const In* in_tile, T (&items)[IPT], T* smem) {
    if (STAGED) {
      const int base = seg_base(), rank = group_rank();
      const V* src = reinterpret_cast<const V*>(in_tile + base);
      V staged[VECS];
#pragma unroll
      for (int k = 0; k < VECS; ++k)
        staged[k] = load_global(src + k * GROUP + rank);
      V* dst = reinterpret_cast<V*>(reinterpret_cast<In*>(smem) + base);
#pragma unroll
      for (int k = 0; k < VECS; ++k)
        dst[k * GROUP + rank] = staged[k];
      group_sync();
      read_staged(items, smem);
    } else {
      In raw[IPT];
      V* vraw = reinterpret_cast<V*>(raw);
      const V* src = reinterpret_cast<const V*>(in_tile + chunk_base());
#pragma unroll
      for (int k = 0; k < VECS; ++k)
        vraw[k] = load_global(src + k);
      take(raw, items);
    }
  }

  // Starts copying a full tile into `stage` (striped); completes with wait_prefetch.
  static __device__ __forceinline__ void prefetch_full(const In* in_tile, T* stage) {
    const int base = seg_base(), rank = group_rank();
    const V* src = reinterpret_cast<const V*>(in_tile + base);
    V* dst = reinterpret_cast<V*>(reinterpret_cast<In*>(stage) + base);
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
    In raw[IPT];
    V* vraw = reinterpret_cast<V*>(raw);
    const V* mine = reinterpret_cast<const V*>(reinterpret_cast<const In*>(stage) + chunk_base());
#pragma unroll
    for (int k = 0; k < VECS; ++k)
      vraw[k] = mine[k];
    take(raw, items);
  }

  // g_start: virtual index of the tile's first slot (may be negative for the
  // first tile of a misaligned input). Shared memory holds the tile in memory
  // order, as the full tiles' path does (the pipelined kernel reads both alike).
  static __device__ __forceinline__ void load_partial(const In* in, long long g_start,
                                                      unsigned long long n, T (&items)[IPT],
                                                      T* smem, T pad) {
    const long long at = tile_offset(g_start, n);
    if (STAGED) {
      const int base = seg_base(), rank = group_rank();
#pragma unroll
      for (int e = 0; e < IPT; ++e) {
        const int local = base + e * GROUP + rank;
        const long long g = at + local;
        smem[local] = (g >= 0 && (unsigned long long)g < n) ? convert<T>(in[g]) : pad;
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
        items[i] = (g >= 0 && (unsigned long long)g < n) ? convert<T>(in[g]) : pad;
      }
    }
  }

  // vec_ok: the output has the input's misalignment, so full tiles are aligned there too.
  static __device__ __forceinline__ void store_full(Out* out_tile, T (&items)[IPT], T* smem,
                                                    bool vec_ok) {
    Out outs[IPT];
    give(items, outs);
    const VO* vouts = reinterpret_cast<const VO*>(outs);
    Out* staged = reinterpret_cast<Out*>(smem);
    if (STAGED) {
      const int base = seg_base(), rank = group_rank();
      VO* mine = reinterpret_cast<VO*>(staged + chunk_base());
#pragma unroll
      for (int k = 0; k < VECS_OUT; ++k)
        mine[k] = vouts[k];
      group_sync();
      if (vec_ok) {
        VO* dst = reinterpret_cast<VO*>(out_tile + base);
        const VO* src = reinterpret_cast<const VO*>(staged + base);
#pragma unroll
        for (int k = 0; k < VECS_OUT; ++k)
          store_global(dst + k * GROUP + rank, src[k * GROUP + rank]);
      } else {
#pragma unroll
        for (int e = 0; e < IPT; ++e)
          store_global(out_tile + base + e * GROUP + rank, staged[base + e * GROUP + rank]);
      }
    } else if (vec_ok) {
      VO* dst = reinterpret_cast<VO*>(out_tile + chunk_base());
#pragma unroll
      for (int k = 0; k < VECS_OUT; ++k)
        store_global(dst + k, vouts[k]);
    } else {
#pragma unroll
      for (int i = 0; i < IPT; ++i)
        store_global(out_tile + chunk_base() + i, outs[i]);
    }
  }

  static __device__ __forceinline__ void
  store_partial(Out* out, long long g_start, unsigned long long n, T (&items)[IPT], T* smem) {
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
        if (g >= 0 && (unsigned long long)g < n) out[g] = convert<Out>(smem[local]);
      }
    } else {
#pragma unroll
      for (int i = 0; i < IPT; ++i) {
        const long long g = at + chunk_base() + chunk_pos(i);
        if (g >= 0 && (unsigned long long)g < n) out[g] = convert<Out>(items[i]);
      }
    }
  }
};

} // namespace scantune
