// Scans along the middle axis of a row-major outer x len x inner array (torch.cumsum
// along a dimension that is not the last): every (o, j) column of len elements, with
// stride inner between them, is scanned on its own, with no transposing copy.
//
// A tile is R = (TPB / 32) * IPT rows by C = 32 * VEC columns of one matrix o: warp w
// owns rows w * IPT .. w * IPT + IPT - 1 of the tile and lane l the VEC columns
// l * VEC ..., so a warp reads 32 * VEC consecutive elements of one row per load
// (vectors where inner and the pointers allow). Tiles run down the columns in chunks;
// chunk k's carry comes from decoupled look-back along its C columns (one status slot
// per tile and column), done by warp 0, a thread per VEC columns.
// Tiles are numbered chunk-fastest ((o, column block) outer), so a tile only waits on
// lower-numbered ones.
#pragma once

#include "scantune/tile_status.cuh"
#include "scantune/types.cuh"

namespace scantune {

template <class T, class Op, int KIND, class P>
struct axis_tile {
  static const int TPB = P::block_threads, IPT = P::items_per_thread, VEC = P::vector_width;
  static const int G = TPB / 32, R = G * IPT, C = 32 * VEC;
  typedef typename raw_vector<VEC * sizeof(T)>::type V;

  struct place {
    unsigned long long chunk, row0, col0, matrix; // rows of this thread, its first column
  };

  static __device__ __forceinline__ place locate(unsigned tile, unsigned long long len,
                                                 unsigned long long inner) {
    const unsigned long long chunks = (len + R - 1) / R, blocks = (inner + C - 1) / C;
    place p;
    p.chunk = tile % chunks;
    const unsigned long long rest = tile / chunks;
    p.matrix = rest / blocks;
    p.row0 = p.chunk * R + (threadIdx.x >> 5) * IPT;
    p.col0 = (rest % blocks) * C + lane_id() * VEC;
    return p;
  }

  // x[i][v]: row row0 + i, column col0 + v of matrix `m` (identity outside the array).
  static __device__ __forceinline__ void load(const T* m, const place& p, unsigned long long len,
                                              unsigned long long inner, bool vectors,
                                              T (&x)[IPT][VEC]) {
    const bool full_cols = vectors && p.col0 + VEC <= inner;
#pragma unroll
    for (int i = 0; i < IPT; ++i) {
      const unsigned long long row = p.row0 + i;
      const T* at = m + row * inner + p.col0;
      if (row < len && full_cols) {
        const V w = *reinterpret_cast<const V*>(at);
#pragma unroll
        for (int v = 0; v < VEC; ++v)
          x[i][v] = reinterpret_cast<const T*>(&w)[v];
      } else {
#pragma unroll
        for (int v = 0; v < VEC; ++v)
          x[i][v] = row < len && p.col0 + v < inner ? at[v] : Op::identity();
      }
    }
  }

  static __device__ __forceinline__ void store(T* m, const place& p, unsigned long long len,
                                               unsigned long long inner, bool vectors,
                                               T (&y)[IPT][VEC]) {
    const bool full_cols = vectors && p.col0 + VEC <= inner;
#pragma unroll
    for (int i = 0; i < IPT; ++i) {
      const unsigned long long row = p.row0 + i;
      if (row >= len) continue;
      T* at = m + row * inner + p.col0;
      if (full_cols) {
        V w;
#pragma unroll
        for (int v = 0; v < VEC; ++v)
          reinterpret_cast<T*>(&w)[v] = y[i][v];
        *reinterpret_cast<V*>(at) = w;
      } else {
#pragma unroll
        for (int v = 0; v < VEC; ++v)
          if (p.col0 + v < inner) at[v] = y[i][v];
      }
    }
  }

  // One column's carry into chunk `chunk` of tile `tile`: look back over the same
  // column's slots of the earlier chunks until an inclusive one.
  static __device__ T lookback_column(const unsigned long long* slots, unsigned tile,
                                      unsigned long long chunk, unsigned column, unsigned gen,
                                      Op op) {
    T acc = Op::identity();
    for (unsigned long long back = 1; back <= chunk; ++back) {
      const unsigned long long slot = (tile - back) * C + column;
      T v;
      unsigned f;
      while (((f = tile_status<T>::read(slots, unsigned(slot), v)) >> 1) != gen)
        poll_backoff<P::backoff_ns>();
      acc = op(v, acc);
      if (f & 1u) break;
    }
    return acc;
  }
};

} // namespace scantune
