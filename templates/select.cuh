// Stream compaction on the single-pass engine (tile layer; the kernels are
// scan_kernels.cuh's select_kernel and select_count_kernel): select by flags or by a
// predicate, unique (drop consecutive duplicates) and stable two-way partition.
//
// A tile marks its items (bit i of a thread's mask: its item i is selected), a block
// scan of the 32-bit counts ranks them within the tile, and decoupled look-back over
// 64-bit counts gives the selected items before the tile. The tile is then compacted
// in shared memory (selected items first, a partition's rejected ones after them) so
// that consecutive threads store consecutive outputs.
//
// Every output index is at most its item's index, and a tile stores only after its
// look-back, i.e. after every earlier tile has loaded its items: select and unique may
// run in place. A partition's rejected items go after all selected ones, past their
// own index: not in place.
#pragma once

#include "scantune/segmented_scan.cuh"
#include "scantune/tile_io.cuh"

namespace scantune {

// The compaction problems (the host's detail::Heads names the same values).
enum select_mode_id {
  SELECT_FLAGS = 1,    // keep in[i] where flags[i] != 0
  SELECT_IF = 2,       // keep in[i] where pred(in[i])
  SELECT_UNIQUE = 3,   // keep in[0] and in[i] where in[i] != in[i - 1]
  PARTITION_FLAGS = 4, // flagged items first, then the others, both in input order
  PARTITION_IF = 5     // the same by predicate
};

template <int MODE>
struct select_mode {
  static const bool partition = MODE == PARTITION_FLAGS || MODE == PARTITION_IF;
  static const bool flags = MODE == SELECT_FLAGS || MODE == PARTITION_FLAGS;
  static const bool predicate = MODE == SELECT_IF || MODE == PARTITION_IF;
};

// What a predicate tests and unique compares: half and bfloat16 items as float (so a
// predicate's arithmetic and unique's IEEE equality are float's), the others as they are.
template <class T>
__device__ __forceinline__ auto select_value(T x) {
  if constexpr (is_storage_float<T>::value)
    return to_float(x);
  else
    return x;
}

// Calls the predicate where the mode has one; other modes' Pred is a placeholder
// operator that must not be called (it takes two operands).
template <bool PREDICATE>
struct call_predicate {
  template <class Pred, class T>
  static __device__ __forceinline__ bool run(const Pred& pred, T x) {
    return pred(select_value(x));
  }
};
template <>
struct call_predicate<false> {
  template <class Pred, class T>
  static __device__ __forceinline__ bool run(const Pred&, T) {
    return false;
  }
};

// The tile and the compacted tile share one buffer of TILE elements (a barrier, the
// block scan's, separates the load's reads from the compaction's writes).
template <class T, class P>
struct select_smem {
  __device__ __forceinline__ static T* get() {
    __shared__ __align__(16) unsigned char raw[P::tile_items * sizeof(T)];
    return reinterpret_cast<T*>(raw);
  }
};

template <class T, class Pred, class P, int MODE>
struct select_tile {
  static const int TPB = P::block_threads, IPT = P::items_per_thread, TILE = P::tile_items;
  typedef tile_io<T, P> io;
  typedef select_mode<MODE> mode;

  static __device__ __forceinline__ bool valid(long long g, unsigned long long n) {
    return g >= 0 && (unsigned long long)g < n;
  }

  // Loads tile items (padding outside [0, n) is never selected).
  static __device__ __forceinline__ void load(const T* in, unsigned long long n, long long g_start,
                                              T (&items)[IPT], T* smem) {
    if (g_start >= 0 && (unsigned long long)g_start + TILE <= n)
      io::load_full(in + g_start, items, smem);
    else
      io::load_partial(in, g_start, n, items, smem, T());
  }

  // Flags of the elements g0 .. g0 + IPT - 1: one vector load per FLAG_BYTES where the
  // thread's flags lie inside [0, n) and are aligned to them, else byte by byte.
  static const int FLAG_BYTES = IPT % 16 == 0 ? 16 : IPT % 8 == 0 ? 8 : 4;
  static __device__ __forceinline__ unsigned flag_vectors(const unsigned char* flags) {
    typedef typename raw_vector<FLAG_BYTES>::type V;
    const V* src = reinterpret_cast<const V*>(flags);
    unsigned bits = 0;
#pragma unroll
    for (int k = 0; k < IPT / FLAG_BYTES; ++k) {
      const V v = io::load_global(src + k);
      const unsigned* words = reinterpret_cast<const unsigned*>(&v);
#pragma unroll
      for (int j = 0; j < FLAG_BYTES / 4; ++j)
#pragma unroll
        for (int b = 0; b < 4; ++b)
          if ((words[j] >> (8 * b)) & 0xffu) bits |= 1u << (k * FLAG_BYTES + j * 4 + b);
    }
    return bits;
  }
  static __device__ __forceinline__ unsigned flag_bits(const unsigned char* flags, long long g0,
                                                       unsigned long long n) {
    if (IPT % 4 == 0 && g0 >= 0 && (unsigned long long)g0 + IPT <= n &&
        (reinterpret_cast<unsigned long long>(flags + g0) % FLAG_BYTES) == 0)
      return flag_vectors(flags + g0);
    unsigned bits = 0;
#pragma unroll
    for (int i = 0; i < IPT; ++i)
      if (valid(g0 + i, n) && flags[g0 + i] != 0) bits |= 1u << i;
    return bits;
  }

  // Unique: the element before the thread's first item is the previous lane's last
  // item, or for lane 0 the one in memory (in place, an earlier tile may have stored
  // there only that same element: see the header).
  static __device__ __forceinline__ unsigned
  unique_bits(const T* in, long long g0, unsigned long long n, const T (&items)[IPT]) {
    T prev = shfl_up(items[IPT - 1], 1u);
    if (lane_id() == 0 && valid(g0 - 1, n)) prev = in[g0 - 1];
    unsigned bits = 0;
#pragma unroll
    for (int i = 0; i < IPT; ++i) {
      const long long g = g0 + i;
      if (valid(g, n) && (g == 0 || !(select_value(items[i]) == select_value(prev))))
        bits |= 1u << i;
      prev = items[i];
    }
    return bits;
  }

  // The selection of this thread's items (bit i: item i, at g0 + i).
  static __device__ __forceinline__ unsigned select_bits(const T* in, long long g0,
                                                         unsigned long long n,
                                                         const T (&items)[IPT],
                                                         const segment_args& seg) {
    if (mode::flags) return flag_bits(seg.flags, g0, n);
    if (MODE == SELECT_UNIQUE) return unique_bits(in, g0, n, items);
    Pred pred;
    unsigned bits = 0;
#pragma unroll
    for (int i = 0; i < IPT; ++i)
      if (valid(g0 + i, n) && call_predicate<mode::predicate>::run(pred, items[i])) bits |= 1u << i;
    return bits;
  }

  // Compacts the tile in shared memory and stores it: the `count` selected items to
  // out[selected_before + j], a partition's rejected ones after them, to
  // out[rejected_out + j]. `rank`: the tile's selected items before this thread's;
  // the tile's valid elements are [g_first, g_end).
  static __device__ __forceinline__ void store(T* out, const T (&items)[IPT], unsigned bits,
                                               long long g0, long long g_first, long long g_end,
                                               unsigned rank, unsigned count,
                                               unsigned long long selected_before,
                                               unsigned long long rejected_out, T* smem) {
    unsigned sel = rank;
    // Valid elements of the tile before this item: rejected before it = seen - sel.
    unsigned seen = unsigned(min(max(g0, g_first), g_end) - g_first);
#pragma unroll
    for (int i = 0; i < IPT; ++i) {
      const long long g = g0 + i;
      if (bits & (1u << i)) {
        smem[sel++] = items[i];
      } else if (mode::partition && g >= g_first && g < g_end) {
        smem[count + (seen - sel)] = items[i];
      }
      seen += g >= g_first && g < g_end;
    }
    __syncthreads();
    const unsigned stored = mode::partition ? unsigned(g_end - g_first) : count;
    if (sizeof(T) < 4) {
      store_bytes(out + selected_before, smem, count);
      if (mode::partition) store_bytes(out + rejected_out, smem + count, stored - count);
      return;
    }
    for (unsigned j = threadIdx.x; j < stored; j += TPB) {
      if (j < count)
        io::store_global(out + selected_before + j, smem[j]);
      else
        io::store_global(out + rejected_out + (j - count), smem[j]);
    }
  }

  // Narrow items: smem[0, len) to dst[0, len) in aligned 16-byte vectors, each put
  // together from five shared words by funnel shifts (the source and the destination
  // are apart by any number of bytes), and the ragged ends item by item. Why: a store
  // an item moved a byte or two per thread and instruction (0.42x memcpy at 2^28 int8).
  static __device__ __forceinline__ void store_bytes(T* dst, const T* src, unsigned len) {
    typedef typename raw_vector<16>::type V;
    unsigned char* d = reinterpret_cast<unsigned char*>(dst);
    const unsigned char* s = reinterpret_cast<const unsigned char*>(src);
    const unsigned bytes = len * unsigned(sizeof(T));
    unsigned head = unsigned(-reinterpret_cast<unsigned long long>(d)) & 15u;
    if (head > bytes) head = bytes;
    const unsigned vectors = (bytes - head) / 16u, body_end = head + 16u * vectors;
    const unsigned r = unsigned(reinterpret_cast<unsigned long long>(s + head)) & 3u;
    const unsigned* words = reinterpret_cast<const unsigned*>(s + head - r);
    for (unsigned v = threadIdx.x; v < vectors; v += TPB) {
      const unsigned* w = words + 4u * v;
      unsigned x[5];
#pragma unroll
      for (int k = 0; k < 4; ++k)
        x[k] = w[k];
      x[4] = r ? w[4] : 0u; // within the tile: the vector's last byte is past x[3]
      V out;
      out.x = __funnelshift_r(x[0], x[1], 8u * r);
      out.y = __funnelshift_r(x[1], x[2], 8u * r);
      out.z = __funnelshift_r(x[2], x[3], 8u * r);
      out.w = __funnelshift_r(x[3], x[4], 8u * r);
      io::store_global(reinterpret_cast<V*>(d + head + 16u * v), out);
    }
    const unsigned head_items = head / unsigned(sizeof(T));
    const unsigned tail_items = (bytes - body_end) / unsigned(sizeof(T));
    for (unsigned j = threadIdx.x; j < head_items + tail_items; j += TPB) {
      const unsigned i = j < head_items ? j : body_end / unsigned(sizeof(T)) + (j - head_items);
      io::store_global(dst + i, src[i]);
    }
  }
};

} // namespace scantune
