// Experiment (issue 7, 2026-11-22, eighth session; results in docs/performance.md,
// "2^20: where a one-wave scan's time goes"): what the single-pass warp look-back
// kernel does at 2^19..2^21, where the built-in table runs it as one wave of tiles
// taken by blockIdx. The kernel is the library's own template, compiled here by nvcc
// with its SCANTUNE_TRACE hook (trace_common.cuh). Per size and shape it prints
//   - per-call times (back-to-back calls over input/output pairs rotated through
//     200 MB, as the tuner times, medians of 9 samples of 200 calls): memcpy, a copy
//     kernel of the same tile shape, the same copy with one grid-wide hand-over
//     between its loads and its stores (ninth session), the tile kernel without its
//     inter-block part (each block scans its tile from the identity: what loading,
//     the block scan and storing cost) and with one grid-wide hand-over in place of
//     the look-back (ninth session; tenth: all aggregates read at once), the tile
//     kernel whose last arriving block scans every aggregate (tenth session), the
//     library's call (NVRTC), and this build's kernel launched with and without
//     programmatic dependent launch;
//   - from one traced call: when blocks start, when their tiles have landed (warp 0
//     past the block's first barrier), how long the look-back then takes (landed ->
//     inclusive prefix published), and prefix -> every warp's stores issued.
// int32 inclusive sums of random words; every scan's output is checked against a host
// scan. Not part of the library's build:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Ibench/experiments -Iruntime/include \
//     -o build-slim/bench/onewave_trace bench/experiments/onewave_trace.cu \
//     -Lbuild-gpu/runtime -lscantune -Xlinker -rpath,'$ORIGIN/../runtime'
//   build-slim/bench/onewave_trace 19,20,21
// -DSCANTUNE_STATUS_SLOT_WORDS=N spreads this build's status slots and the grid
// variants' aggregates N words apart (tenth session: 1, 4, 16).
// Twelfth session: the grid hand-over scan also launched cooperatively
// (cudaLaunchAttributeCooperative: the driver guarantees the whole grid is resident,
// which a library kernel with a grid-wide wait needs), with and without programmatic
// dependent launch; sizes may be given as n (above 64) as well as log2 n.
#include <cstdint>
#include <string>

#include "../../tuner/gpu/input_values.hpp"
#include "trace_common.cuh"
#include <scantune/scantune.hpp>

namespace st = scantune;
template <int TPB, int IPT, int VEC, int BACKOFF, int CACHE, int IO = st::IO_WARP_TRANSPOSE>
using warp_policy =
    st::policy<st::ALG_LOOKBACK_WARP, TPB, IPT, VEC, st::BS_WARP_SCANS, IO, BACKOFF, CACHE, 1, 3>;

// One grid-wide hand-over, called by one thread per block of a resident grid: arrive
// on `count`, then wait until every block of this launch has. The counter only grows:
// launch k's blocks take [k * grid, (k + 1) * grid) from it (the host zeroes it before
// a series of launches of one grid size).
__device__ __forceinline__ void grid_arrive_and_wait(unsigned long long* count) {
  const unsigned long long old = atomicAdd(count, 1ull);
  const unsigned long long target = (old / gridDim.x + 1) * gridDim.x;
  while (st::load_relaxed(count) < target) {
  }
}

// How tile_only_kernel resolves its tile's prefix.
enum prefix_mode {
  NO_PREFIX, // every block scans its tile from the identity (a timing control; its output
             // is each tile's own scan, not checked)
  GRID_SUM,  // one grid-wide hand-over, then warp 0 sums every earlier tile's aggregate
             // (tenth session: the loads all in flight; the ninth's loop waited on each)
  AGGREGATOR // tenth session: the block that arrives last scans every tile's aggregate
             // and writes each tile's prefix; the others poll their own prefix word
};

// Up to 8 words per lane, all loads in flight before the first is used: lane l takes
// words [l * 8, l * 8 + 8) of those below `count`; returns the lane's sum and leaves
// the words in v.
__device__ __forceinline__ unsigned lane_words(const unsigned long long* w, unsigned count,
                                               unsigned (&v)[8]) {
  const unsigned first = st::lane_id() * 8;
#pragma unroll
  for (int r = 0; r < 8; ++r)
    v[r] = first + r < count ? unsigned(st::load_relaxed(st::status_slot(w, first + r))) : 0u;
  unsigned sum = 0;
#pragma unroll
  for (int r = 0; r < 8; ++r)
    sum += v[r];
  return sum;
}

// The tile kernel with its look-back replaced (MODE above); GRID_SUM and AGGREGATOR
// are reduce-then-scan inside one resident grid (output checked). `prefixes` holds
// AGGREGATOR's (generation << 32 | prefix) words.
template <class P, int MODE>
__global__ void __launch_bounds__(P::block_threads)
    tile_only_kernel(const int* in, int* out, unsigned long long n, unsigned long long* count,
                     unsigned long long* aggregates, unsigned long long* prefixes) {
  st::await_previous_grid();
  st::tile_scan<int, st::op_sum<int>, st::KIND_INCLUSIVE, P>::run(
      in, out, n, 0u, true, blockIdx.x, st::tile_smem<int, P>::get(), [&](int aggregate) {
        if (MODE == NO_PREFIX) return 0;
        const unsigned lane = st::lane_id();
        unsigned v[8];
        if (lane == 0) {
          st::store_relaxed(st::status_slot(aggregates, blockIdx.x), unsigned(aggregate));
          __threadfence(); // the aggregate before the arrival
        }
        if (MODE == GRID_SUM) {
          if (lane == 0) {
            grid_arrive_and_wait(count);
            __threadfence(); // every arrival before the reads
          }
          __syncwarp();
          unsigned sum = lane_words(aggregates, blockIdx.x, v);
          for (int o = 16; o > 0; o >>= 1)
            sum += __shfl_xor_sync(st::FULL_WARP, sum, o);
          return int(sum);
        }
        unsigned long long old = 0;
        if (lane == 0) old = atomicAdd(count, 1ull);
        old = __shfl_sync(st::FULL_WARP, old, 0);
        const unsigned long long gen = old / gridDim.x + 1;
        if ((old + 1) % gridDim.x == 0) { // the last arrival: scan every aggregate
          __threadfence();
          const unsigned total = lane_words(aggregates, gridDim.x, v);
          unsigned incl = total;
          for (int o = 1; o < 32; o <<= 1) {
            const unsigned y = __shfl_up_sync(st::FULL_WARP, incl, o);
            if ((int)lane >= o) incl += y;
          }
          unsigned run = incl - total, mine = 0;
#pragma unroll
          for (int r = 0; r < 8; ++r) {
            const unsigned t = lane * 8 + r;
            if (t < gridDim.x) {
              if (t == blockIdx.x)
                mine = run;
              else
                st::store_relaxed(st::status_slot(prefixes, t), gen << 32 | run);
            }
            run += v[r];
          }
          return int(__reduce_or_sync(st::FULL_WARP, mine));
        }
        unsigned long long w = 0;
        if (lane == 0)
          while (((w = st::load_relaxed(st::status_slot(prefixes, blockIdx.x))) >> 32) != gen) {
          }
        return int(__shfl_sync(st::FULL_WARP, unsigned(w), 0));
      });
}

// A copy of the same tile shape: each block moves its TPB * IPT ints as 16-byte vectors.
// With BARRIER, one grid-wide hand-over between its loads and its stores: every block
// stores only after every block's loads have landed. What a one-wave scan whose
// look-back cost nothing but one hand-over could do at best; no block scan.
template <int TPB, int IPT, bool BARRIER>
__global__ void __launch_bounds__(TPB)
    tile_copy_kernel(const int4* in, int4* out, long long n4, unsigned long long* count) {
  st::await_previous_grid();
  const long long base = blockIdx.x * (long long)(TPB * IPT / 4) + threadIdx.x;
  int4 r[IPT / 4];
#pragma unroll
  for (int k = 0; k < IPT / 4; ++k)
    if (base + k * TPB < n4) r[k] = in[base + k * TPB];
  if (BARRIER) {
    int any = 0; // a barrier on the loaded words: every thread's loads have landed past it
#pragma unroll
    for (int k = 0; k < IPT / 4; ++k)
      any |= r[k].x;
    (void)__syncthreads_or(any);
    if (threadIdx.x == 0) grid_arrive_and_wait(count);
    __syncthreads();
  }
#pragma unroll
  for (int k = 0; k < IPT / 4; ++k)
    if (base + k * TPB < n4) out[base + k * TPB] = r[k];
}

__global__ void fill(int* p, long long n, long long slots) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n * slots;
       i += (long long)gridDim.x * blockDim.x) {
    const uint32_t h = uint32_t(scantune::tuner::mix64(uint64_t(i % n)));
    p[i] = h == 0 ? 1 : int(h);
  }
}

// Launch attributes (bits): programmatic dependent launch as launch.cpp uses it, and
// a cooperative launch (the whole grid resident or the launch fails).
enum launch_how { PLAIN = 0, PDL = 1, COOP = 2 };

template <class... Params, class... Args>
void launch(void (*kernel)(Params...), unsigned grid, unsigned block, int how, Args... args) {
  cudaLaunchAttribute attr[2] = {};
  unsigned k = 0;
  if (how & PDL) {
    attr[k].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[k++].val.programmaticStreamSerializationAllowed = 1;
  }
  if (how & COOP) {
    attr[k].id = cudaLaunchAttributeCooperative;
    attr[k++].val.cooperative = 1;
  }
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(block);
  config.attrs = attr;
  config.numAttrs = k;
  CK(cudaLaunchKernelEx(&config, kernel, args...));
}

// Per-call time of call(slot), us: medians of 9 samples of 200 back-to-back calls.
template <class Call>
float per_call_us(Call call, int slots) {
  for (int s = 0; s < slots; ++s)
    call(s);
  std::vector<float> t;
  const int calls = 200;
  for (int rep = 0; rep < 9; ++rep)
    t.push_back(event_us([&] {
                  for (int i = 0; i < calls; ++i)
                    call(i % slots);
                }) /
                calls);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct buffers {
  int *in = nullptr, *out = nullptr;
  long long n;
  int slots;
  std::vector<int> want;
  unsigned long long* ws = nullptr;
  explicit buffers(long long n_) : n(n_) {
    slots = int(std::max<long long>(1, (200ll << 20) / (8 * n)));
    CK(cudaMalloc(&in, size_t(n) * slots * 4));
    CK(cudaMalloc(&out, size_t(n) * slots * 4));
    fill<<<1024, 256>>>(in, n, slots);
    CK(cudaGetLastError());
    std::vector<int> h(n);
    CK(cudaMemcpy(h.data(), in, n * 4, cudaMemcpyDeviceToHost));
    want.resize(n);
    unsigned run = 0;
    for (long long i = 0; i < n; ++i)
      want[i] = int(run += unsigned(h[i]));
    const size_t ws_words =
        std::max<size_t>(32 + size_t(n / 64 + 1) * st::STATUS_SLOT_WORDS, 32768);
    CK(cudaMalloc(&ws, ws_words * 8));
    CK(cudaMemset(ws, 0, ws_words * 8));
  }
  ~buffers() {
    cudaFree(in);
    cudaFree(out);
    cudaFree(ws);
  }
  const int* in_at(int s) const { return in + size_t(s) * n; }
  int* out_at(int s) const { return out + size_t(s) * n; }
  void check(int s, const char* what) const {
    std::vector<int> got(n);
    CK(cudaMemcpy(got.data(), out_at(s), n * 4, cudaMemcpyDeviceToHost));
    for (long long i = 0; i < n; ++i)
      if (got[i] != want[i]) {
        printf("MISMATCH %s n=%lld at %lld: %d != %d\n", what, n, i, got[i], want[i]);
        exit(1);
      }
  }
};

// One shape: times, then one traced call.
template <class P>
void shape(const buffers& b, const char* key, float memcpy_us) {
  const int TPB = P::block_threads, IPT = P::items_per_thread;
  const long long tiles = (b.n + P::tile_items - 1) / P::tile_items;
  auto scan = st::single_pass_kernel<int, st::op_sum<int>, st::KIND_INCLUSIVE, P>;
  int per_sm = 0, sms = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scan, TPB, 0));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const bool by_block = tiles <= (long long)per_sm * sms;
  const unsigned flags = st::FLAG_OUT_VECTORS | (by_block ? st::FLAG_TILES_BY_BLOCK : 0u);
  auto run = [&](int s, bool pdl) {
    launch(scan, unsigned(tiles), TPB, pdl ? PDL : PLAIN, b.in_at(s), b.out_at(s),
           (unsigned long long)b.n, 0, 0u, flags, b.ws);
  };
  scantune::Scanner scanner;
  const scantune::Policy pol = scantune::Policy::parse(key);
  const float lib = per_call_us(
      [&](int s) {
        scanner.scan_with(pol, scantune::ScanKind::Inclusive, b.in_at(s), b.out_at(s), size_t(b.n),
                          scantune::Op::Sum);
      },
      b.slots);
  b.check(0, "library");
  const float pdl = per_call_us([&](int s) { run(s, true); }, b.slots);
  b.check(0, "nvcc, pdl");
  const float plain = per_call_us([&](int s) { run(s, false); }, b.slots);
  b.check(0, "nvcc");
  auto time_tile = [&](void (*kernel)(const int*, int*, unsigned long long, unsigned long long*,
                                      unsigned long long*, unsigned long long*),
                       int how = PDL) {
    return per_call_us(
        [&](int s) {
          launch(kernel, unsigned(tiles), TPB, how, b.in_at(s), b.out_at(s),
                 (unsigned long long)b.n, b.ws + 8, b.ws + 16384, b.ws + 24576);
        },
        b.slots);
  };
  // A grid-wide hand-over needs the whole grid resident; the shared counter's groups of
  // `tiles` arrivals start at 0.
  auto resident = [&](const void* kernel) {
    int k = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&k, kernel, TPB, 0));
    CK(cudaMemset(b.ws + 8, 0, 8));
    return tiles <= (long long)k * sms;
  };
  const float tile_only = time_tile(tile_only_kernel<P, NO_PREFIX>);
  const bool fits = tiles <= 256; // lane_words' 8 words per lane
  const float barrier_scan = fits && resident((const void*)tile_only_kernel<P, GRID_SUM>)
                                 ? time_tile(tile_only_kernel<P, GRID_SUM>)
                                 : -1.f;
  if (barrier_scan > 0) b.check(0, "scan with a grid hand-over");
  float coop_pdl = -1.f, coop_plain = -1.f;
  if (barrier_scan > 0) {
    resident((const void*)tile_only_kernel<P, GRID_SUM>);
    coop_pdl = time_tile(tile_only_kernel<P, GRID_SUM>, COOP | PDL);
    b.check(0, "scan with a grid hand-over, cooperative, pdl");
    resident((const void*)tile_only_kernel<P, GRID_SUM>);
    coop_plain = time_tile(tile_only_kernel<P, GRID_SUM>, COOP);
    b.check(0, "scan with a grid hand-over, cooperative");
  }
  CK(cudaMemset(b.ws + 24576, 0, 8 * 256 * st::STATUS_SLOT_WORDS));
  const float aggregator_scan = fits && resident((const void*)tile_only_kernel<P, AGGREGATOR>)
                                    ? time_tile(tile_only_kernel<P, AGGREGATOR>)
                                    : -1.f;
  if (aggregator_scan > 0) b.check(0, "scan with one aggregating block");
  auto time_copy = [&](void (*kernel)(const int4*, int4*, long long, unsigned long long*)) {
    return per_call_us(
        [&](int s) {
          launch(kernel, unsigned(tiles), TPB, PDL, reinterpret_cast<const int4*>(b.in_at(s)),
                 reinterpret_cast<int4*>(b.out_at(s)), b.n / 4, b.ws + 8);
        },
        b.slots);
  };
  const float copy = time_copy(tile_copy_kernel<TPB, IPT, false>);
  const float copy_barrier = resident((const void*)tile_copy_kernel<TPB, IPT, true>)
                                 ? time_copy(tile_copy_kernel<TPB, IPT, true>)
                                 : -1.f;
  printf("  %s: %lld tiles, %d blocks/SM, by block %d | us per call: memcpy %.2f, tile copy "
         "%.2f, tile copy with a grid barrier %.2f, tile scan without look-back %.2f, scan "
         "with a grid hand-over %.2f (cooperative launch %.2f, without PDL %.2f), scan with one "
         "aggregating block %.2f, library %.2f, this build %.2f (no PDL %.2f)\n",
         key, tiles, per_sm, int(by_block), memcpy_us, copy, copy_barrier, tile_only, barrier_scan,
         coop_pdl, coop_plain, aggregator_scan, lib, pdl, plain);

  // One traced call on a slot the previous calls left cold (a call in between).
  trace_buffer tb{unsigned(tiles)};
  const int s = b.slots > 2 ? b.slots / 2 : 0;
  run(b.slots - 1, false);
  CK(cudaDeviceSynchronize());
  tb.on();
  const float call_us = event_us([&] { run(s, false); });
  trace_buffer::off();
  b.check(s, "traced");
  const std::vector<unsigned long long> h = tb.fetch();
  auto at = [&](int ev, long long t) { return double(h[size_t(ev) * tiles + t]); };
  double t0 = 1e300;
  for (long long t = 0; t < tiles; ++t)
    t0 = std::min(t0, at(st::TRACE_BLOCK_START, t));
  auto us = [&](double x) { return (x - t0) / 1000.0; };
  std::vector<double> start, landed, lookback, store, prefix;
  double end = 0;
  long long last_prefix_tile = 0;
  for (long long t = 0; t < tiles; ++t) {
    start.push_back(us(at(st::TRACE_BLOCK_START, t)));
    landed.push_back(us(at(st::TRACE_LANDED, t)));
    prefix.push_back(us(at(st::TRACE_PREFIX, t)));
    lookback.push_back(prefix.back() - landed.back());
    store.push_back(us(at(st::TRACE_STORED, t)) - prefix.back());
    end = std::max(end, us(at(st::TRACE_STORED, t)));
    if (prefix.back() > prefix[last_prefix_tile]) last_prefix_tile = t;
  }
  printf("    traced call %.2f us (event); from the first block's start: blocks start by %.2f "
         "(median %.2f); tiles landed %.2f / %.2f / %.2f (min / median / max); last prefix "
         "%.2f (tile %lld, landed %.2f); last stores issued %.2f\n",
         call_us, quantile(start, 1), quantile(start, 0.5), quantile(landed, 0),
         quantile(landed, 0.5), quantile(landed, 1), prefix[last_prefix_tile], last_prefix_tile,
         landed[last_prefix_tile], end);
  printf("    landed -> prefix: median %.2f, p90 %.2f, max %.2f | prefix -> stores issued: "
         "median %.2f, max %.2f\n",
         quantile(lookback, 0.5), quantile(lookback, 0.9), quantile(lookback, 1),
         quantile(store, 0.5), quantile(store, 1));
  // The look-back against a tile's position: quarters of the grid.
  printf("    by quarter of the grid (landed / prefix medians):");
  for (int q = 0; q < 4; ++q) {
    std::vector<double> l, p;
    for (long long t = q * tiles / 4; t < (q + 1) * tiles / 4; ++t) {
      l.push_back(landed[t]);
      p.push_back(prefix[t]);
    }
    printf(" %.2f / %.2f", quantile(l, 0.5), quantile(p, 0.5));
  }
  printf("\n");
}

int main(int argc, char** argv) {
  if (argc < 2) {
    printf("usage: onewave_trace LOG2_SIZES\n");
    return 2;
  }
  for (auto& lgs : split_list(argv[1])) {
    const long long arg = atoll(lgs.c_str());
    buffers b(arg > 64 ? arg : 1ll << arg);
    const float mc = per_call_us(
        [&](int s) {
          CK(cudaMemcpyAsync(b.out_at(s), b.in_at(s), b.n * 4, cudaMemcpyDeviceToDevice));
        },
        b.slots);
    scantune::Scanner table; // the dispatcher's own choice (the built-in table)
    const float lib = per_call_us(
        [&](int s) {
          table.inclusive_scan(b.in_at(s), b.out_at(s), size_t(b.n), scantune::Op::Sum);
        },
        b.slots);
    b.check(0, "library, built-in choice");
    printf("## n = %lld (int32 sum, inclusive; %d buffer pairs): memcpy %.2f us, library's own "
           "choice %.2f us\n",
           b.n, b.slots, mc, lib);
    shape<warp_policy<1024, 8, 4, 200, st::CACHE_DEFAULT>>(
        b, "lookback_warp.tpb1024.ipt8.vec4.warp_scans.wxpose.bo200", mc);
    shape<warp_policy<512, 20, 2, 0, st::CACHE_STREAMING>>(
        b, "lookback_warp.tpb512.ipt20.vec2.warp_scans.wxpose.cs", mc);
    shape<warp_policy<512, 8, 4, 0, st::CACHE_DEFAULT>>(
        b, "lookback_warp.tpb512.ipt8.vec4.warp_scans.wxpose", mc);
    shape<warp_policy<1024, 4, 4, 0, st::CACHE_STREAMING, st::IO_DIRECT>>(
        b, "lookback_warp.tpb1024.ipt4.vec4.warp_scans.direct.cs", mc);
    shape<warp_policy<512, 6, 2, 0, st::CACHE_DEFAULT>>(
        b, "lookback_warp.tpb512.ipt6.vec2.warp_scans.wxpose", mc);
  }
  return 0;
}
