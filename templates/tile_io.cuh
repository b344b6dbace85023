// Tile layer, data movement: a tile of TPB * IPT elements between global memory
// and a blocked register layout (thread t owns elements t*IPT .. t*IPT+IPT-1).
//
// Full tiles start at a vector-aligned address (the host shifts the tiling by the
// input pointer's misalignment), so they use VEC-element vector accesses:
//  - IO_TRANSPOSE: coalesced striped vector loads into shared memory, then each
//    thread reads its blocked items (and the reverse for stores);
//  - IO_DIRECT: each thread moves its own blocked items with vector accesses.
// Partial tiles use guarded scalar accesses and pad with the operator's identity,
// so the operator never sees uninitialised elements.
// Precondition for stores (IO_TRANSPOSE): a barrier separates the load's
// shared-memory reads from the store (the block scan provides it).
#pragma once

#include "scantune/policy.cuh"
#include "scantune/types.cuh"

namespace scantune {

template <class T, class P>
struct tile_io {
  static const int TPB = P::block_threads, IPT = P::items_per_thread, VEC = P::vector_width;
  static const int VECS = IPT / VEC; // vectors per thread
  typedef typename raw_vector<VEC * sizeof(T)>::type V;
  static const bool TRANSPOSE = P::tile_io == IO_TRANSPOSE;

  // Shared bytes this layer needs.
  static const int SHARED_BYTES = TRANSPOSE ? P::tile_items * int(sizeof(T)) : 16;

  static __device__ __forceinline__ void load_full(const T* in_tile, T (&items)[IPT], T* smem) {
    const int tid = threadIdx.x;
    V* vitems = reinterpret_cast<V*>(items);
    if (TRANSPOSE) {
      const V* src = reinterpret_cast<const V*>(in_tile);
      V staged[VECS];
#pragma unroll
      for (int k = 0; k < VECS; ++k)
        staged[k] = src[k * TPB + tid];
      V* dst = reinterpret_cast<V*>(smem);
#pragma unroll
      for (int k = 0; k < VECS; ++k)
        dst[k * TPB + tid] = staged[k];
      __syncthreads();
      const V* mine = reinterpret_cast<const V*>(smem + tid * IPT);
#pragma unroll
      for (int k = 0; k < VECS; ++k)
        vitems[k] = mine[k];
    } else {
      const V* src = reinterpret_cast<const V*>(in_tile + tid * IPT);
#pragma unroll
      for (int k = 0; k < VECS; ++k)
        vitems[k] = src[k];
    }
  }

  // g_start: global index of the tile's first slot (may be negative for the
  // first tile of a misaligned input).
  static __device__ __forceinline__ void load_partial(const T* in, long long g_start,
                                                      unsigned long long n, T (&items)[IPT],
                                                      T* smem, T pad) {
    const int tid = threadIdx.x;
    if (TRANSPOSE) {
#pragma unroll
      for (int e = 0; e < IPT; ++e) {
        const int local = e * TPB + tid;
        const long long g = g_start + local;
        smem[local] = (g >= 0 && (unsigned long long)g < n) ? in[g] : pad;
      }
      __syncthreads();
#pragma unroll
      for (int i = 0; i < IPT; ++i)
        items[i] = smem[tid * IPT + i];
    } else {
#pragma unroll
      for (int i = 0; i < IPT; ++i) {
        const long long g = g_start + tid * IPT + i;
        items[i] = (g >= 0 && (unsigned long long)g < n) ? in[g] : pad;
      }
    }
  }

  // vec_ok: the output has the input's misalignment, so full tiles are aligned there too.
  static __device__ __forceinline__ void store_full(T* out_tile, T (&items)[IPT], T* smem,
                                                    bool vec_ok) {
    const int tid = threadIdx.x;
    const V* vitems = reinterpret_cast<const V*>(items);
    if (TRANSPOSE) {
      V* mine = reinterpret_cast<V*>(smem + tid * IPT);
#pragma unroll
      for (int k = 0; k < VECS; ++k)
        mine[k] = vitems[k];
      __syncthreads();
      if (vec_ok) {
        V* dst = reinterpret_cast<V*>(out_tile);
        const V* src = reinterpret_cast<const V*>(smem);
#pragma unroll
        for (int k = 0; k < VECS; ++k)
          dst[k * TPB + tid] = src[k * TPB + tid];
      } else {
#pragma unroll
        for (int e = 0; e < IPT; ++e)
          out_tile[e * TPB + tid] = smem[e * TPB + tid];
      }
    } else if (vec_ok) {
      V* dst = reinterpret_cast<V*>(out_tile + tid * IPT);
#pragma unroll
      for (int k = 0; k < VECS; ++k)
        dst[k] = vitems[k];
    } else {
#pragma unroll
      for (int i = 0; i < IPT; ++i)
        out_tile[tid * IPT + i] = items[i];
    }
  }

  static __device__ __forceinline__ void
  store_partial(T* out, long long g_start, unsigned long long n, T (&items)[IPT], T* smem) {
    const int tid = threadIdx.x;
    if (TRANSPOSE) {
#pragma unroll
      for (int i = 0; i < IPT; ++i)
        smem[tid * IPT + i] = items[i];
      __syncthreads();
#pragma unroll
      for (int e = 0; e < IPT; ++e) {
        const int local = e * TPB + tid;
        const long long g = g_start + local;
        if (g >= 0 && (unsigned long long)g < n) out[g] = smem[local];
      }
    } else {
#pragma unroll
      for (int i = 0; i < IPT; ++i) {
        const long long g = g_start + tid * IPT + i;
        if (g >= 0 && (unsigned long long)g < n) out[g] = items[i];
      }
    }
  }
};

} // namespace scantune
