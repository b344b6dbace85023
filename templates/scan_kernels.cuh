// Kernel layer: the __global__ entry points, one per inter-block algorithm.
// Every kernel takes the same parameters so the host launches them uniformly:
//   in, out   element pointers (in == out for in-place scans), of the types In and Out
//             for the flat scans (by default the accumulator type T)
//   n         element count
//   init      exclusive scans' initial value; inclusive scans' seed under FLAG_SEEDED
//             (out[i] = init op x0 op ... op xi); otherwise ignored by inclusive scans
//   shift     input misalignment in elements (tiles start on vector boundaries)
//   flags     FLAG_OUT_VECTORS: the output shares the input's misalignment (vector
//             stores); FLAG_TILES_BY_BLOCK: single_pass_kernel's tile is blockIdx.x
//   ws        per-stream workspace (see tile_status.cuh)
//   start     with FLAG_START_ON_DEVICE, where `init` is read when the kernel runs
//             (an earlier kernel on the stream may write it: CUB's future value);
//             with FLAG_START_IDENTITY `init` is the operator's identity
#pragma once

#include "scantune/axis_scan.cuh"
#include "scantune/bulk_copy.cuh"
#include "scantune/operators.cuh"
#include "scantune/segmented_scan.cuh"
#include "scantune/select.cuh"
#include "scantune/tile_scan.cuh"
#include "scantune/tile_status.cuh"

#define SCANTUNE_KERNEL_PARAMS_OF(IN, OUT)                                                         \
  const IN *in, OUT *out, unsigned long long n, T init, unsigned shift, unsigned flags,            \
      unsigned long long *ws, const T *start
#define SCANTUNE_KERNEL_PARAMS SCANTUNE_KERNEL_PARAMS_OF(T, T)
// The flat scans' kernels: In and Out, the element types in memory, may differ from
// the accumulator T (converted on load and store; codegen names them when they do).
#define SCANTUNE_IO_KERNEL_PARAMS SCANTUNE_KERNEL_PARAMS_OF(In, Out)

namespace scantune {

// Bits of the kernels' `flags` (the host's launch.cpp sets them).
static const unsigned FLAG_OUT_VECTORS = 1u;
static const unsigned FLAG_TILES_BY_BLOCK = 2u;
static const unsigned FLAG_AXIS_VECTORS = 4u;     // axis_kernel: vector accesses along rows
static const unsigned FLAG_SEEDED = 8u;           // an inclusive scan starts from init
static const unsigned FLAG_START_ON_DEVICE = 16u; // init is *start
// An exclusive scan starts at the operator's identity, which only the device knows
// (struct-valued custom operators: the host holds no value of their type).
static const unsigned FLAG_START_IDENTITY = 32u;
// axis_kernel: every column fits one tile, so no tile waits on another: tiles by
// blockIdx, no ticket (small matrices make many small tiles, and one atomic counter
// per tile would serialize them).
static const unsigned FLAG_AXIS_ONE_CHUNK = 64u;
// axis_kernel: columns lie within one thread's rows (axis_scan.cuh), no ticket either.
static const unsigned FLAG_AXIS_IN_THREAD = 128u;
// axis_kernel: a tile loop, each block scanning whole chains (axis_tile::scan_chains);
// `shift` carries the lanes a row takes.
static const unsigned FLAG_AXIS_CHAINS = 256u;

template <class T, class P>
struct tile_smem {
  __device__ __forceinline__ static T* get() {
    __shared__ __align__(16) unsigned char raw[tile_footprint<T, P>::SHARED_BYTES];
    return reinterpret_cast<T*>(raw);
  }
};

// Programmatic dependent launch (sm_90 and up; the host launches with the
// programmatic-serialization attribute): this grid may be launched while the
// stream's previous kernel still runs. Every kernel waits here, before it touches
// memory, until that kernel has finished and its writes are visible (a no-op when
// launched without the attribute), then lets the stream's next grid start its
// launch: that grid waits here too, so only launch latency overlaps, never data.
__device__ __forceinline__ void await_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// The value before element 0 that every kernel starts from: the exclusive init, an
// inclusive scan's seed, else the identity; read after await_previous_grid, since the
// previous grid may write *start. From here on a kernel combines it unconditionally.
template <class T, class Op, int KIND>
__device__ __forceinline__ T start_value(T init, const T* start, unsigned flags) {
  if ((KIND != KIND_EXCLUSIVE && !(flags & FLAG_SEEDED)) || (flags & FLAG_START_IDENTITY))
    return Op::identity();
  return (flags & FLAG_START_ON_DEVICE) ? *start : init;
}

// One thread walks every element: the baseline.
template <class T, class Op, int KIND, class In = T, class Out = T>
__global__ void __launch_bounds__(32) sequential_kernel(SCANTUNE_IO_KERNEL_PARAMS) {
  await_previous_grid();
  init = start_value<T, Op, KIND>(init, start, flags);
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  Op op;
  T acc = init;
  for (unsigned long long i = 0; i < n; ++i) {
    const T x = convert<T>(in[i]);
    if (KIND == KIND_EXCLUSIVE) {
      out[i] = convert<Out>(acc);
      acc = op(acc, x);
    } else {
      acc = op(acc, x);
      out[i] = convert<Out>(acc);
    }
  }
}

// One block scans every tile in order; warp 0 carries the prefix in registers.
template <class T, class Op, int KIND, class P, class In = T, class Out = T>
__global__ void __launch_bounds__(P::block_threads, P::min_blocks)
    single_block_kernel(SCANTUNE_IO_KERNEL_PARAMS) {
  await_previous_grid();
  init = start_value<T, Op, KIND>(init, start, flags);
  Op op;
  T* smem = tile_smem<T, P>::get();
  const unsigned long long tiles = (n + shift + P::tile_items - 1) / P::tile_items;
  T carry = init;
  for (unsigned long long t = 0; t < tiles; ++t) {
    tile_scan<T, Op, KIND, P, In, Out>::run(in, out, n, shift, (flags & FLAG_OUT_VECTORS) != 0, t,
                                            smem, [&](T aggregate) {
                                              const T prefix = carry;
                                              carry = op(carry, aggregate);
                                              return prefix;
                                            });
    __syncthreads(); // the next tile's load reuses shared memory
  }
}

// Publishes a tile's aggregate (tile 0: its inclusive prefix, which is known).
template <class T, class Op, int KIND>
__device__ __forceinline__ void publish_aggregate(unsigned long long* slots, unsigned tile,
                                                  unsigned gen, T aggregate, T init) {
  if (lane_id() != 0) return;
  Op op;
  if (tile == 0)
    tile_status<T>::publish(slots, 0, make_flag(gen, true), op(init, aggregate));
  else
    tile_status<T>::publish(slots, tile, make_flag(gen, false), aggregate);
}

// Warp look-back for a tile whose aggregate is published: returns its exclusive
// prefix (for exclusive scans including init) and publishes its inclusive one.
// Called by all 32 lanes of one warp (lane 0 publishes, as in publish_aggregate).
template <class T, class Op, int KIND, class P>
__device__ __forceinline__ T finish_lookback(unsigned long long* slots, unsigned tile, unsigned gen,
                                             T aggregate, T init) {
  Op op;
  if (tile == 0) return init;
  const T prefix =
      lookback_warp<T, Op, P::backoff_ns, P::lookback_span, P::reproducible>(slots, tile, gen, op);
  if (lane_id() == 0) publish_inclusive(slots, tile, gen, prefix, aggregate, op);
  return prefix;
}

// Warp 0's part of the single-pass algorithms for one tile: publish the tile's
// aggregate, obtain its exclusive prefix (chained wait or look-back), publish its
// inclusive prefix. Called by all 32 lanes of warp 0; returns the prefix in each.
template <class T, class Op, int KIND, class P>
__device__ __forceinline__ T resolve_prefix(unsigned long long* slots, unsigned tile, unsigned gen,
                                            T aggregate, T init) {
  if (P::algorithm == ALG_LOOKBACK_WARP || tile == 0) {
    publish_aggregate<T, Op, KIND>(slots, tile, gen, aggregate, init);
    return finish_lookback<T, Op, KIND, P>(slots, tile, gen, aggregate, init);
  }
  Op op;
  const bool leader = threadIdx.x == 0;
  T prefix = Op::identity();
  if (leader) {
    // A one-thread look-back folds its own way back (newest first): reproducible only
    // as a chained wait.
    if (P::algorithm == ALG_CHAINED || P::reproducible) {
      prefix = wait_predecessor_inclusive<T, P::backoff_ns>(slots, tile, gen);
    } else {
      tile_status<T>::publish(slots, tile, make_flag(gen, false), aggregate);
      prefix = lookback_one_thread<T, Op, P::backoff_ns>(slots, tile, gen, op);
    }
  }
  prefix = shfl_idx(prefix, 0u);
  if (leader) publish_inclusive(slots, tile, gen, prefix, aggregate, op);
  return prefix;
}

// Thread 0 draws the block's ticket: by_block (tiles by blockIdx.x) beside the loads,
// returning the ticket word that warp 0 settles at its first publication; otherwise
// before them, into s_ticket (the block's tile) and s_gen (the launch's generation).
__device__ __forceinline__ unsigned long long draw_ticket(unsigned long long* ws, bool by_block,
                                                          unsigned& s_ticket, unsigned& s_gen) {
  unsigned long long drawn = 0;
  if (by_block) {
    if (threadIdx.x == 0) drawn = atomicAdd(ws, 1ull);
  } else {
    if (threadIdx.x == 0) s_gen = take_ticket(ws, s_ticket, gridDim.x - 1);
    __syncthreads();
  }
  return drawn;
}

// A single-pass tile's prefix, found by warp 0 once the tile's aggregate is known.
// `gen` is the launch's generation, unless `settle`: then warp 0 first settles
// thread 0's ticket word `drawn` (tiles by blockIdx.x: it only yields the generation).
template <class T, class Op, int KIND, class P>
__device__ __forceinline__ T single_pass_prefix(unsigned long long* ws, unsigned tile,
                                                unsigned& gen, bool settle,
                                                unsigned long long drawn, T aggregate, T init) {
  if (settle) {
    if (threadIdx.x == 0) gen = settle_ticket(ws, drawn, gridDim.x - 1);
    gen = __shfl_sync(FULL_WARP, gen, 0);
  }
  return resolve_prefix<T, Op, KIND, P>(ws + STATUS_OFFSET_WORDS, tile, gen, aggregate, init);
}

// Single pass over the input, one tile per block: chained scan or decoupled
// look-back (thread/warp).
template <class T, class Op, int KIND, class P, class In = T, class Out = T>
__global__ void __launch_bounds__(P::block_threads, P::min_blocks)
    single_pass_kernel(SCANTUNE_IO_KERNEL_PARAMS) {
  await_previous_grid();
  init = start_value<T, Op, KIND>(init, start, flags);
  static_assert(P::algorithm == ALG_CHAINED || P::algorithm == ALG_LOOKBACK_THREAD ||
                    P::algorithm == ALG_LOOKBACK_WARP,
                "single_pass_kernel runs the chained and look-back algorithms");
  // With FLAG_TILES_BY_BLOCK (the host sets it only when the whole grid fits on
  // the device at once, so a waiting block never keeps the one it waits for from
  // being dispatched, whatever the order) the tile is blockIdx.x and the loads
  // start at once; thread 0's ticket, drawn beside them, only yields the
  // generation, read by warp 0 when it publishes. Otherwise the tile is the
  // ticket, waited for before the loads.
  const bool by_block = (flags & FLAG_TILES_BY_BLOCK) != 0;
  __shared__ unsigned s_ticket, s_gen;
  const unsigned long long drawn = draw_ticket(ws, by_block, s_ticket, s_gen);
  const unsigned tile = by_block ? blockIdx.x : s_ticket;
  tile_scan<T, Op, KIND, P, In, Out>::run(in, out, n, shift, (flags & FLAG_OUT_VECTORS) != 0, tile,
                                          tile_smem<T, P>::get(), [&](T aggregate) {
                                            unsigned gen = by_block ? 0u : s_gen;
                                            return single_pass_prefix<T, Op, KIND, P>(
                                                ws, tile, gen, by_block, drawn, aggregate, init);
                                          });
}

// Policy key ".loop": single_pass_kernel's algorithms in a grid of at most one wave
// (launch.cpp). With FLAG_TILES_BY_BLOCK block b scans tiles b, b + gridDim.x, ...
// in order, so the lowest unfinished tile never waits on a later one and no block
// waits for a ticket; otherwise (SCANTUNE_TICKETS=1) one tile per block, its ticket.
// Its own kernel: one-tile shapes keep their code (the loop takes more registers).
template <class T, class Op, int KIND, class P, class In = T, class Out = T>
__global__ void __launch_bounds__(P::block_threads, P::min_blocks)
    single_pass_loop_kernel(SCANTUNE_IO_KERNEL_PARAMS) {
  await_previous_grid();
  init = start_value<T, Op, KIND>(init, start, flags);
  const bool by_block = (flags & FLAG_TILES_BY_BLOCK) != 0;
  __shared__ unsigned s_ticket, s_gen;
  const unsigned long long drawn = draw_ticket(ws, by_block, s_ticket, s_gen);
  unsigned gen = by_block ? 0u : s_gen; // warp 0 settles it at its first tile
  const unsigned long long tiles = (n + shift + P::tile_items - 1) / P::tile_items;
#pragma unroll 1 // unrolled, the tile body took up to twice the registers
  for (unsigned long long t = by_block ? blockIdx.x : s_ticket; t < tiles;
       t += by_block ? gridDim.x : tiles) {
    const unsigned tile = unsigned(t);
    tile_scan<T, Op, KIND, P, In, Out>::run(in, out, n, shift, (flags & FLAG_OUT_VECTORS) != 0,
                                            tile, tile_smem<T, P>::get(), [&](T aggregate) {
                                              return single_pass_prefix<T, Op, KIND, P>(
                                                  ws, tile, gen, by_block && gen == 0u, drawn,
                                                  aggregate, init);
                                            });
    __syncthreads(); // the next tile's loads reuse shared memory
  }
}

// Look-ahead warp look-back: a grid of resident blocks, each taking tiles by
// ticket until none is left, with S = P::stages shared-memory stages (dynamic
// shared memory, S tiles). A block holds tiles T0 (reduced), T1 (landed or
// landing) and T2..T(S-1) (copies in flight). One step: (1) start copying
// T(S-1) (cp.async) and take the ticket after it, (2) reduce T1, which has
// landed, and publish its aggregate, then, in warp 0 while the others wait,
// (3) look back for T0 (reduced one step earlier) and (4) scan and store T0.
// So every tile's aggregate is out one step before its block waits on a
// look-back, and while it waits S - 2 tile copies are in flight.
// Tickets are taken in order by running blocks and each block finishes its
// tiles in order, so the lowest unfinished tile never waits on a later one.
template <class T, class Op, int KIND, class P, class In = T, class Out = T>
__global__ void __launch_bounds__(P::block_threads, P::min_blocks)
    pipelined_kernel(SCANTUNE_IO_KERNEL_PARAMS) {
  await_previous_grid();
  init = start_value<T, Op, KIND>(init, start, flags);
  static_assert(P::algorithm == ALG_LOOKBACK_PIPELINED && P::tile_io != IO_DIRECT,
                "pipelined_kernel stages tiles in shared memory");
  typedef tile_io<T, P, In, Out> io;
  typedef tile_scan<T, Op, KIND, P, In, Out> ts;
  typedef block_scan<T, Op, P::block_threads, P::block_scan> bscan;
  const unsigned S = io::STAGES;
  static_assert(io::STAGES >= 3, "T0, T1 and at least one copy in flight each have a stage");
  // S tiles (host-sized); aligned as bulk_kernel's, the same symbol in one TU
  extern __shared__ __align__(128) unsigned char dynamic_smem[];
  __shared__ unsigned s_tile[P::stages], s_next[2], s_gen;
  __shared__ T s_prefix;
  Op op;
  unsigned long long* slots = ws + STATUS_OFFSET_WORDS;
  T* stages = reinterpret_cast<T*>(dynamic_smem);
  const long long TILE = P::tile_items;
  const unsigned long long tiles = (n + shift + TILE - 1) / TILE;
  // Every block takes tickets until one is past the end: the last of those resets.
  const unsigned last = unsigned(tiles) + gridDim.x - 1;
  auto take_after = [&](unsigned prev) {
    unsigned t = prev;
    if (prev < tiles) take_ticket(ws, t, last);
    return t;
  };
  if (threadIdx.x == 0) {
    unsigned t;
    s_gen = take_ticket(ws, t, last);
    s_tile[0] = t;
    for (unsigned k = 1; k < S; ++k)
      s_tile[k] = t = take_after(t);
  }
  __syncthreads();
  const unsigned gen = s_gen;
  unsigned tile[P::stages]; // T0 .. T(S-1); stage of Tk: (s0 + k) % S
#pragma unroll
  for (unsigned k = 0; k < S; ++k)
    tile[k] = s_tile[k];
  unsigned s0 = 0;
  if (tile[0] >= tiles) return;
  auto start_of = [&](unsigned t) { return (long long)t * TILE - (long long)shift; };
  auto is_full = [&](unsigned t) {
    return t < tiles && start_of(t) >= 0 && (unsigned long long)(start_of(t) + TILE) <= n;
  };
  auto stage = [&](unsigned k) { return stages + (k % S) * TILE; };
  auto prefetch = [&](unsigned t, T* to) {
    if (is_full(t)) io::prefetch_full(in + io::tile_offset(start_of(t), n), to);
    io::commit_prefetch();
  };
  // The landed (or, for a partial tile, freshly loaded) tile's thread partial.
  auto reduce_landed = [&](unsigned t, T* from) {
    T items[P::items_per_thread];
    if (is_full(t))
      io::read_staged(items, from);
    else
      io::load_partial(in, start_of(t), n, items, from, Op::identity());
    return ts::thread_reduce(items, op);
  };
#pragma unroll
  for (unsigned k = 0; k + 1 < S; ++k)
    prefetch(tile[k], stage(k));
  io::template wait_prefetch<P::stages - 2>(); // T0 has landed
  T agg_0 = Op::identity();                    // warp 0 only
  T part_0 = bscan::exclusive_then(reduce_landed(tile[0], stage(0)), op, [&](T aggregate) {
    publish_aggregate<T, Op, KIND>(slots, tile[0], gen, aggregate, init);
    agg_0 = aggregate;
  });
  for (unsigned step = 0;; ++step) {
    // (1) T(S-1) goes into the stage T0 of the previous step stored from.
    io::group_sync();
    prefetch(tile[S - 1], stage(s0 + S - 1));
    if (threadIdx.x == 0) s_next[step & 1u] = take_after(tile[S - 1]); // read after (2)'s barriers
    io::template wait_prefetch<P::stages - 2>(); // all but the newest S - 2 groups: T1 landed
    // (2) + (3): warp 0 publishes T1's aggregate, then looks back for T0.
    const bool has_1 = tile[1] < tiles;
    auto warp0 = [&](T agg_1) {
      if (has_1) publish_aggregate<T, Op, KIND>(slots, tile[1], gen, agg_1, init);
      const T p = finish_lookback<T, Op, KIND, P>(slots, tile[0], gen, agg_0, init);
      if (threadIdx.x == 0) s_prefix = p;
      agg_0 = agg_1;
    };
    T part_1 = Op::identity();
    if (has_1) {
      part_1 = bscan::exclusive_then(reduce_landed(tile[1], stage(s0 + 1)), op, warp0);
    } else {
      // No reduce (and no barrier in it) this step: warp 0 must not overwrite
      // s_prefix before every warp has read it for the previous step's T0.
      __syncthreads();
      if (threadIdx.x < 32) warp0(Op::identity());
      __syncthreads();
    }
    // (4) Scan and store T0 from its stage.
    T items[P::items_per_thread];
    T* here = stage(s0);
    // A partial tile's stage holds accumulators (load_partial), a full one's the input.
    const bool full_0 = is_full(tile[0]);
    if (same_type<In, T>::value || full_0)
      io::read_staged(items, here);
    else
      io::load_partial(in, start_of(tile[0]), n, items, here, Op::identity());
    // A full tile's store stages its output where other threads' input items were read:
    // at another width their rows cross (block-uniform, so every thread syncs or none). A
    // partial tile's store stages accumulators where it loaded them, thread by thread.
    if (sizeof(In) != sizeof(Out) && full_0) __syncthreads();
    ts::apply_store(out, n, start_of(tile[0]), is_full(tile[0]), (flags & FLAG_OUT_VECTORS) != 0,
                    items, op(s_prefix, part_0), here);
    if (!has_1) break;
    part_0 = part_1;
#pragma unroll
    for (unsigned k = 0; k + 1 < S; ++k)
      tile[k] = tile[k + 1];
    tile[S - 1] = s_next[step & 1u];
    s0 = (s0 + 1u) % S;
  }
}

// gcd(N, G) for a power of two G: the rotation that spreads a warp's strided accesses of
// B-byte vectors over the 128 / B bank groups one shared-memory wavefront serves.
template <int N, int G>
struct gcd_pow2 {
  static const int value = N % G == 0 ? G : gcd_pow2<N, G / 2>::value;
};
template <int N>
struct gcd_pow2<N, 1> {
  static const int value = 1;
};

// The loop of bulk_kernel's reducer and look-back warps: take each of the S
// stages from `from` in order, run `work(stage, tile)` (lane 0 leaves what the next
// role reads), and hand the stage on to `to` once every lane is done with it; the
// end marker (a tile past the end) is handed on too.
template <int S, class Work>
__device__ __forceinline__ void relay_stages(unsigned long long* from, unsigned long long* to,
                                             const unsigned* s_tile, unsigned long long tiles,
                                             Work work) {
  for (unsigned k = 0;; ++k) {
    const int s = int(k % S);
    mbar_wait(&from[s], (k / S) & 1u);
    const unsigned t = s_tile[s];
    if (t < tiles) work(s, t);
    __syncwarp();
    if (lane_id() == 0) mbar_arrive(&to[s]);
    if (t >= tiles) return;
  }
}

// An early stage release (P::early_release) passes each tile's prefix from the
// look-back warp to the consumers through a ring of 2S mbarriers and values, since the
// stage that held it may already carry a later tile: a consumer waits for tile k's prefix
// after releasing tile k, so the look-back warp runs at most S tiles ahead of it, never
// 2S (tile k + S + 1 lands only once that consumer has released tile k + 1).
// The kernel declares the ring's two shared arrays (2S each).
template <int S, class T>
struct prefix_ring {
  unsigned long long* ready;
  T* prefix;
  // By the whole block, after init_stage_barriers.
  __device__ __forceinline__ void init() {
    if (threadIdx.x == 0) {
      for (int i = 0; i < 2 * S; ++i)
        mbar_init(&ready[i], 1);
      mbar_init_fence();
    }
    __syncthreads();
  }
  // The look-back warp's loop: for each stage in turn, once reduced, `read(s)` takes what
  // the look-back needs from the stage's shared state, the stage goes back to the producer
  // (this warp's arrival on `empty`), and `resolve(t, what)` gives tile t's prefix.
  template <class Read, class Resolve>
  __device__ __forceinline__ void serve(unsigned long long* reduced, unsigned long long* empty,
                                        const unsigned* s_tile, unsigned long long tiles, Read read,
                                        Resolve resolve) {
    for (unsigned k = 0;; ++k) {
      const int s = int(k % S), r2 = int(k % (2 * S));
      mbar_wait(&reduced[s], (k / S) & 1u);
      const unsigned t = s_tile[s];
      const auto what = read(s);
      __syncwarp();
      if (lane_id() == 0) mbar_arrive(&empty[s]);
      if (t >= tiles) return;
      const T p = resolve(t, what);
      if (lane_id() == 0) prefix[r2] = p;
      __syncwarp();
      if (lane_id() == 0) mbar_arrive(&ready[r2]);
    }
  }
  // A consumer warp of tile k (stage s, r2 = k % 2S): hands the stage back and takes the
  // tile's prefix.
  __device__ __forceinline__ T take(unsigned long long* empty, int s, int r2, unsigned k) {
    __syncwarp();
    if (lane_id() == 0) mbar_arrive(&empty[s]);
    mbar_wait(&ready[r2], (k / (2 * S)) & 1u);
    return prefix[r2];
  }
};

// The look-back warp's prefix of each tile of bulk_kernel, whose tickets give G =
// P::tiles_per_ticket consecutive tiles: the first of a ticket looks back; the others
// follow the block's previous tile, whose inclusive prefix this warp made (`carry`), and
// publish their own without a round trip through L2.
template <class T, class Op, int KIND, class P>
struct ticket_prefix {
  T carry;
  __device__ __forceinline__ T operator()(unsigned long long* slots, unsigned t, unsigned gen,
                                          T aggregate, T init) {
    Op op;
    const int G = P::tiles_per_ticket;
    T prefix;
    if (G > 1 && t % G != 0) {
      prefix = carry;
      if (lane_id() == 0) publish_inclusive(slots, t, gen, prefix, aggregate, op);
    } else {
      prefix = finish_lookback<T, Op, KIND, P>(slots, t, gen, aggregate, init);
    }
    if (G > 1) carry = op(prefix, aggregate);
    return prefix;
  }
};

// What a bulk grid derives from its launch: the tile status slots, the tile count and
// the final ticket (each block draws one ticket past the end). A ticket stands for
// `per_ticket` consecutive tiles (P::tiles_per_ticket).
struct bulk_span {
  unsigned long long* slots;
  unsigned long long tiles;
  unsigned last;
  __device__ __forceinline__ bulk_span(unsigned long long* ws, unsigned long long n, unsigned shift,
                                       long long tile, unsigned per_ticket = 1)
      : slots(ws + STATUS_OFFSET_WORDS), tiles((n + shift + tile - 1) / tile),
        last(unsigned((tiles + per_ticket - 1) / per_ticket) + gridDim.x - 1) {}
};

// The bulk kernels' stage barriers (full -> reduced -> ready -> empty), by the whole
// block: every producer lane arrives on `full`, the reducer and the look-back warp once,
// each consumer warp once on `empty`.
template <int S>
__device__ __forceinline__ void
init_stage_barriers(unsigned long long* full, unsigned long long* reduced,
                    unsigned long long* ready, unsigned long long* empty, int consumers) {
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      mbar_init(&full[s], 32);
      mbar_init(&reduced[s], 1);
      mbar_init(&ready[s], 1);
      mbar_init(&empty[s], unsigned(consumers));
    }
    mbar_init_fence();
  }
  __syncthreads();
}

// The producer warp of bulk_kernel and segmented_bulk_kernel: for each stage in turn,
// once it is free, takes a tile into s_tile (the first ticket also sets the launch's
// generation s_gen) and has fill(s, t) load tile t into it and complete full[s] (32
// arrivals; lane 0's announces the bulk copies' bytes). A ticket gives G consecutive
// tiles; a block that runs out of tiles within its ticket still draws its ticket past
// the end (bulk_span::last). Past the last tile every lane arrives with the end marker
// instead, on `also` too where a kernel stages in two parts.
template <int S, class Fill, int G = 1>
__device__ __forceinline__ void
produce_stages(unsigned long long* ws, unsigned long long* full, unsigned long long* empty,
               unsigned* s_tile, unsigned& s_gen, unsigned long long tiles, unsigned last,
               Fill fill, unsigned long long* also = nullptr) {
  unsigned first = 0; // lane 0's: the current ticket's first tile
  for (unsigned k = 0;; ++k) {
    const int s = int(k % S);
    if (k >= unsigned(S)) mbar_wait(&empty[s], (k / S - 1) & 1u);
    unsigned t = 0;
    if (lane_id() == 0) {
      if (k % G == 0) {
        const unsigned gen = take_ticket(ws, t, last);
        if (k == 0) s_gen = gen; // read by the other roles after this stage's barrier
        first = t * G;
      }
      t = first + k % G;
      if (G > 1 && t >= tiles && k % G != 0) take_ticket(ws, first, last); // the final one
      s_tile[s] = t;
    }
    t = __shfl_sync(FULL_WARP, t, 0);
    if (t >= tiles) { // tells the other roles to stop
      mbar_arrive(&full[s]);
      if (also) mbar_arrive(&also[s]);
      return;
    }
    fill(s, t);
  }
}

// A consumer warp's end of its segment of stage s in the bulk kernels. With `bulk` it
// stores the segment staged at `from` to `to` in one bulk copy; without, its lanes have
// stored it. Where the stage holds the output (`hand_back`), the stage of the warp's
// previous bulk store (`pending`) goes back to the producer once that store has read
// it, so stores overlap; a stage stored by the lanes goes back at once.
template <class Out>
__device__ __forceinline__ void bulk_finish_segment(bool bulk, bool hand_back,
                                                    unsigned long long* empty, int s, int& pending,
                                                    Out* to, const Out* from, unsigned bytes) {
  const bool leader = lane_id() == 0;
  if (bulk) {
    fence_shared_to_async();
    __syncwarp();
    if (leader) {
      bulk_store(to, from, bytes);
      bulk_commit();
      if (hand_back && pending >= 0) {
        bulk_wait_read<1>();
        mbar_arrive(&empty[pending]);
      }
    }
    if (hand_back) pending = s;
  } else if (hand_back) {
    __syncwarp();
    if (leader) {
      if (pending >= 0) {
        bulk_wait_read<0>();
        mbar_arrive(&empty[pending]);
      }
      mbar_arrive(&empty[s]);
    }
    pending = -1;
  }
}

// Warp-specialized look-back fed by bulk copies (sm_90 and up). A grid of
// resident blocks takes tiles by ticket; each block cycles S = P::stages tile
// stages in dynamic shared memory through four roles, handing each stage on with
// an mbarrier (full -> reduced -> ready -> empty):
//   producer warp:   takes a ticket, bulk-loads the tile into a free stage (a
//                    partial tile: guarded loads, padded with the identity);
//   reducer warp:    once it lands, reduces each consumer's segment in order and
//                    publishes the tile's aggregate;
//   look-back warp:  resolves the tile's prefix and publishes its inclusive one;
//   P::block_threads / 32 consumer warps: each scans its own 32 * IPT segment in
//                    the stage from the prefix it is handed (no block barrier) and
//                    bulk-stores it (guarded stores for a partial tile or an
//                    output misaligned against the input).
// An aggregate goes out as soon as its tile lands, never behind another tile's
// look-back, and the consumers only apply known prefixes. A segment is laid out
// as IPT / VEC rows of 32 vectors: with the xpose tile I/O lane l holds vector l of
// each row (reads without bank conflicts, a row one warp scan); with direct, a run of
// consecutive vectors read rotated (run_q), the segment one warp scan.
// Tickets are taken in order and every stage drains in the order it was filled,
// so the lowest unfinished tile is always at the head of its block's ring.
// Minimum one block per SM in the launch bounds: shared memory, not registers, bounds
// this kernel's occupancy, and without it NVRTC's ptxas capped some shapes at 80
// registers and spilled (which the tuner rejects).
// Converting scans (In, Out other than T) stage the input as it is in memory and
// convert where the reducer and the consumers read it: a byte input moves a quarter of
// the shared memory and copy work its int32 accumulators would. A partial tile's stage
// then holds no identity padding (the identity of T may have no In value): the readers
// mask elements past the input. An output no wider than the input is staged over the
// input it replaces; a wider one in two buffers per consumer warp (S tiles of In, then
// 2 x CONSUMERS segments of Out: Policy::dynamic_shared_bytes), so the stage goes back
// as soon as it is read.
template <class T, class Op, int KIND, class P, class In = T, class Out = T>
__global__ void __launch_bounds__(P::block_threads + 96, P::min_blocks > 1 ? P::min_blocks : 1)
    bulk_kernel(SCANTUNE_IO_KERNEL_PARAMS) {
  await_previous_grid();
  init = start_value<T, Op, KIND>(init, start, flags);
  static_assert(P::algorithm == ALG_LOOKBACK_BULK, "bulk_kernel runs lookback_bulk");
  const int S = P::stages, CONSUMERS = P::block_threads / 32, VEC = P::vector_width;
  const int ROWS = P::items_per_thread / VEC, SEG = 32 * P::items_per_thread;
  const long long TILE = P::tile_items;
  typedef typename raw_vector<VEC * sizeof(In)>::type V;
  typedef typename raw_vector<VEC * sizeof(Out)>::type VO;
  const bool PAD = same_type<In, T>::value;      // partial tiles padded with the identity
  const bool OWN_OUT = sizeof(Out) > sizeof(In); // consumers stage output in own buffers
  extern __shared__ __align__(128) unsigned char dynamic_smem[]; // S tiles (host-sized)
  __shared__ __align__(8) unsigned long long full[S], reduced[S], ready[S], empty[S];
  __shared__ unsigned s_tile[S], s_gen;
  __shared__ T s_seg[S][CONSUMERS], s_agg[S], s_prefix[S];
  Op op;
  const bulk_span span(ws, n, shift, TILE, P::tiles_per_ticket);
  const int warp = int(threadIdx.x >> 5), lane = int(lane_id());
  auto stage = [&](int s) { return reinterpret_cast<In*>(dynamic_smem) + s * TILE; };
  auto start_of = [&](unsigned t) { return (long long)t * TILE - (long long)shift; };
  auto is_full = [&](unsigned t) {
    return start_of(t) >= 0 && (unsigned long long)(start_of(t) + TILE) <= n;
  };
  // Reversed (P::reverse), a stage holds its tile in memory order (tile_io.cuh): the
  // virtual segment c is the mirror of segment seg_of(c), vector q of a segment the
  // mirror of vector NV - 1 - q, its elements reversed.
  const bool REV = P::reverse != 0;
  const int NV = 32 * ROWS;
  auto at_of = [&](unsigned t) { return tile_io<T, P>::tile_offset(start_of(t), n); };
  auto seg_of = [&](int c) { return REV ? CONSUMERS - 1 - c : c; };
  // Vector q of a segment whose first element is at `at` in memory, converted; `mask`
  // (a partial tile without padding) puts the identity where the input has no element.
  auto raw_at = [&](const V* seg, int q) { return seg[REV ? NV - 1 - q : q]; };
  auto elements = [&](const V& w, int q, T(&x)[VEC], bool mask, long long at) {
    const int qm = REV ? NV - 1 - q : q;
    const In* raw = reinterpret_cast<const In*>(&w);
    if (!mask) {
#pragma unroll
      for (int e = 0; e < VEC; ++e)
        x[e] = convert<T>(raw[REV ? VEC - 1 - e : e]);
      return;
    }
#pragma unroll
    for (int e = 0; e < VEC; ++e) {
      const int em = REV ? VEC - 1 - e : e;
      const long long g = at + qm * VEC + em;
      x[e] = g >= 0 && (unsigned long long)g < n ? convert<T>(raw[em]) : Op::identity();
    }
  };
  // op over a vector's elements: a word at a time where the sum has a packed form
  // (packed_sum; a masked vector's elements past the input are not zero there).
  typedef packed_sum<T, Op, In> packed;
  // The reducer only: the consumers convert every element anyway, and their packed
  // folds made byte scans slower (H100, 2^28 int8: 0.230 ms reducer only, 0.319 both).
  const bool PACK_REDUCER = packed::lanes > 0 && sizeof(V) >= 4;
  auto fold_words = [&](const V& w) {
    const unsigned* words = reinterpret_cast<const unsigned*>(&w);
    T acc = T(0);
#pragma unroll
    for (int i = 0; i < int(sizeof(V) / 4); ++i)
      acc = packed::add(words[i], acc);
    return acc;
  };
  auto fold = [&](const T(&x)[VEC]) {
    T acc = x[0];
#pragma unroll
    for (int e = 1; e < VEC; ++e)
      acc = op(acc, x[e]);
    return acc;
  };
  // A lane's run of a segment: vectors lane * ROWS ... lane * ROWS + ROWS - 1, read
  // rotated by `rot` so that the 8 lanes of a 16-byte access phase hit 8 different bank
  // groups: run_q(j) for j = 0, 1, ... are positions rot, rot + 1, ..., then 0 .. rot - 1.
  const int GROUPS = 128 / (sizeof(V) < 4 ? 4 : int(sizeof(V)));
  const int rot = (lane / (GROUPS / gcd_pow2<ROWS, GROUPS>::value)) % ROWS;
  auto run_q = [&](int j) { return lane * ROWS + (j + rot < ROWS ? j + rot : j + rot - ROWS); };
  // P::early_release: each consumer warp reads its segment into registers once the tile
  // is reduced and hands the stage back before the tile's prefix comes, so the producer
  // refills it during the look-back; the warp then stores from registers. The look-back
  // warp hands the stage back too (it reads the stage's tile and aggregate); prefixes
  // pass through a prefix_ring.
  const bool EARLY = P::early_release != 0;
  static_assert(!EARLY || (P::tile_io != IO_DIRECT && ROWS * VEC <= 32 &&
                           sizeof(Out) == sizeof(In) && sizeof(Out) > 1),
                "early_release: xpose rows of at most 32 items, one width above a byte "
                "(Policy's early_release rule)");
  __shared__ __align__(8) unsigned long long ready2[EARLY ? 2 * S : 1];
  __shared__ T s_prefix2[EARLY ? 2 * S : 1];
  prefix_ring<EARLY ? S : 1, T> ring{ready2, s_prefix2};
  init_stage_barriers<S>(full, reduced, ready, empty, CONSUMERS + (EARLY ? 1 : 0));
  if (EARLY) ring.init();

  if (warp == CONSUMERS) { // producer
    auto fill = [&](int s, unsigned t) {
      if (is_full(t) && lane == 0) {
        mbar_arrive_expect_tx(&full[s], unsigned(TILE * sizeof(In)));
        bulk_load(stage(s), in + at_of(t), unsigned(TILE * sizeof(In)), &full[s]);
        return;
      }
      if (!is_full(t)) {
        In* to = stage(s);
        for (long long i = lane; i < TILE; i += 32) {
          const long long g = at_of(t) + i;
          const bool inside = g >= 0 && (unsigned long long)g < n;
          if (PAD)
            to[i] = inside ? in[g] : convert<In>(Op::identity());
          else if (inside)
            to[i] = in[g];
        }
        fence_shared_to_async(); // a later bulk load into this stage comes after these writes
      }
      mbar_arrive(&full[s]); // releases this lane's writes to the waiting roles
    };
    produce_stages<S, decltype(fill), P::tiles_per_ticket>(ws, full, empty, s_tile, s_gen,
                                                           span.tiles, span.last, fill);
    return;
  }

  if (warp == CONSUMERS + 1) { // reducer
    relay_stages<S>(full, reduced, s_tile, span.tiles, [&](int s, unsigned t) {
      // Lane l folds its run of each segment (run_q); the positions below `rot`
      // arrive last and are folded in front. A segment's rows are all loaded before they are
      // folded, and the head/tail split selects identities rather than branching: with the fold
      // interleaved with the loads, ptxas issued min/max reducers one 16-byte load at
      // a time (sum's reassociated adds hid this) and the reducer became the slowest
      // role, up to 8% behind sum (docs/decisions.md, bulk reducer). The segments'
      // warp reductions then run interleaved: one shuffle chain after another made
      // this warp the slowest role at 8 rows per segment.
      const bool mask = !PAD && !is_full(t);
      T part[CONSUMERS];
#pragma unroll
      for (int c = 0; c < CONSUMERS; ++c) {
        const V* seg = reinterpret_cast<const V*>(stage(s) + seg_of(c) * SEG);
        const long long at = at_of(t) + seg_of(c) * SEG;
        V w[ROWS]; // in the order read: positions rot, rot+1, ..., then 0 .. rot-1
#pragma unroll
        for (int j = 0; j < ROWS; ++j)
          w[j] = raw_at(seg, run_q(j));
        T acc[ROWS];
        if (PACK_REDUCER && !mask) {
#pragma unroll
          for (int j = 0; j < ROWS; ++j)
            acc[j] = fold_words(w[j]);
        } else {
#pragma unroll
          for (int j = 0; j < ROWS; ++j) {
            T x[VEC];
            elements(w[j], run_q(j), x, mask, at);
            acc[j] = fold(x);
          }
        }
        T head = Op::identity(), tail = Op::identity(); // positions < rot, >= rot
#pragma unroll
        for (int j = 0; j < ROWS; ++j) {
          const bool in_tail = j < ROWS - rot;
          tail = op(tail, in_tail ? acc[j] : Op::identity());
          head = op(head, in_tail ? Op::identity() : acc[j]);
        }
        part[c] = op(head, tail);
      }
      warp_reduce_ascending<CONSUMERS>(part, op);
      T run = Op::identity(); // lane 0's
      if (lane == 0) {
#pragma unroll
        for (int c = 0; c < CONSUMERS; ++c) {
          s_seg[s][c] = run;
          run = op(run, part[c]);
        }
      }
      publish_aggregate<T, Op, KIND>(span.slots, t, s_gen, run, init);
      if (lane == 0) s_agg[s] = run;
    });
    return;
  }

  ticket_prefix<T, Op, KIND, P> prefix_of{Op::identity()};
  if (EARLY && warp == CONSUMERS + 2) { // look-back, handing the stage back first
    ring.serve(
        reduced, empty, s_tile, span.tiles, [&](int s) { return s_agg[s]; },
        [&](unsigned t, T agg) { return prefix_of(span.slots, t, s_gen, agg, init); });
    return;
  }
  if (warp == CONSUMERS + 2) { // look-back
    relay_stages<S>(reduced, ready, s_tile, span.tiles, [&](int s, unsigned t) {
      const T prefix = prefix_of(span.slots, t, s_gen, s_agg[s], init);
      if (lane == 0) s_prefix[s] = prefix;
    });
    return;
  }

  // Consumers. A stage is handed back (empty) once this warp's bulk store from it
  // has read it: checked when the next store is issued, so stores overlap. With their
  // own output buffers, right after reading it (a buffer is rewritten once the store
  // issued from it two tiles before has read it).
  const bool out_vectors = (flags & FLAG_OUT_VECTORS) != 0;
  Out* own = reinterpret_cast<Out*>(dynamic_smem + S * TILE * sizeof(In)) + warp * 2 * SEG;
  int pending = -1;    // stage of this warp's last bulk store not yet handed back
  unsigned buffer = 0; // own buffer of the next bulk store: they alternate
  // Stores the staged segment of tile t in one bulk copy (bulk_finish_segment).
  auto finish_bulk = [&](int s, unsigned t, Out* staged) {
    bulk_finish_segment(true, !OWN_OUT, empty, s, pending, out + at_of(t) + seg_of(warp) * SEG,
                        staged, unsigned(SEG * sizeof(Out)));
    buffer ^= 1u;
  };
  // The direct tile I/O: each lane scans its run of a segment (run_q), one warp scan a
  // segment; otherwise lane l takes vector l of each row, one warp scan a row.
  const bool LANE_RUNS = P::tile_io == IO_DIRECT;
  auto q_at = [&](int r) { return LANE_RUNS ? run_q(r) : r * 32 + lane; };
  // Byte sums into bytes, full tiles (rows only): the segment scanned a word (4 elements)
  // at a time without unpacking it (byte_prefix); lane totals and carries stay in T.
  const bool BYTES = packed::lanes == 4 && sizeof(Out) == 1 && !REV && VEC % 4 == 0 && !LANE_RUNS;
  auto scan_bytes = [&](const V* vseg, VO* staged, T carry) {
    const int W = VEC / 4;
    byte_prefix p[ROWS][W > 0 ? W : 1];
    T lane_incl[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const V v = vseg[r * 32 + lane];
      const unsigned* words = reinterpret_cast<const unsigned*>(&v);
      T sum = T(0);
#pragma unroll
      for (int j = 0; j < W; ++j) {
        p[r][j] = byte_prefix(words[j]);
        sum = op(sum, T(p[r][j].total()));
      }
      lane_incl[r] = warp_inclusive_scan(sum, op);
    }
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      T running = warp_row_start(lane_incl[r], carry, op);
      VO w;
      unsigned* o = reinterpret_cast<unsigned*>(&w);
#pragma unroll
      for (int j = 0; j < W; ++j) {
        o[j] = p[r][j].bytes(unsigned(running), KIND == KIND_EXCLUSIVE);
        running = op(running, T(p[r][j].total()));
      }
      staged[r * 32 + lane] = w;
    }
  };
  if (EARLY) {
    for (unsigned k = 0;; ++k) {
      const int s = int(k % S), r2 = int(k % (2 * S));
      mbar_wait(&reduced[s], (k / S) & 1u);
      const unsigned t = s_tile[s];
      if (t >= span.tiles) break;
      T carry = s_seg[s][warp];
      const V* vseg = reinterpret_cast<const V*>(stage(s) + seg_of(warp) * SEG);
      const bool mask = !PAD && !is_full(t);
      const long long at = at_of(t) + seg_of(warp) * SEG;
      T x[ROWS][VEC], lane_incl[ROWS];
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        elements(raw_at(vseg, r * 32 + lane), r * 32 + lane, x[r], mask, at);
        lane_incl[r] = warp_inclusive_scan(fold(x[r]), op);
      }
      carry = op(ring.take(empty, s, r2, k), carry);
      const bool vec_out = out_vectors && is_full(t);
      const long long g_seg = start_of(t) + warp * SEG;
      VO* vout = reinterpret_cast<VO*>(out + at);
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        const int q = r * 32 + lane;
        thread_scan_from<KIND>(x[r], warp_row_start(lane_incl[r], carry, op), op);
        if (vec_out) {
          VO w;
          Out* o = reinterpret_cast<Out*>(&w);
#pragma unroll
          for (int e = 0; e < VEC; ++e)
            o[REV ? VEC - 1 - e : e] = convert<Out>(x[r][e]);
          vout[REV ? NV - 1 - q : q] = w;
        } else {
#pragma unroll
          for (int e = 0; e < VEC; ++e) {
            const long long g = g_seg + q * VEC + e;
            if (g >= 0 && (unsigned long long)g < n)
              out[REV ? (long long)n - 1 - g : g] = convert<Out>(x[r][e]);
          }
        }
      }
    }
    return;
  }
  for (unsigned k = 0;; ++k) {
    const int s = int(k % S);
    mbar_wait(&ready[s], (k / S) & 1u);
    const unsigned t = s_tile[s];
    if (t >= span.tiles) break;
    T carry = op(s_prefix[s], s_seg[s][warp]);
    In* seg = stage(s) + seg_of(warp) * SEG;
    const V* vseg = reinterpret_cast<const V*>(seg);
    const long long g_seg = start_of(t) + warp * SEG;
    const bool bulk = out_vectors && is_full(t);
    Out* staged = OWN_OUT ? own + buffer * SEG : reinterpret_cast<Out*>(seg);
    if constexpr (BYTES) {
      if (bulk) { // each lane writes back the vectors it read: no barrier
        scan_bytes(vseg, reinterpret_cast<VO*>(staged), carry);
        finish_bulk(s, t, staged);
        continue;
      }
    }
    // Over 32 items a thread (byte tiles of 16 KB), a lane reads its elements again for
    // the second pass instead of holding them all: the output replaces only the lane's
    // own vectors.
    const bool RELOAD = ROWS * VEC > 32 && sizeof(Out) == sizeof(In);
    const bool mask = !PAD && !is_full(t);
    const long long at = at_of(t) + seg_of(warp) * SEG;
    T x[RELOAD ? 1 : ROWS][VEC], lane_incl[ROWS];
    // LANE_RUNS reads positions rot .. ROWS - 1 of its run (the tail) before 0 .. rot - 1
    // (the head): `run` folds the tail, then the head, and `tail` keeps the tail's total.
    T run = Op::identity(), tail = Op::identity();
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      elements(raw_at(vseg, q_at(r)), q_at(r), x[RELOAD ? 0 : r], mask, at);
      const T f = fold(x[RELOAD ? 0 : r]);
      if (!LANE_RUNS) {
        lane_incl[r] = warp_inclusive_scan(f, op);
      } else if (r == 0) {
        run = f;
      } else {
        const bool head_starts = r == ROWS - rot;
        tail = head_starts ? run : tail;
        run = head_starts ? f : op(run, f);
      }
    }
    T start = Op::identity(); // LANE_RUNS: the scan before the lane's run
    if (LANE_RUNS) {
      const T total = rot == 0 ? run : op(run, tail);
      start = warp_row_start(warp_inclusive_scan(total, op), carry, op);
      run = rot == 0 ? start : op(start, run); // the tail's scan starts past the head
    }
    if (OWN_OUT) {
      __syncwarp(); // every lane has read the stage
      if (lane == 0) {
        mbar_arrive(&empty[s]);
        if (bulk) bulk_wait_read<1>(); // the store before the last, from this buffer
      }
      __syncwarp();
    } else if (sizeof(Out) != sizeof(In)) {
      __syncwarp(); // narrower output over input other lanes read
    }
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      T(&xr)[VEC] = x[RELOAD ? 0 : r];
      if (RELOAD) elements(raw_at(vseg, q_at(r)), q_at(r), xr, mask, at);
      if (LANE_RUNS)
        run = thread_scan_from<KIND>(xr, r == ROWS - rot ? start : run, op);
      else
        thread_scan_from<KIND>(xr, warp_row_start(lane_incl[r], carry, op), op);
      if (bulk) {
        VO w;
        Out* o = reinterpret_cast<Out*>(&w);
#pragma unroll
        for (int e = 0; e < VEC; ++e)
          o[REV ? VEC - 1 - e : e] = convert<Out>(xr[e]);
        reinterpret_cast<VO*>(staged)[REV ? NV - 1 - q_at(r) : q_at(r)] = w;
      } else {
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
          const long long g = g_seg + q_at(r) * VEC + e;
          if (g >= 0 && (unsigned long long)g < n)
            out[REV ? (long long)n - 1 - g : g] = convert<Out>(xr[e]);
        }
      }
    }
    if (bulk)
      finish_bulk(s, t, staged);
    else
      bulk_finish_segment(false, !OWN_OUT, empty, s, pending, out, staged, 0u);
  }
  if (lane == 0) bulk_wait_all(); // the stores must finish reading before the block exits
}

// Reduce-then-scan, pass 1: each block reduces its tile into partials[tile].
template <class T, class Op, int KIND, class P, class In = T, class Out = T>
__global__ void __launch_bounds__(P::block_threads, P::min_blocks)
    rts_reduce_kernel(SCANTUNE_IO_KERNEL_PARAMS) {
  await_previous_grid();
  T* partials = reinterpret_cast<T*>(ws + STATUS_OFFSET_WORDS);
  const T aggregate =
      tile_scan<T, Op, KIND, P, In, Out>::reduce(in, n, shift, blockIdx.x, tile_smem<T, P>::get());
  if (threadIdx.x == 0) partials[blockIdx.x] = aggregate;
}

// Pass 2: one block turns the partials into exclusive tile prefixes, in place.
template <class T, class Op, int KIND, class P, class In = T, class Out = T>
__global__ void __launch_bounds__(P::block_threads, P::min_blocks)
    rts_partials_kernel(SCANTUNE_IO_KERNEL_PARAMS) {
  await_previous_grid();
  init = start_value<T, Op, KIND>(init, start, flags);
  Op op;
  T* partials = reinterpret_cast<T*>(ws + STATUS_OFFSET_WORDS);
  T* smem = tile_smem<T, P>::get();
  const unsigned long long tiles = (n + shift + P::tile_items - 1) / P::tile_items;
  const unsigned long long chunks = (tiles + P::tile_items - 1) / P::tile_items;
  T carry = init;
  for (unsigned long long c = 0; c < chunks; ++c) {
    tile_scan<T, Op, KIND_EXCLUSIVE, P>::run(partials, partials, tiles, 0u, true, c, smem,
                                             [&](T aggregate) {
                                               const T prefix = carry;
                                               carry = op(carry, aggregate);
                                               return prefix;
                                             });
    __syncthreads();
  }
}

// Pass 3: each block scans its tile from its prefix.
template <class T, class Op, int KIND, class P, class In = T, class Out = T>
__global__ void __launch_bounds__(P::block_threads, P::min_blocks)
    rts_downsweep_kernel(SCANTUNE_IO_KERNEL_PARAMS) {
  await_previous_grid();
  const T* partials = reinterpret_cast<const T*>(ws + STATUS_OFFSET_WORDS);
  const T prefix = partials[blockIdx.x];
  tile_scan<T, Op, KIND, P, In, Out>::run(in, out, n, shift, (flags & FLAG_OUT_VECTORS) != 0,
                                          blockIdx.x, tile_smem<T, P>::get(),
                                          [&](T) { return prefix; });
}

// Reduction into out[0] (Scanner::reduce; KIND is unused). The vector-aligned body is
// cut into one contiguous run of vectors per block, and that into one per warp; a warp
// folds its run in steps of 32 x U coalesced vectors (each vector's 32 lanes combined in
// lane order), the block its warps' results in warp order into partials[block] (after the
// partials workspace's header, as reduce-then-scan's). The last block to finish folds the
// unaligned head, the partials in block order and the tail: a fixed combination order,
// so the result's bits do not depend on scheduling. It also resets the counter (header
// word 1) for the stream's next reduction. n == 0 writes the identity.
template <class T, class Op, class P>
__device__ __forceinline__ T reduce_run(const T* in, unsigned long long first,
                                        unsigned long long end, Op op) {
  typedef tile_io<T, P> io;
  const int VEC = P::vector_width, U = P::items_per_thread / P::vector_width;
  const typename io::V* body = reinterpret_cast<const typename io::V*>(in);
  const unsigned lane = lane_id();
  T acc = Op::identity();
  for (unsigned long long s = first; s < end; s += 32 * U) {
    typename io::V v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) // every load in flight before the first combine
      if (s + u * 32 + lane < end) v[u] = io::load_global(body + s + u * 32 + lane);
    T x[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const T* e = reinterpret_cast<const T*>(&v[u]);
      x[u] = Op::identity();
      if (s + u * 32 + lane < end) {
        x[u] = e[0];
#pragma unroll
        for (int k = 1; k < VEC; ++k)
          x[u] = op(x[u], e[k]);
      }
    }
    warp_reduce_ascending<U>(x, op);
#pragma unroll
    for (int u = 0; u < U; ++u)
      acc = op(acc, x[u]); // lane 0's is the run's
  }
  return acc;
}

// Lane order within each warp, then warp order: thread 0 gets the block's fold of x.
template <class T, class Op, int TPB>
__device__ __forceinline__ T block_reduce_ascending(T x, Op op) {
  __shared__ T s_warp[TPB / 32];
  x = warp_reduce_ascending(x, op);
  if (lane_id() == 0) s_warp[threadIdx.x >> 5] = x;
  __syncthreads();
  T total = Op::identity();
  if (threadIdx.x == 0)
    for (int w = 0; w < TPB / 32; ++w)
      total = op(total, s_warp[w]);
  return total;
}

template <class T, class Op, int KIND, class P>
__global__ void __launch_bounds__(P::block_threads, P::min_blocks)
    reduce_kernel(SCANTUNE_KERNEL_PARAMS) {
  await_previous_grid();
  const int VEC = P::vector_width, TPB = P::block_threads, WARPS = TPB / 32;
  Op op;
  T* partials = reinterpret_cast<T*>(ws + STATUS_OFFSET_WORDS);
  unsigned long long* done = ws + 1;
  const unsigned long long head = min(n, (unsigned long long)((VEC - shift) % VEC));
  const unsigned long long vecs = (n - head) / VEC;
  const unsigned long long per_block = (vecs + gridDim.x - 1) / gridDim.x;
  const unsigned long long b0 = min(vecs, blockIdx.x * per_block);
  const unsigned long long b1 = min(vecs, b0 + per_block);
  const unsigned long long per_warp = (b1 - b0 + WARPS - 1) / WARPS, w = threadIdx.x >> 5;
  const unsigned long long w0 = min(b1, b0 + w * per_warp), w1 = min(b1, w0 + per_warp);
  const T mine = reduce_run<T, Op, P>(in + head, w0, w1, op);
  // Lane 0 of each warp holds its run's fold; the others' join as the identity.
  const T block = block_reduce_ascending<T, Op, TPB>(lane_id() == 0 ? mine : Op::identity(), op);
  __shared__ bool s_last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block;
    __threadfence(); // the partial is visible before the count says so
    s_last = atomicAdd(done, 1ull) == gridDim.x - 1;
  }
  __syncthreads();
  if (!s_last) return;
  __threadfence();
  // Thread t folds a contiguous run of the partials; the runs meet in thread order.
  const unsigned long long per_thread = (gridDim.x + TPB - 1) / TPB;
  T run = Op::identity();
  for (unsigned long long i = threadIdx.x * per_thread;
       i < min((unsigned long long)gridDim.x, (threadIdx.x + 1) * per_thread); ++i)
    run = op(run, *(volatile T*)&partials[i]);
  __syncthreads(); // s_warp is reused
  const T total = block_reduce_ascending<T, Op, TPB>(run, op);
  if (threadIdx.x != 0) return;
  T first = Op::identity(), last = Op::identity();
  for (unsigned long long i = 0; i < head; ++i)
    first = op(first, in[i]);
  for (unsigned long long i = head + vecs * VEC; i < n; ++i)
    last = op(last, in[i]);
  out[0] = op(op(first, total), last);
  *done = 0;
}

// A segmented tile's status (see segmented_scan.cuh): a tile holding a head publishes
// its carry as inclusive at once, any other its aggregate. Lane 0 publishes.
template <class T>
__device__ __forceinline__ void segmented_publish(unsigned long long* slots, unsigned tile,
                                                  unsigned gen, T aggregate, bool has_head) {
  if (lane_id() == 0) tile_status<T>::publish(slots, tile, make_flag(gen, has_head), aggregate);
}

// After segmented_publish, by a whole warp: the tile's carry-in, from a look-back only
// where elements come before its first head (identity where none is needed); a tile
// without a head then publishes its inclusive carry.
template <class T, class Op, class P>
__device__ __forceinline__ T segmented_lookback(unsigned long long* slots, unsigned tile,
                                                unsigned gen, T aggregate, bool has_head,
                                                bool first_is_head) {
  Op op;
  if (first_is_head || tile == 0) return Op::identity();
  const T prefix =
      lookback_warp<T, Op, P::backoff_ns, P::lookback_span, P::reproducible>(slots, tile, gen, op);
  if (!has_head && lane_id() == 0) publish_inclusive(slots, tile, gen, prefix, aggregate, op);
  return prefix;
}

// Warp 0's part of a segmented tile: both of the above. Returns the tile's carry-in.
template <class T, class Op, class P>
__device__ __forceinline__ T segmented_prefix(unsigned long long* ws, unsigned tile, unsigned& gen,
                                              bool settle, unsigned long long drawn, T aggregate,
                                              bool has_head, bool first_is_head) {
  if (settle) {
    if (threadIdx.x == 0) gen = settle_ticket(ws, drawn, gridDim.x - 1);
    gen = __shfl_sync(FULL_WARP, gen, 0);
  }
  unsigned long long* slots = ws + STATUS_OFFSET_WORDS;
  segmented_publish(slots, tile, gen, aggregate, has_head);
  return segmented_lookback<T, Op, P>(slots, tile, gen, aggregate, has_head, first_is_head);
}

// Segmented scan, one tile per block, warp look-back (lookback_warp's policies).
// Tiles by blockIdx or by ticket exactly as single_pass_kernel.
template <class T, class Op, int KIND, class P, int HEADS>
__global__ void __launch_bounds__(P::block_threads, P::min_blocks)
    segmented_kernel(SCANTUNE_KERNEL_PARAMS, segment_args seg) {
  await_previous_grid();
  init = start_value<T, Op, KIND>(init, start, flags);
  static_assert(P::algorithm == ALG_LOOKBACK_WARP && P::block_scan == BS_WARP_SCANS,
                "segmented_kernel runs lookback_warp with warp_scans");
  const bool by_block = (flags & FLAG_TILES_BY_BLOCK) != 0;
  __shared__ unsigned s_ticket, s_gen;
  const unsigned long long drawn = draw_ticket(ws, by_block, s_ticket, s_gen);
  const unsigned tile = by_block ? blockIdx.x : s_ticket;
  segmented_tile_scan<T, Op, KIND, P, HEADS>::run(
      in, out, n, shift, (flags & FLAG_OUT_VECTORS) != 0, tile, tile_smem<T, P>::get(), seg, init,
      [&](T aggregate, bool has_head, bool first_is_head) {
        unsigned gen = by_block ? 0u : s_gen;
        return segmented_prefix<T, Op, P>(ws, tile, gen, by_block, drawn, aggregate, has_head,
                                          first_is_head);
      });
}

// The producer warp's fill of one stage in segmented_bulk_kernel and select_bulk_kernel:
// tile [at, at + TILE)'s values and its heads (HEADS: staged_head) in, then every lane
// arrives on `full`. Whole tiles' values and 16-byte aligned flags or keys come by bulk
// copy; the lanes copy the rest (a partial tile's values padded with `pad`, heads 0
// outside the input). CSR offsets become head bits while the values load
// (stage_offset_bits; `cursor` is the warp's search start). Keys: the key before the
// tile goes to *before (staged_head::BEFORE).
template <int HEADS, long long TILE, class T, class W, class Src>
__device__ __forceinline__ void
stage_tile_and_heads(T* to, W* h, W* before, unsigned long long* full, const T* in,
                     const Src* source, const segment_args& seg, long long at, bool whole,
                     unsigned long long n, T pad, unsigned long long& cursor) {
  const bool OFFSETS = HEADS == HEADS_OFFSETS32 || HEADS == HEADS_OFFSETS64;
  const unsigned lane = lane_id();
  W key_before = W(0);
  if constexpr (staged_head<HEADS>::BEFORE) // issued first: its round trip overlaps the rest
    if (lane == 0 && at > 0) key_before = source[at - 1];
  const bool heads_bulk =
      !OFFSETS && whole && reinterpret_cast<unsigned long long>(source + at) % 16 == 0;
  if (!whole || (!OFFSETS && !heads_bulk)) {
    for (long long i = lane; i < TILE; i += 32) {
      const long long g = at + i;
      const bool inside = g >= 0 && (unsigned long long)g < n;
      if (!whole) to[i] = inside ? in[g] : pad;
      if constexpr (!OFFSETS)
        if (!heads_bulk) h[i] = inside ? source[g] : W(0);
    }
    fence_shared_to_async(); // a later bulk load into this stage comes after these writes
  }
  if (whole && lane == 0) {
    const unsigned head_bytes = heads_bulk ? unsigned(TILE * sizeof(W)) : 0u;
    mbar_expect_tx(full, unsigned(TILE * sizeof(T)) + head_bytes);
    bulk_load(to, in + at, unsigned(TILE * sizeof(T)), full);
    if (heads_bulk) bulk_load(h, source + at, head_bytes, full);
  }
  if constexpr (OFFSETS) // found while the values load
    stage_offset_bits(h, int(TILE / 32), source, seg.num_segments, at, TILE, n, cursor);
  if constexpr (staged_head<HEADS>::BEFORE)
    if (lane == 0) *before = key_before;
  mbar_arrive(full); // releases this lane's writes to the waiting roles
}

// Segmented scan over head flags, keys or CSR offsets on lookback_bulk's warp roles (see
// bulk_kernel). A stage holds a tile's values and, behind the S value stages, its head
// source (a flag byte or a key per element), both bulk-copied (a source whose tile does
// not start on 16 bytes, and partial tiles, by the producer's lanes); offsets become a
// head bit per element, set by the producer while the values load (stage_offset_bits:
// the one-tile-per-block kernel searched them in every block, 0.79x memcpy for random
// segments at 2^28). The reducer folds
// each segment's (head, value) pairs and publishes the tile (segmented_publish:
// inclusive at once where it holds a head); the look-back warp finds the carry where
// elements precede the tile's first head; each consumer pair-scans its rows from its
// carry-in and bulk-stores them. Why: on the one-tile-per-block kernel, segments longer
// than a tile waited on the look-back as flat lookback_warp scans do (random flags
// 0.82x memcpy at 2^28, flags in every tile 0.98x).
template <class T, class Op, int KIND, class P, int HEADS>
__global__ void __launch_bounds__(P::block_threads + 96, P::min_blocks > 1 ? P::min_blocks : 1)
    segmented_bulk_kernel(SCANTUNE_KERNEL_PARAMS, segment_args seg) {
  await_previous_grid();
  init = start_value<T, Op, KIND>(init, start, flags);
  static_assert(P::algorithm == ALG_LOOKBACK_BULK && P::reverse == 0 && HEADS != HEADS_PERIODIC,
                "segmented_bulk_kernel runs lookback_bulk over head flags, keys or offsets, "
                "forward");
  const bool OFFSETS = HEADS == HEADS_OFFSETS32 || HEADS == HEADS_OFFSETS64;
  const int S = P::stages, CONSUMERS = P::block_threads / 32, VEC = P::vector_width;
  const int ROWS = P::items_per_thread / VEC, SEG = 32 * P::items_per_thread;
  const long long TILE = P::tile_items;
  typedef typename raw_vector<VEC * sizeof(T)>::type V;
  typedef staged_head<HEADS> H;
  typedef typename H::type W; // a flag byte, a key, or 32 head bits
  typedef seg_pair<T, Op> pair;
  typedef pair_scan<T, Op> pscan;
  extern __shared__ __align__(128) unsigned char dynamic_smem[]; // S value stages, S head stages
  __shared__ __align__(8) unsigned long long full[S], reduced[S], ready[S], empty[S];
  __shared__ unsigned s_tile[S], s_gen, s_seg_head[S], s_state[S];
  __shared__ W s_before[S]; // keys: the key before the stage's tile
  __shared__ T s_seg[S][CONSUMERS], s_agg[S], s_prefix[S];
  Op op;
  const bulk_span span(ws, n, shift, TILE);
  const int warp = int(threadIdx.x >> 5), lane = int(lane_id());
  const typename H::source_type* source =
      static_cast<const typename H::source_type*>(HEADS == HEADS_FLAGS ? (const void*)seg.flags
                                                  : OFFSETS            ? seg.offsets
                                                                       : seg.keys);
  auto values = [&](int s) { return reinterpret_cast<T*>(dynamic_smem) + s * TILE; };
  auto heads_of = [&](int s) {
    return reinterpret_cast<W*>(dynamic_smem + S * TILE * sizeof(T)) +
           s * (TILE / H::ELEMENTS_PER_WORD);
  };
  auto start_of = [&](unsigned t) { return (long long)t * TILE - (long long)shift; };
  auto is_full = [&](unsigned t) {
    return start_of(t) >= 0 && (unsigned long long)(start_of(t) + TILE) <= n;
  };
  // Head bits of the VEC elements at offset p of tile t's stage (staged_head::bits).
  auto vec_heads = [&](int s, unsigned t, long long p) {
    return H::template bits<VEC>(heads_of(s), p, start_of(t), n, !is_full(t), &s_before[s]);
  };
  // A vector's pair; an exclusive scan's carry restarts at init (segmented_scan.cuh).
  auto fold_pair = [&](const T(&x)[VEC], unsigned bits) {
    pair acc = pair::identity();
#pragma unroll
    for (int e = 0; e < VEC; ++e) {
      if ((bits >> e) & 1u) {
        acc.v = KIND == KIND_EXCLUSIVE ? op(init, x[e]) : x[e];
        acc.h = 1u;
      } else {
        acc.v = op(acc.v, x[e]);
      }
    }
    return acc;
  };
  auto unpack = [&](const V& w, T(&x)[VEC]) {
#pragma unroll
    for (int e = 0; e < VEC; ++e)
      x[e] = reinterpret_cast<const T*>(&w)[e];
  };
  // P::early_release (bulk_kernel's): consumers take their rows and heads into registers
  // and scan them once the tile is reduced, hand the stage back, then wait for the prefix.
  const bool EARLY = P::early_release != 0;
  static_assert(!EARLY || ROWS * VEC <= 32, "early_release: at most 32 items a thread");
  __shared__ __align__(8) unsigned long long ready2[EARLY ? 2 * S : 1];
  __shared__ T s_prefix2[EARLY ? 2 * S : 1];
  prefix_ring<EARLY ? S : 1, T> ring{ready2, s_prefix2};
  init_stage_barriers<S>(full, reduced, ready, empty, CONSUMERS + (EARLY ? 1 : 0));
  if (EARLY) ring.init();

  if (warp == CONSUMERS) {         // producer
    unsigned long long cursor = 0; // CSR offsets: where the search for the next tile starts
    produce_stages<S>(ws, full, empty, s_tile, s_gen, span.tiles, span.last,
                      [&](int s, unsigned t) {
                        stage_tile_and_heads<HEADS, TILE>(values(s), heads_of(s), &s_before[s],
                                                          &full[s], in, source, seg, start_of(t),
                                                          is_full(t), n, Op::identity(), cursor);
                      });
    return;
  }

  if (warp == CONSUMERS + 1) { // reducer: rows read rotated as bulk_kernel's reducer does
    relay_stages<S>(full, reduced, s_tile, span.tiles, [&](int s, unsigned t) {
      const int GROUPS = 128 / (sizeof(V) < 4 ? 4 : int(sizeof(V)));
      const int rot = (lane / (GROUPS / gcd_pow2<ROWS, GROUPS>::value)) % ROWS;
      T pv[CONSUMERS];
      unsigned ph[CONSUMERS];
#pragma unroll
      for (int c = 0; c < CONSUMERS; ++c) {
        const V* vs = reinterpret_cast<const V*>(values(s) + c * SEG);
        auto q_of = [&](int j) {
          return lane * ROWS + (j + rot < ROWS ? j + rot : j + rot - ROWS);
        };
        V w[ROWS];
        unsigned hb[ROWS];
#pragma unroll
        for (int j = 0; j < ROWS; ++j) {
          w[j] = vs[q_of(j)];
          hb[j] = vec_heads(s, t, c * SEG + q_of(j) * VEC);
        }
        unsigned any = 0;
#pragma unroll
        for (int j = 0; j < ROWS; ++j)
          any |= hb[j];
        // A run without a head (most, where segments are longer than tiles) folds as
        // bulk_kernel's reducer does: no per-element selects.
        pair head = pair::identity(), tail = pair::identity(); // positions < rot, >= rot
#pragma unroll
        for (int j = 0; j < ROWS; ++j) {
          T x[VEC];
          unpack(w[j], x);
          pair a = pair::identity();
          if (any) {
            a = fold_pair(x, hb[j]);
          } else {
            a.v = x[0];
#pragma unroll
            for (int e = 1; e < VEC; ++e)
              a.v = op(a.v, x[e]);
          }
          const bool in_tail = j < ROWS - rot;
          tail = tail.then(in_tail ? a : pair::identity(), op);
          head = head.then(in_tail ? pair::identity() : a, op);
        }
        const pair part = head.then(tail, op);
        pv[c] = part.v;
        ph[c] = part.h;
      }
      pscan::template warp_reduce_ascending<CONSUMERS>(pv, ph, op);
      if (lane == 0) {
        pair run = pair::identity();
        unsigned seg_heads = 0;
#pragma unroll
        for (int c = 0; c < CONSUMERS; ++c) {
          s_seg[s][c] = run.v;
          seg_heads |= run.h << c;
          run = run.then(pair{pv[c], ph[c]}, op);
        }
        s_seg_head[s] = seg_heads;
        s_agg[s] = run.v;
        s_state[s] = (vec_heads(s, t, 0) & 1u) | (run.h ? 2u : 0u);
        segmented_publish(span.slots, t, s_gen, run.v, run.h != 0u);
      }
    });
    return;
  }

  if (warp == CONSUMERS + 2) { // look-back
    // s_state: bit 0, the tile's first element is a head; bit 1, any element is.
    auto resolve = [&](unsigned t, unsigned state, T agg) {
      return segmented_lookback<T, Op, P>(span.slots, t, s_gen, agg, (state & 2u) != 0,
                                          (state & 1u) != 0);
    };
    if (EARLY) {
      ring.serve(
          reduced, empty, s_tile, span.tiles,
          [&](int s) { // the aggregate and s_state, carried as a pair
            return seg_pair<T, Op>{s_agg[s], s_state[s]};
          },
          [&](unsigned t, const seg_pair<T, Op>& a) { return resolve(t, a.h, a.v); });
      return;
    }
    relay_stages<S>(reduced, ready, s_tile, span.tiles, [&](int s, unsigned t) {
      const T prefix = resolve(t, s_state[s], s_agg[s]);
      if (lane == 0) s_prefix[s] = prefix;
    });
    return;
  }

  // Consumers, each over its segment of the stage; stages handed back as in bulk_kernel
  // (early: before the prefix, the rows stored from registers).
  const bool out_vectors = (flags & FLAG_OUT_VECTORS) != 0;
  int pending = -1; // stage of this warp's last bulk store not yet handed back
  for (unsigned k = 0;; ++k) {
    const int s = int(k % S);
    mbar_wait(EARLY ? &reduced[s] : &ready[s], (k / S) & 1u);
    const unsigned t = s_tile[s];
    if (t >= span.tiles) break;
    const T before = s_seg[s][warp];
    const bool own_head = (s_seg_head[s] >> warp) & 1u;
    T carry = EARLY || own_head ? before : op(s_prefix[s], before);
    // EARLY: once the rows are scanned, the stage goes back and the prefix comes.
    auto take_prefix = [&]() {
      if (EARLY) {
        const T prefix = ring.take(empty, s, int(k % (2 * S)), k);
        if (!own_head) carry = op(prefix, before);
      }
    };
    T* vseg = values(s) + warp * SEG;
    const long long g_seg = start_of(t) + warp * SEG;
    const bool bulk = out_vectors && is_full(t);
    V* vout = EARLY ? reinterpret_cast<V*>(out + g_seg) : reinterpret_cast<V*>(vseg);
    T x[ROWS][VEC], incl_v[ROWS];
    unsigned hb[ROWS], incl_h[ROWS], any = 0;
    auto pair_scan_row = [&](int r, const T(&xr)[VEC], unsigned h) {
      pair a = fold_pair(xr, h);
      pscan::warp_inclusive(a.v, a.h, op);
      incl_v[r] = a.v;
      incl_h[r] = a.h;
    };
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      unpack(reinterpret_cast<const V*>(vseg)[r * 32 + lane], x[r]);
      hb[r] = vec_heads(s, t, warp * SEG + (r * 32 + lane) * VEC);
      any |= hb[r];
      if constexpr (OFFSETS) // scanned as they load (see below)
        pair_scan_row(r, x[r], hb[r]);
    }
    auto store_row = [&](int r) {
      if (bulk) {
        V w;
#pragma unroll
        for (int e = 0; e < VEC; ++e)
          reinterpret_cast<T*>(&w)[e] = x[r][e];
        vout[r * 32 + lane] = w;
      } else {
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
          const long long g = g_seg + (r * 32 + lane) * VEC + e;
          if (g >= 0 && (unsigned long long)g < n) out[g] = x[r][e];
        }
      }
    };
    if (!OFFSETS && !__any_sync(FULL_WARP, any)) {
      // No head in the segment (most, where segments are longer than a row): a flat scan
      // from the carry, without the pairs' selects and head shuffles (random flags at
      // 2^28: 0.93x -> 0.96x memcpy). Offsets lost with it (the table's random-offsets
      // shape 2750 -> 2620 GB/s at 2^28, in alternation with the build before): they
      // keep each row scanned as it loads.
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        T a = x[r][0];
#pragma unroll
        for (int e = 1; e < VEC; ++e)
          a = op(a, x[r][e]);
        incl_v[r] = warp_inclusive_scan(a, op);
      }
      take_prefix();
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        thread_scan_from<KIND>(x[r], warp_row_start(incl_v[r], carry, op), op);
        store_row(r);
      }
    } else {
#pragma unroll
      for (int r = 0; r < ROWS; ++r)
        if constexpr (!OFFSETS) pair_scan_row(r, x[r], hb[r]);
      take_prefix();
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        const T bv = shfl_up(incl_v[r], 1u);
        const unsigned bh = __shfl_up_sync(FULL_WARP, incl_h[r], 1);
        T running = lane == 0 ? carry : bh ? bv : op(carry, bv);
        const T lv = shfl_idx(incl_v[r], 31u);
        carry = __shfl_sync(FULL_WARP, incl_h[r], 31) ? lv : op(carry, lv);
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
          const T v = x[r][e];
          const bool head = (hb[r] >> e) & 1u;
          if (KIND == KIND_EXCLUSIVE) {
            x[r][e] = head ? init : running;
            running = op(head ? init : running, v);
          } else {
            running = head ? v : op(running, v);
            x[r][e] = running;
          }
        }
        store_row(r);
      }
    }
    if (!EARLY)
      bulk_finish_segment(bulk, true, empty, s, pending, out + g_seg, vseg,
                          unsigned(SEG * sizeof(T)));
  }
  if (lane == 0) bulk_wait_all(); // the stores must finish reading before the block exits
}

// Scan along the middle axis of outer x len x inner (see axis_scan.cuh): one tile per
// block, tiles by blockIdx or by ticket as single_pass_kernel, n = outer * len * inner;
// with a tile loop (CHAINS: `.loop` policies; FLAG_AXIS_CHAINS where the host finds
// enough chains) a block scans whole chains instead. Only a loop's kernel holds that
// code, so the one-tile kernel keeps its registers.
// Thread c < C (and c + TPB, ...) owns column c's totals, publications and carry;
// the look-back's reads are spread over the whole block. Shared memory: G x C values
// of warp totals and axis_tile::window (at most 12 KB), see axis_scan.cuh.
template <class T, class Op, int KIND, class P, bool CHAINS = false>
__global__ void __launch_bounds__(P::block_threads, P::min_blocks)
    axis_kernel(SCANTUNE_KERNEL_PARAMS, segment_args shape) {
  await_previous_grid();
  init = start_value<T, Op, KIND>(init, start, flags);
  typedef axis_tile<T, Op, KIND, P> at;
  const bool one_chunk = (flags & FLAG_AXIS_ONE_CHUNK) != 0;
  const bool by_block = one_chunk || (flags & FLAG_TILES_BY_BLOCK) != 0;
  const bool vectors = (flags & FLAG_AXIS_VECTORS) != 0;
  __shared__ unsigned s_ticket, s_gen;
  __shared__ T s_part[at::G][at::C]; // warp totals, then each warp's carry
  __shared__ typename at::window s_window;
  // A tile loop over whole chains: `shift` holds the lanes a row takes.
  if (CHAINS && (flags & FLAG_AXIS_CHAINS)) {
    at::scan_chains(in, out, n, shape.axis_len, shape.axis_inner, shift, init, vectors, s_part,
                    Op());
    return;
  }
  const unsigned long long drawn = one_chunk ? 0ull : draw_ticket(ws, by_block, s_ticket, s_gen);
  const unsigned tile = by_block ? blockIdx.x : s_ticket;
  const unsigned long long len = shape.axis_len, inner = shape.axis_inner;
  Op op;
  T x[at::IPT][at::VEC];
  if (flags & FLAG_AXIS_IN_THREAD) { // implies one chunk: by_block, no ticket
    const typename at::place p = at::locate_rows(tile, n, len, inner);
    at::load(in, p, n / inner, inner, vectors, x);
    T start[at::VEC];
#pragma unroll
    for (int v = 0; v < at::VEC; ++v)
      start[v] = init;
    at::scan_rows(x, start, len, op);
    at::store(out, p, n / inner, inner, vectors, x);
    return;
  }
  const typename at::place p = at::locate(tile, n, len, inner, at::row_lanes(inner));
  const unsigned long long offset = p.matrix * len * inner;
  const int cols = int(p.lpr) * at::VEC; // columns of this tile (at most C)
  at::load(in + offset, p, len, inner, vectors, x);
  const unsigned warp = threadIdx.x >> 5;
  T before[at::VEC]; // the thread's row group's prefix
  at::warp_totals(x, p, before, s_part, op);
  const int col = int(lane_id() % p.lpr) * at::VEC;
#pragma unroll
  for (int k = 0; k < at::CPT; ++k) // columns past the tile's need no look-back
    if (threadIdx.x + k * at::TPB < at::C)
      s_window.done[threadIdx.x + k * at::TPB] = int(threadIdx.x + k * at::TPB) >= cols;
  if (by_block && !one_chunk && threadIdx.x == 0) s_gen = settle_ticket(ws, drawn, gridDim.x - 1);
  __syncthreads();
  if (p.chunks == 1) { // the carry: the start value and the group's warps above this one
#pragma unroll
    for (int v = 0; v < at::VEC; ++v) {
      T carry = init;
      for (unsigned w = warp - warp % p.wr; w < warp; ++w)
        carry = op(carry, s_part[w][col + v]);
      before[v] = op(carry, before[v]);
    }
    at::scan_rows(x, before, at::IPT, op);
    at::store(out + offset, p, len, inner, vectors, x);
    return;
  }
  const unsigned gen = s_gen;
  unsigned long long* slots = ws + STATUS_OFFSET_WORDS;
  const unsigned first = unsigned((unsigned long long)tile * at::C);
  // Every column's tile total out first (inclusive in the first chunk), so later
  // chunks' look-backs proceed while this one looks back.
  T total[at::CPT];
#pragma unroll
  for (int k = 0; k < at::CPT; ++k) {
    const int c = int(threadIdx.x) + k * at::TPB;
    if (c >= cols) continue;
    total[k] = at::warp_prefixes(s_part, c, Op::identity(), op); // within the tile
    const bool known = p.chunk == 0;
    at::status::publish(slots, first + c, make_flag(gen, known),
                        known ? op(init, total[k]) : total[k]);
  }
  T carry[at::CPT];
  if (p.chunk > 0) // block-uniform: every thread takes part in the rounds
    at::lookback(slots, p, tile, gen, s_window, op, carry);
#pragma unroll
  for (int k = 0; k < at::CPT; ++k) {
    const int c = int(threadIdx.x) + k * at::TPB;
    if (c >= cols) continue;
    if (p.chunk == 0)
      carry[k] = init;
    else if (p.chunk + 1 < p.chunks) // the last chunk's has no reader
      at::status::publish(slots, first + c, make_flag(gen, true), op(carry[k], total[k]));
    for (int w = 0; w < at::G; ++w)
      s_part[w][c] = op(carry[k], s_part[w][c]);
  }
  __syncthreads();
  at::scan_store(x, p, before, s_part, out + offset, len, inner, vectors, op);
}

// Compaction (see select.cuh), one tile per block, tiles by blockIdx or by ticket as
// single_pass_kernel; Op is the predicate of SELECT_IF and PARTITION_IF. The tile's
// selected items before it come from look-back over 64-bit counts (the block scan
// counts in 32 bits: a tile holds at most 32K items). The last tile writes the total
// to *seg.num_selected, except in a partition, whose count kernel wrote it before:
// there its rejected items start at that total.
template <class T, class Op, int KIND, class P, int MODE>
__global__ void __launch_bounds__(P::block_threads, P::min_blocks)
    select_kernel(SCANTUNE_KERNEL_PARAMS, segment_args seg) {
  await_previous_grid();
  typedef select_tile<T, Op, P, MODE> st;
  typedef unsigned long long count_t;
  const int TILE = P::tile_items, IPT = P::items_per_thread;
  const bool by_block = (flags & FLAG_TILES_BY_BLOCK) != 0;
  __shared__ unsigned s_ticket, s_gen, s_count;
  __shared__ count_t s_before;
  const unsigned long long drawn = draw_ticket(ws, by_block, s_ticket, s_gen);
  const unsigned tile = by_block ? blockIdx.x : s_ticket;
  const count_t total = select_mode<MODE>::partition ? *seg.num_selected : 0ull;
  T* smem = select_smem<T, P>::get();
  const long long g_start = (long long)tile * TILE - (long long)shift;
  const long long g0 = g_start + (long long)threadIdx.x * IPT;
  T items[P::items_per_thread];
  st::load(in, n, g_start, items, smem);
  const unsigned bits = st::select_bits(in, g0, n, items, seg);
  typedef block_scan<unsigned, op_sum<unsigned>, P::block_threads, P::block_scan> bscan;
  const unsigned rank =
      bscan::exclusive_then(__popc(bits), op_sum<unsigned>(), [&](unsigned count) {
        unsigned gen = by_block ? 0u : s_gen;
        const count_t before = single_pass_prefix<count_t, op_sum<count_t>, KIND_INCLUSIVE, P>(
            ws, tile, gen, by_block, drawn, count_t(count), 0ull);
        if (threadIdx.x == 0) {
          s_before = before;
          s_count = count;
        }
      });
  const count_t before = s_before;
  const unsigned count = s_count;
  const long long g_first = g_start < 0 ? 0 : g_start;
  const long long g_end = min(g_start + TILE, (long long)n);
  const unsigned long long tiles = (n + shift + TILE - 1) / TILE;
  if (!select_mode<MODE>::partition && threadIdx.x == 0 && tile == tiles - 1)
    *seg.num_selected = before + count;
  st::store(out, items, bits, g0, g_first, g_end, rank, count, before,
            total + (count_t(g_first) - before), smem);
}

// A partition's first pass: the count of selected items into *seg.num_selected, which
// the compaction kernel reads when it starts. Blocks stride over the tiles (the host
// launches about as many as fit at once), then add their counts into status-workspace
// word 1 and count themselves done in word 2; the last block writes the total and
// zeroes both for the stream's next call. Why a loop: a block a tile made 2^15 blocks at
// 2^28 int32, each with two same-address atomics and a fence around 8 KiB of flags.
template <class T, class Op, int KIND, class P, int MODE>
__global__ void __launch_bounds__(P::block_threads, P::min_blocks)
    select_count_kernel(SCANTUNE_KERNEL_PARAMS, segment_args seg) {
  await_previous_grid();
  typedef select_tile<T, Op, P, MODE> st;
  const int TILE = P::tile_items, IPT = P::items_per_thread;
  const unsigned long long tiles = (n + shift + TILE - 1) / TILE;
  unsigned mine = 0;
  for (unsigned long long t = blockIdx.x; t < tiles; t += gridDim.x) {
    const long long g_start = (long long)t * TILE - (long long)shift;
    const long long g0 = g_start + (long long)threadIdx.x * IPT;
    T items[P::items_per_thread];
    if (!select_mode<MODE>::flags) {
      st::load(in, n, g_start, items, select_smem<T, P>::get());
      __syncthreads(); // a staged load's buffer is free for the next tile's
    }
    mine += __popc(st::select_bits(in, g0, n, items, seg));
  }
  typedef unsigned long long count_t; // a block may count more than 2^32 items
  const count_t count = block_reduce_ascending<count_t, op_sum<count_t>, P::block_threads>(
      count_t(mine), op_sum<count_t>());
  if (threadIdx.x != 0) return;
  unsigned long long* sum = ws + 1;
  unsigned long long* done = ws + 2;
  atomicAdd(sum, count);
  __threadfence(); // the count is in before this block counts as done
  if (atomicAdd(done, 1ull) != gridDim.x - 1) return;
  __threadfence();
  *seg.num_selected = atomicExch(sum, 0ull);
  atomicExch(done, 0ull);
}

// Select by flags on lookback_bulk's warp roles (see bulk_kernel and select.cuh). The
// producer bulk-copies a tile's flag bytes first, onto a barrier of their own
// (`flagged`), then its values (`full`); the reducer counts each consumer segment's
// flags (coalesced words, no values) and publishes the tile's count while the values
// still land; the look-back warp resolves the count before the tile (for the last tile
// it writes the total to *seg.num_selected); each consumer ranks its rows' flagged
// items with a warp scan of their counts and compacts them over its segment of the
// stage as soon as both have landed, and waits for the look-back (`ready`) only to
// store them coalesced. Why: select_kernel's one tile per block
// waited at block barriers around its look-back (0.77-0.88x memcpy of the bytes moved
// from 2^24). Every output index is at most its item's index and a tile stores only
// once every earlier tile has been counted: in place, a tile's flags land on `full`
// with its values, so counted means loaded, and no store overwrites unread input.
// A partition by flags (after select_count_kernel wrote the total) compacts each
// segment's rejected items after its selected ones and stores them, in input order, at
// total + (valid items before them - selected items before them); not in place.
template <class T, class Op, int KIND, class P, int MODE>
__global__ void __launch_bounds__(P::block_threads + 96, P::min_blocks > 1 ? P::min_blocks : 1)
    select_bulk_kernel(SCANTUNE_KERNEL_PARAMS, segment_args seg) {
  await_previous_grid();
  static_assert(P::algorithm == ALG_LOOKBACK_BULK && P::reverse == 0 &&
                    (MODE == SELECT_FLAGS || MODE == PARTITION_FLAGS),
                "select_bulk_kernel selects or partitions by flags on lookback_bulk, forward");
  const bool PARTITION = MODE == PARTITION_FLAGS;
  typedef unsigned long long count_t;
  typedef op_sum<count_t> count_op;
  const int S = P::stages, CONSUMERS = P::block_threads / 32, VEC = P::vector_width;
  const int ROWS = P::items_per_thread / VEC, SEG = 32 * P::items_per_thread;
  const long long TILE = P::tile_items;
  typedef typename raw_vector<VEC * sizeof(T)>::type V;
  extern __shared__ __align__(128) unsigned char dynamic_smem[]; // S value stages, S flag stages
  __shared__ __align__(8) unsigned long long full[S], reduced[S], ready[S], empty[S], flagged[S];
  __shared__ unsigned s_tile[S], s_gen, s_seg[S][CONSUMERS];
  __shared__ count_t s_agg[S], s_prefix[S];
  const bulk_span span(ws, n, shift, TILE);
  const int warp = int(threadIdx.x >> 5), lane = int(lane_id());
  auto values = [&](int s) { return reinterpret_cast<T*>(dynamic_smem) + s * TILE; };
  auto flags_of = [&](int s) { return dynamic_smem + S * TILE * sizeof(T) + s * TILE; };
  auto start_of = [&](unsigned t) { return (long long)t * TILE - (long long)shift; };
  if (threadIdx.x == 0)
    for (int s = 0; s < S; ++s)
      mbar_init(&flagged[s], 32);
  // P::early_release (bulk_kernel's): a consumer reads its compacted items back into
  // registers and hands the stage back before the tile's offset comes.
  const bool EARLY = P::early_release != 0;
  const int HELD = EARLY ? ROWS * VEC : 1; // compacted items a lane holds
  __shared__ __align__(8) unsigned long long ready2[EARLY ? 2 * S : 1];
  __shared__ count_t s_prefix2[EARLY ? 2 * S : 1];
  prefix_ring<EARLY ? S : 1, count_t> ring{ready2, s_prefix2};
  init_stage_barriers<S>(full, reduced, ready, empty, CONSUMERS + (EARLY ? 1 : 0));
  if (EARLY) ring.init();

  const bool in_place =
      reinterpret_cast<const unsigned char*>(out) <
          reinterpret_cast<const unsigned char*>(in + n) &&
      reinterpret_cast<const unsigned char*>(in) < reinterpret_cast<const unsigned char*>(out + n);
  unsigned long long* counted = in_place ? full : flagged; // what the reducer waits for

  if (warp == CONSUMERS) { // producer
    unsigned long long cursor = 0;
    produce_stages<S>(
        ws, full, empty, s_tile, s_gen, span.tiles, span.last,
        [&](int s, unsigned t) {
          const long long at = start_of(t);
          const bool whole = at >= 0 && (unsigned long long)(at + TILE) <= n;
          if (whole && reinterpret_cast<unsigned long long>(seg.flags + at) % 16 == 0) {
            if (lane == 0) {
              mbar_expect_tx(&counted[s], unsigned(TILE));
              bulk_load(flags_of(s), seg.flags + at, unsigned(TILE), &counted[s]);
              mbar_expect_tx(&full[s], unsigned(TILE * sizeof(T)));
              bulk_load(values(s), in + at, unsigned(TILE * sizeof(T)), &full[s]);
            }
            mbar_arrive(&flagged[s]);
            mbar_arrive(&full[s]);
          } else { // the lanes copy what the bulk copies cannot
            stage_tile_and_heads<HEADS_FLAGS, TILE>(values(s), flags_of(s),
                                                    static_cast<unsigned char*>(nullptr), &full[s],
                                                    in, seg.flags, seg, at, whole, n, T(), cursor);
            mbar_arrive(&flagged[s]);
          }
        },
        flagged);
    return;
  }

  if (warp == CONSUMERS + 1) { // reducer: a segment's flags as words, lane-contiguous
    relay_stages<S>(counted, reduced, s_tile, span.tiles, [&](int s, unsigned t) {
      const bool WORDS = SEG % 128 == 0;
      unsigned part[CONSUMERS];
#pragma unroll
      for (int c = 0; c < CONSUMERS; ++c) {
        const unsigned char* f = flags_of(s) + c * SEG;
        unsigned count = 0;
        if (WORDS) {
#pragma unroll
          for (int j = 0; j < SEG / 128; ++j) {
            const unsigned w = reinterpret_cast<const unsigned*>(f)[j * 32 + lane];
            count += __popc(__vcmpne4(w, 0u) & 0x01010101u);
          }
        } else {
          for (int j = lane; j < SEG; j += 32)
            count += f[j] != 0;
        }
        part[c] = count;
      }
      warp_reduce_ascending<CONSUMERS>(part, op_sum<unsigned>());
      count_t run = 0;
      if (lane == 0) {
#pragma unroll
        for (int c = 0; c < CONSUMERS; ++c) {
          s_seg[s][c] = unsigned(run);
          run += part[c];
        }
        s_agg[s] = run;
      }
      publish_aggregate<count_t, count_op, KIND_INCLUSIVE>(span.slots, t, s_gen, run, 0ull);
    });
    return;
  }

  if (EARLY && warp == CONSUMERS + 2) { // look-back; the last tile's writes the total
    ring.serve(
        reduced, empty, s_tile, span.tiles, [&](int s) { return s_agg[s]; },
        [&](unsigned t, count_t agg) {
          const count_t prefix = finish_lookback<count_t, count_op, KIND_INCLUSIVE, P>(
              span.slots, t, s_gen, agg, 0ull);
          if (!PARTITION && lane == 0 && t == span.tiles - 1) *seg.num_selected = prefix + agg;
          return prefix;
        });
    return;
  }
  if (warp == CONSUMERS + 2) { // look-back
    relay_stages<S>(reduced, ready, s_tile, span.tiles, [&](int s, unsigned t) {
      const count_t prefix = finish_lookback<count_t, count_op, KIND_INCLUSIVE, P>(
          span.slots, t, s_gen, s_agg[s], 0ull);
      if (lane == 0) {
        s_prefix[s] = prefix;
        if (!PARTITION && t == span.tiles - 1) *seg.num_selected = prefix + s_agg[s];
      }
    });
    return;
  }

  // Consumers: read the segment and its flags, compact the flagged items in place over
  // the segment (ranked by a warp scan of each row's counts; a partition's rejected items
  // after them), store them coalesced, then hand the stage back (early: read them back,
  // hand the stage back, store from registers). Storing each item from the registers
  // that ranked it took a store instruction per vector element, scattered over the row's
  // range.
  const count_t total = PARTITION ? *seg.num_selected : 0ull; // select_count_kernel's
  auto clamp_n = [&](long long g) { return g < 0 ? 0ll : g > (long long)n ? (long long)n : g; };
  for (unsigned k = 0;; ++k) {
    const int s = int(k % S);
    mbar_wait(&flagged[s], (k / S) & 1u);
    mbar_wait(&full[s], (k / S) & 1u);
    const unsigned t = s_tile[s];
    if (t >= span.tiles) break;
    T* vseg = values(s) + warp * SEG;
    const unsigned char* fseg = flags_of(s) + warp * SEG;
    const long long gs = start_of(t) + (long long)warp * SEG; // the segment's first element
    const long long first_valid = clamp_n(gs);
    T x[ROWS][VEC];
    unsigned bits[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const V w = reinterpret_cast<const V*>(vseg)[r * 32 + lane];
#pragma unroll
      for (int e = 0; e < VEC; ++e)
        x[r][e] = reinterpret_cast<const T*>(&w)[e];
      bits[r] = flag_byte_bits<VEC>(fseg + (r * 32 + lane) * VEC);
    }
    __syncwarp();          // every lane has read the segment before it is overwritten
    unsigned seg_kept = 0; // a partition's: its rejected items go after all selected ones
    if (PARTITION) {
      unsigned c = 0;
#pragma unroll
      for (int r = 0; r < ROWS; ++r)
        c += unsigned(__popc(bits[r]));
      seg_kept = __shfl_sync(FULL_WARP, warp_inclusive_scan(c, op_sum<unsigned>()), 31);
    }
    unsigned kept = 0;
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const unsigned c = unsigned(__popc(bits[r]));
      const unsigned incl = warp_inclusive_scan(c, op_sum<unsigned>());
      unsigned pos = kept + incl - c;
#pragma unroll
      for (int e = 0; e < VEC; ++e) {
        if ((bits[r] >> e) & 1u) {
          vseg[pos++] = x[r][e];
        } else if (PARTITION) { // padding outside [0, n) is never flagged nor stored
          const long long g = gs + (r * 32 + lane) * VEC + e;
          if (g >= 0 && g < (long long)n)
            vseg[seg_kept + unsigned(g - first_valid) - pos] = x[r][e];
        }
      }
      kept += __shfl_sync(FULL_WARP, incl, 31);
    }
    const unsigned stored = PARTITION ? unsigned(clamp_n(gs + SEG) - first_valid) : kept;
    // Item j of the compacted segment, whose selected items follow `sel` selected ones.
    auto dest = [&](count_t sel, unsigned j) {
      return PARTITION && j >= kept ? total + (count_t(first_valid) - sel) + (j - kept) : sel + j;
    };
    if (EARLY) {
      __syncwarp();
      T held[HELD];
#pragma unroll
      for (int i = 0; i < HELD; ++i)
        if (unsigned(lane + 32 * i) < stored) held[i] = vseg[lane + 32 * i];
      // The reducer counts this stage's flags and leaves the segment's offset: the stage
      // goes back only after it.
      mbar_wait(&reduced[s], (k / S) & 1u);
      const unsigned before = s_seg[s][warp]; // read before take() hands the stage back
      const count_t sel = ring.take(empty, s, int(k % (2 * S)), k) + before;
#pragma unroll
      for (int i = 0; i < HELD; ++i)
        if (unsigned(lane + 32 * i) < stored) out[dest(sel, unsigned(lane + 32 * i))] = held[i];
      continue;
    }
    mbar_wait(&ready[s], (k / S) & 1u);
    __syncwarp();
    const count_t sel = s_prefix[s] + s_seg[s][warp];
    for (unsigned j = lane; j < stored; j += 32)
      out[dest(sel, j)] = vseg[j];
    __syncwarp(); // the stage's values are read
    if (lane == 0) mbar_arrive(&empty[s]);
  }
}

} // namespace scantune
