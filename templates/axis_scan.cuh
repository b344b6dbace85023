// Scans along the middle axis of a row-major outer x len x inner array (torch.cumsum
// along a dimension that is not the last): every (o, j) column of len elements, with
// stride inner between them, is scanned on its own, with no transposing copy.
//
// A tile is R = (TPB / 32) * IPT rows by C = 32 * VEC columns of one matrix o: warp w
// owns rows w * IPT .. w * IPT + IPT - 1 of the tile and lane l the VEC columns
// l * VEC ..., so a warp reads 32 * VEC consecutive elements of one row per load
// (vectors where inner and the pointers allow). A chain is the C columns of one
// (matrix, column block); its tiles run down the columns in chunks, and chunk k's
// carry comes from decoupled look-back along its C columns (one status slot per tile
// and column, packed), by the whole block, W earlier chunks of every column per round
// trip.
//
// Narrow columns (inner < C): a row needs only LPR = pow2 >= inner / VEC lanes, so a
// warp splits into RG = 32 / LPR row groups of IPT consecutive rows each (a tile of
// G * IPT * RG rows by LPR * VEC columns); the groups' totals combine by shuffles
// within the warp. Columns shorter than the tile: as few warps down a column as hold
// it (WR, a power of two), the block's G / WR groups of them side by side on
// consecutive slices (a slice: the tile's columns of one matrix), running on into the
// next matrices, so small matrices (torch.cumsum along dim 1 of (N, 2, 32)) share a
// block; a column of one chunk publishes and looks back nothing (a chunk's status is
// read only by the next chunk). launch.cpp's axis_tiles mirrors this geometry.
//
// Columns of len <= IPT rows (FLAG_AXIS_IN_THREAD: (N, 2, 32), (N, 3, 8)) lie within
// one thread's rows: the array is then outer * len rows of inner columns, tiled as one
// matrix (locate_rows), each thread holding IPT / len whole columns (IPT / len * len of
// its IPT rows) and scanning them afresh every len rows; nothing crosses threads.
//
// A tile loop (`.loop`, FLAG_AXIS_CHAINS) drops the look-back: each block scans whole
// chains, chunk after chunk, the carry in registers (scan_chains). The host takes it
// where chains fill the device: it narrows a row to fewer lanes (down to 128 bytes) until
// there are as many chains as resident blocks, and runs the look-back tiles where even
// then there are fewer chains than SMs (a chain's length is serial work for one block).
//
// Tiles are numbered chain-fastest: tile = chunk * chains + chain, so the predecessor
// in a chain is `chains` tiles back and a tile only waits on lower-numbered ones. Of
// the tiles in flight (a wave of a few hundred to a few thousand), each chain then
// holds about in-flight / chains, the length of a look-back walk; numbered
// chunk-fastest, a chain's tiles would all be in flight together, and chunk k would
// walk back up to k chunks. Consecutive tiles also read neighbouring columns of the
// same rows, one contiguous stretch of memory.
//
// Shared memory per block (kernel and look-back): the warps' column totals, G * C
// values; the look-back window, W * C values and W * C flag bytes; C done bytes. W is
// max(1, 4 * lookback_span * TPB / C) (4 x span slots per thread), capped so the window
// stays within kWindowBytes (12 KB): 5 KB for 4-byte values at 256 threads x 128
// columns (W = 8), 9 KB for 8-byte ones at 256 x 64 (W = 16).
#pragma once

#include "scantune/policy.cuh"
#include "scantune/tile_status.cuh"
#include "scantune/types.cuh"

namespace scantune {

template <class T, class Op, int KIND, class P>
struct axis_tile {
  static const int TPB = P::block_threads, IPT = P::items_per_thread, VEC = P::vector_width;
  static const int G = TPB / 32, R = G * IPT, C = 32 * VEC;
  typedef typename raw_vector<VEC * sizeof(T)>::type V;
  // The look-back: columns per thread, window depth (chunks per round), entries per
  // thread. Each thread reads 4 x lookback_span slots a round: the tuner's default
  // span of 1 then already looks 8 chunks back per round at 256 threads x 128 columns.
  static const int CPT = (C + TPB - 1) / TPB;
  static const int kWindowBytes = 12 * 1024;
  static const int W_ENTRIES = 4 * P::lookback_span * TPB / C;
  static const int W_WANT = W_ENTRIES > 1 ? W_ENTRIES : 1;
  static const int W_FIT = kWindowBytes / (C * (int(sizeof(T)) + 1));
  static const int W = W_WANT < W_FIT ? W_WANT : (W_FIT > 1 ? W_FIT : 1);
  static const int E = (W * C + TPB - 1) / TPB;
  // A tile's columns publish together, so their slots are packed (the words a value
  // takes: 1 for 4 bytes, 2 for 8, 3 or 4 for structs), not a sector each as flat
  // tiles' are: a window's reads take a quarter of the sectors (docs/decisions.md).
  static const int SLOT = sizeof(T) <= 4 ? 1 : int(sizeof(T) + 3) / 4;
  typedef tile_status<T, int(sizeof(T)), SLOT> status;

  struct window {
    T v[W][C];
    unsigned char inclusive[W][C];
    bool done[C]; // the column's carry is known
  };

  struct place {
    unsigned long long chunk, row0, col0, matrix; // rows of this thread, its first column
    unsigned long long chains;                    // tiles per chunk: the look-back stride
    unsigned long long chunks;                    // chunks per column
    unsigned lpr;                                 // lanes per row; the tile's columns: lpr * VEC
    unsigned wr;                                  // warps down a column (G where chunks > 1)
    unsigned rows;                                // of the thread's IPT rows, those it holds
  };

  // Lanes a row takes: a power of two, enough for the columns, at most 32.
  static __device__ __forceinline__ unsigned row_lanes(unsigned long long inner) {
    unsigned lpr = 1;
    while (lpr < 32 && (unsigned long long)lpr * VEC < inner)
      lpr *= 2;
    return lpr;
  }

  // Warps down a column that holds `need` warps' rows: a power of two, else all G.
  static __device__ __forceinline__ unsigned warps_down(unsigned long long need) {
    unsigned wr = 1;
    while (wr < need && 2 * wr <= unsigned(G))
      wr *= 2;
    return wr < need ? unsigned(G) : wr;
  }

  // `lpr`: row_lanes(inner), or fewer lanes where a tile loop takes whole chains
  // (FLAG_AXIS_CHAINS: the host's choice, so that there are chains for every block).
  static __device__ __forceinline__ place locate(unsigned tile, unsigned long long n,
                                                 unsigned long long len, unsigned long long inner,
                                                 unsigned lpr) {
    place p;
    p.lpr = lpr;
    p.rows = IPT;
    const unsigned rg = 32 / p.lpr, warp = threadIdx.x >> 5, lane = lane_id();
    const unsigned long long cols = (unsigned long long)p.lpr * VEC;
    // As few warps down a column as hold it, the rest side by side.
    p.wr = warps_down((len + IPT * rg - 1) / (IPT * rg));
    // A slice: cols columns of one matrix. The block's groups take consecutive slices,
    // of the next matrices too where a matrix has fewer slices than the block groups.
    const unsigned groups = unsigned(G) / p.wr;
    const unsigned long long per_matrix = (inner + cols - 1) / cols;
    const unsigned long long slices = n / (len * inner) * per_matrix;
    p.chains = (slices + groups - 1) / groups;
    const unsigned long long rows = (unsigned long long)p.wr * IPT * rg;
    p.chunks = (len + rows - 1) / rows;
    p.chunk = tile / p.chains;
    const unsigned long long slice = tile % p.chains * groups + warp / p.wr;
    p.row0 = p.chunk * rows + (warp % p.wr) * IPT * rg + (lane / p.lpr) * IPT;
    // Warps past the last whole group (G not a multiple of wr) or past the last slice
    // take no column.
    const bool idle = warp >= groups * p.wr || slice >= slices;
    p.matrix = idle ? 0 : slice / per_matrix;
    p.col0 = idle ? inner : slice % per_matrix * cols + (lane % p.lpr) * VEC;
    return p;
  }

  // FLAG_AXIS_IN_THREAD: the rows of all matrices in a row, n / inner of them, each
  // thread's IPT / len whole columns; as in locate, as few warps down them as hold them
  // (4 rows of 2^24 columns: one warp, not four with three idle), the block's groups
  // of warps on consecutive column blocks, numbered column-block-fastest.
  static __device__ __forceinline__ place locate_rows(unsigned tile, unsigned long long n,
                                                      unsigned long long len,
                                                      unsigned long long inner) {
    place p;
    p.lpr = row_lanes(inner);
    p.rows = unsigned(IPT / len * len);
    const unsigned rg = 32 / p.lpr, warp = threadIdx.x >> 5, lane = lane_id();
    const unsigned long long all_rows = n / inner, group_rows = (unsigned long long)rg * p.rows;
    p.wr = warps_down((all_rows + group_rows - 1) / group_rows);
    const unsigned groups = unsigned(G) / p.wr;
    const unsigned long long rows = p.wr * group_rows, cols = (unsigned long long)p.lpr * VEC;
    const unsigned long long slices = (inner + cols - 1) / cols;
    p.chunks = (all_rows + rows - 1) / rows;
    p.chains = (slices + groups - 1) / groups;
    p.chunk = tile / p.chains;
    p.matrix = 0;
    const unsigned long long slice = tile % p.chains * groups + warp / p.wr;
    const bool idle = warp >= groups * p.wr || slice >= slices;
    p.row0 = p.chunk * rows + ((warp % p.wr) * rg + lane / p.lpr) * p.rows;
    p.col0 = idle ? inner : slice * cols + (lane % p.lpr) * VEC;
    return p;
  }

  // Each column's scan of the thread's rows x, from start[v], afresh every `period` rows
  // (FLAG_AXIS_IN_THREAD: a column's length; else IPT: once).
  static __device__ __forceinline__ void scan_rows(T (&x)[IPT][VEC], const T (&start)[VEC],
                                                   unsigned long long period, Op op) {
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      T run = start[v];
      unsigned long long k = 0;
#pragma unroll
      for (int i = 0; i < IPT; ++i) {
        if (k == 0) run = start[v];
        const T e = x[i][v];
        if (KIND == KIND_EXCLUSIVE) {
          x[i][v] = run;
          run = op(run, e);
        } else {
          run = op(run, e);
          x[i][v] = run;
        }
        if (++k == period) k = 0;
      }
    }
  }

  // Across the warp's row groups (lanes lpr apart, earlier rows in lower lanes): the
  // group's exclusive prefix of each column in x, returned; the inclusive one in x.
  static __device__ __forceinline__ void group_scan(T (&x)[VEC], T (&exclusive)[VEC], unsigned lpr,
                                                    Op op) {
    const unsigned lane = lane_id();
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      for (unsigned d = lpr; d < 32; d <<= 1) {
        const T y = __shfl_up_sync(FULL_WARP, x[v], d);
        if (lane >= d) x[v] = op(y, x[v]);
      }
      const T e = __shfl_up_sync(FULL_WARP, x[v], lpr);
      exclusive[v] = lane >= lpr ? e : Op::identity();
    }
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
      const bool held = unsigned(i) < p.rows && row < len;
      if (held && full_cols) {
        const V w = *reinterpret_cast<const V*>(at);
#pragma unroll
        for (int v = 0; v < VEC; ++v)
          x[i][v] = reinterpret_cast<const T*>(&w)[v];
      } else {
#pragma unroll
        for (int v = 0; v < VEC; ++v)
          x[i][v] = held && p.col0 + v < inner ? at[v] : Op::identity();
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
      if (unsigned(i) >= p.rows || row >= len) continue;
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

  // The thread's rows' totals, combined down the warp's row groups: `before` gets the
  // row group's exclusive prefix of each column; the last row group's lanes write the
  // warp's column totals to part[warp].
  static __device__ __forceinline__ void warp_totals(const T (&x)[IPT][VEC], const place& p,
                                                     T (&before)[VEC], T (&part)[G][C], Op op) {
    T agg[VEC];
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      agg[v] = x[0][v];
#pragma unroll
      for (int i = 1; i < IPT; ++i)
        agg[v] = op(agg[v], x[i][v]);
    }
    group_scan(agg, before, p.lpr, op);
    const unsigned lane = lane_id();
    if (lane >= 32 - p.lpr) {
#pragma unroll
      for (int v = 0; v < VEC; ++v)
        part[threadIdx.x >> 5][int(lane % p.lpr) * VEC + v] = agg[v];
    }
  }

  // Column c's warp totals become from + the totals of the warps before each (every
  // warp down the column: G of them); returns from + all of them.
  static __device__ __forceinline__ T warp_prefixes(T (&part)[G][C], int c, T from, Op op) {
    for (int w = 0; w < G; ++w) {
      const T t = part[w][c];
      part[w][c] = from;
      from = op(from, t);
    }
    return from;
  }

  // The thread's rows scanned from its warp's prefix in part and its row group's, stored.
  static __device__ __forceinline__ void scan_store(T (&x)[IPT][VEC], const place& p,
                                                    T (&before)[VEC], const T (&part)[G][C], T* m,
                                                    unsigned long long len,
                                                    unsigned long long inner, bool vectors, Op op) {
    const int col = int(lane_id() % p.lpr) * VEC;
#pragma unroll
    for (int v = 0; v < VEC; ++v)
      before[v] = op(part[threadIdx.x >> 5][col + v], before[v]);
    scan_rows(x, before, IPT, op);
    store(m, p, len, inner, vectors, x);
  }

  // FLAG_AXIS_CHAINS: block b scans chains b, b + gridDim.x, ... whole, chunk after
  // chunk down the columns, each column's carry held by the thread that owns it: no
  // ticket, no status, no look-back. The host takes this only where chains of
  // `lpr` lanes a row (at least 128 bytes) fill the device and columns take more than
  // one chunk (so every warp runs down the one slice: groups = 1).
  static __device__ void scan_chains(const T* in, T* out, unsigned long long n,
                                     unsigned long long len, unsigned long long inner, unsigned lpr,
                                     T init, bool vectors, T (&part)[G][C], Op op) {
    for (unsigned long long chain = blockIdx.x;; chain += gridDim.x) {
      place p = locate(unsigned(chain), n, len, inner, lpr);
      if (chain >= p.chains) return;
      const unsigned long long offset = p.matrix * len * inner;
      const int cols = int(lpr) * VEC;
      T carry[CPT];
#pragma unroll
      for (int k = 0; k < CPT; ++k)
        carry[k] = init;
      for (unsigned long long chunk = 0; chunk < p.chunks; ++chunk) {
        p = locate(unsigned(chunk * p.chains + chain), n, len, inner, lpr);
        T x[IPT][VEC], before[VEC];
        load(in + offset, p, len, inner, vectors, x);
        warp_totals(x, p, before, part, op);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < CPT; ++k) {
          const int c = int(threadIdx.x) + k * TPB;
          if (c < cols) carry[k] = warp_prefixes(part, c, carry[k], op);
        }
        __syncthreads();
        scan_store(x, p, before, part, out + offset, len, inner, vectors, op);
        __syncthreads(); // part is the next chunk's
      }
    }
  }

  // Decoupled look-back, block-wide: each round reads a window of W earlier chunks
  // of every column at once (entry j = w * C + c: chunk - base - 1 - w, column c; E
  // entries per thread), so a walk of k chunks takes k / W round trips to L2, not k.
  // Entries past chunk 0 read as inclusive identities (chunk 0 publishes inclusive
  // at once, so no fold reaches them), and columns already resolved are not read.
  // Returns when all of this thread's entries carry the launch's generation.
  static __device__ __forceinline__ void read_window(const unsigned long long* slots,
                                                     const place& p, unsigned tile,
                                                     unsigned long long base, unsigned gen,
                                                     window& s) {
    T v[E];
    unsigned f[E];
#pragma unroll
    for (int k = 0; k < E; ++k) {
      const int j = int(threadIdx.x) + k * TPB, c = j % C;
      const unsigned long long back = base + 1 + j / C;
      f[k] = 0u;
      if (j >= W * C || s.done[c] || back > p.chunk) {
        v[k] = Op::identity();
        f[k] = make_flag(gen, true);
      }
    }
    bool ready;
    do {
      ready = true;
#pragma unroll
      for (int k = 0; k < E; ++k) {
        if ((f[k] >> 1) == gen) continue;
        const int j = int(threadIdx.x) + k * TPB;
        const unsigned long long back = base + 1 + j / C;
        const unsigned slot = unsigned((tile - back * p.chains) * C) + unsigned(j % C);
        f[k] = status::read(slots, slot, v[k]);
        ready = ready && (f[k] >> 1) == gen;
      }
      if (!ready) poll_backoff<P::backoff_ns>();
    } while (!ready);
#pragma unroll
    for (int k = 0; k < E; ++k) {
      const int j = int(threadIdx.x) + k * TPB;
      if (j < W * C) {
        s.v[j / C][j % C] = v[k];
        s.inclusive[j / C][j % C] = (unsigned char)(f[k] & 1u);
      }
    }
  }

  // Folds column c's window into acc, nearest chunk first (v covers earlier rows than
  // acc: op(v, acc)), up to and including its first inclusive entry; marks the column
  // done if there was one.
  static __device__ __forceinline__ void fold_window(window& s, int c, T& acc, Op op) {
    bool found = false;
#pragma unroll
    for (int w = 0; w < W; ++w)
      if (!found) {
        acc = op(s.v[w][c], acc);
        found = s.inclusive[w][c] != 0;
      }
    s.done[c] = found;
  }

  // The carry into this tile's chunk of the columns that thread owns (c = threadIdx.x
  // + k * TPB < C), for a chunk > 0. Every thread of the block calls it: the rounds end
  // together, when __syncthreads_or finds no column unresolved. s.done must be clear.
  static __device__ void lookback(const unsigned long long* slots, const place& p, unsigned tile,
                                  unsigned gen, window& s, Op op, T (&acc)[CPT]) {
#pragma unroll
    for (int k = 0; k < CPT; ++k)
      acc[k] = Op::identity();
    for (unsigned long long base = 0;; base += W) {
      read_window(slots, p, tile, base, gen, s);
      __syncthreads();
      bool open = false;
#pragma unroll
      for (int k = 0; k < CPT; ++k) {
        const int c = int(threadIdx.x) + k * TPB;
        if (c < C && !s.done[c]) {
          fold_window(s, c, acc[k], op);
          open = open || !s.done[c];
        }
      }
      if (!__syncthreads_or(open)) return;
    }
  }
};

} // namespace scantune
