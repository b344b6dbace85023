// Experiment (issue 7, 2026-11-22, seventh session; results in docs/performance.md,
// "Where the fixed cost goes"): a timeline of the library's lookback_bulk kernel.
// The kernel is the library's own template (scantune/scan_kernels.cuh), compiled here
// by nvcc with its SCANTUNE_TRACE hook defined: lane 0 of each role records
// %globaltimer at each step of each tile (an atomicMax per slot, so a step several
// warps take records the last of them). For each size it prints
//   - memcpy, a 16-byte copy kernel, the library's call (NVRTC, no hook) and this
//     build's kernel without and with the trace (medians of CUDA-event times);
//   - from one traced call: the span from the first block's start to the last
//     block's end, how fast tiles land in the middle half of the run (the steady
//     rate), the time lost before and after it, and per-tile step latencies;
//   - the same span for the copy kernel (per-block start and end).
// It also times float32 max as the library defined it before (a < b ? b : a, FSETP +
// FSEL) against its fmaxf (one FMNMX) and float32 sum, and the look-back with wider
// steps (span 2 and 4: 64 and 128 predecessors per round trip).
// Every output is checked against a host scan. Not part of the library's build:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Ibench/experiments -Iruntime/include \
//     -o build-slim/bench/bulk_trace bench/experiments/bulk_trace.cu \
//     -Lbuild-gpu/runtime -lscantune -Xlinker -rpath,'$ORIGIN/../runtime'
//   build-slim/bench/bulk_trace 22,24,26,28
#include <climits>
#include <cstdint>
#include <string>

#include "../../tuner/gpu/input_values.hpp"
#include "trace_common.cuh"
#include <scantune/scantune.hpp>

namespace st = scantune;
template <int TPB, int IPT, int SPAN = 1>
using bulk_policy = st::policy<st::ALG_LOOKBACK_BULK, TPB, IPT, 4, st::BS_WARP_SCANS,
                               st::IO_TRANSPOSE, 0, st::CACHE_DEFAULT, SPAN, 7>;

struct ternary_max { // float max before the seventh session: FSETP + FSEL
  static __device__ __forceinline__ float identity() { return -INFINITY; }
  __device__ __forceinline__ float operator()(float a, float b) const { return a < b ? b : a; }
};

// Per-block start and end of the copy kernel, for its span.
__global__ void copy_traced(const int4* in, int4* out, long long n4, unsigned long long* t) {
  if (t && threadIdx.x == 0) t[blockIdx.x] = global_ns();
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4;
       i += (long long)gridDim.x * blockDim.x)
    out[i] = in[i];
  __syncthreads();
  if (t && threadIdx.x == 0) t[gridDim.x + blockIdx.x] = global_ns();
}

__global__ void fill(int* pi, float* pf, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const uint64_t h = scantune::tuner::mix64(uint64_t(i));
    pi[i] = int(uint32_t(h)) == 0 ? 1 : int(uint32_t(h));
    // Integers in [-100, 100] but 0: every partial sum stays far below 2^24, so float
    // sums are exact in any order; no zeros, so max has no -0/+0 ties.
    const int v = int((h >> 32) % 201u) - 100;
    pf[i] = float(v == 0 ? 1 : v);
  }
}

// One launch of the library's bulk kernel as launch.cpp makes it (a resident grid,
// tiles by ticket), from this build.
template <class T, class Op, class P>
struct bulk_launcher {
  unsigned grid = 0;
  size_t dyn = 0;
  bulk_launcher(long long n) {
    auto k = st::bulk_kernel<T, Op, st::KIND_INCLUSIVE, P>;
    dyn = size_t(P::stages) * P::tile_items * sizeof(T);
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(dyn)));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, P::block_threads + 96, dyn));
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    grid = unsigned(std::min<long long>(tiles(n), (long long)per_sm * sms));
  }
  static long long tiles(long long n) { return (n + P::tile_items - 1) / P::tile_items; }
  void operator()(const T* in, T* out, long long n, unsigned long long* ws) const {
    st::bulk_kernel<T, Op, st::KIND_INCLUSIVE, P>
        <<<grid, P::block_threads + 96, dyn>>>(in, out, n, T(), 0u, st::FLAG_OUT_VECTORS, ws);
    CK(cudaGetLastError());
  }
};

// One traced call of `run` (tiles, grid): prints the timeline, times in us from the
// first block's start.
template <class Run>
void trace_call(const char* what, long long tiles, unsigned grid, Run run) {
  const unsigned stride = unsigned(std::max<long long>(tiles, grid));
  trace_buffer tb(stride);
  tb.on();
  const float call_us = event_us(run);
  trace_buffer::off();
  const std::vector<unsigned long long> h = tb.fetch();
  auto at = [&](int ev, size_t i) { return h[size_t(ev) * stride + i]; };
  unsigned long long t0 = ~0ull, end = 0, last_start = 0;
  for (unsigned b = 0; b < grid; ++b) {
    t0 = std::min(t0, at(st::TRACE_BLOCK_START, b));
    last_start = std::max(last_start, at(st::TRACE_BLOCK_START, b));
    end = std::max(end, at(st::TRACE_BLOCK_END, b));
  }
  auto us = [&](unsigned long long t) { return (double(t) - double(t0)) / 1000.0; };
  std::vector<double> landed;
  for (long long t = 0; t < tiles; ++t)
    landed.push_back(us(at(st::TRACE_LANDED, t)));
  std::sort(landed.begin(), landed.end());
  const double q25 = landed[tiles / 4], q75 = landed[3 * tiles / 4];
  const double rate = double(3 * tiles / 4 - tiles / 4) / (q75 - q25); // tiles per us
  const double ramp = q25 - double(tiles / 4) / rate;
  const double steady_end = q75 + double(tiles - 3 * tiles / 4) / rate;
  // Granularity of %globaltimer: the smallest nonzero gap between sorted stamps.
  double tick = 1e9;
  for (size_t i = 1; i < landed.size(); ++i)
    if (landed[i] > landed[i - 1]) tick = std::min(tick, landed[i] - landed[i - 1]);
  printf("  %s traced: event %.2f us, span %.2f (blocks start within %.2f), first tile lands "
         "%.2f, steady %.3f tiles/us from %.2f (ramp) to %.2f, last lands %.2f, end %.2f "
         "(tail %.2f after steady end); stamp granularity %.3f us\n",
         what, call_us, us(end), us(last_start), landed[0], rate, ramp, steady_end, landed.back(),
         us(end), us(end) - steady_end, tick);
  // Step latencies (medians; all tiles, the first grid tiles, the last grid tiles).
  const int steps[][2] = {{st::TRACE_TICKET, st::TRACE_LANDED},
                          {st::TRACE_LANDED, st::TRACE_AGGREGATE},
                          {st::TRACE_AGGREGATE, st::TRACE_PREFIX},
                          {st::TRACE_PREFIX, st::TRACE_READY},
                          {st::TRACE_READY, st::TRACE_STORED}};
  const char* names[] = {"ticket->landed", "landed->aggregate", "aggregate->prefix",
                         "prefix->ready(last warp)", "ready->stored(last warp)"};
  for (int s = 0; s < 5; ++s) {
    std::vector<double> all, first, last;
    for (long long t = 0; t < tiles; ++t) {
      const unsigned long long a = at(steps[s][0], t), b = at(steps[s][1], t);
      if (!a || !b) continue; // a partial tile has no STORED stamp
      const double d = (double(b) - double(a)) / 1000.0;
      all.push_back(d);
      if (t < (long long)grid) first.push_back(d);
      if (t >= tiles - (long long)grid) last.push_back(d);
    }
    printf("    %-26s median %.2f us, p90 %.2f | first %u tiles: median %.2f | last %u: "
           "median %.2f, max %.2f\n",
           names[s], quantile(all, 0.5), quantile(all, 0.9), grid, quantile(first, 0.5), grid,
           quantile(last, 0.5), quantile(last, 1.0));
  }
  const long long lt = tiles - 1;
  printf("    last tile %lld: ticket %.2f, landed %.2f, aggregate %.2f, prefix %.2f, ready %.2f, "
         "stored %.2f; last block end %.2f\n",
         lt, us(at(st::TRACE_TICKET, lt)), us(at(st::TRACE_LANDED, lt)),
         us(at(st::TRACE_AGGREGATE, lt)), us(at(st::TRACE_PREFIX, lt)), us(at(st::TRACE_READY, lt)),
         us(at(st::TRACE_STORED, lt)), us(end));
}

template <class T>
void check(const std::vector<T>& want, const T* d, long long n, const char* what, int lg) {
  std::vector<T> got(n);
  CK(cudaMemcpy(got.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  for (long long i = 0; i < n; ++i)
    if (!(got[i] == want[i])) {
      printf("MISMATCH %s n=2^%d at %lld\n", what, lg, i);
      exit(1);
    }
}

int main(int argc, char** argv) {
  if (argc < 2) {
    printf("usage: bulk_trace LOG2_SIZES\n");
    return 2;
  }
  const std::vector<std::string> sizes = split_list(argv[1]);
  long long max_n = 0;
  for (auto& s : sizes)
    max_n = std::max(max_n, 1ll << atoi(s.c_str()));
  int *in, *out;
  float *fin, *fout;
  unsigned long long *ws, *ct;
  CK(cudaMalloc(&in, max_n * 4));
  CK(cudaMalloc(&out, max_n * 4));
  CK(cudaMalloc(&fin, max_n * 4));
  CK(cudaMalloc(&fout, max_n * 4));
  const size_t ws_words = 32 + scantune::STATUS_SLOT_WORDS * size_t(max_n / 1024 + 1);
  CK(cudaMalloc(&ws, ws_words * 8));
  CK(cudaMemset(ws, 0, ws_words * 8));
  CK(cudaMalloc(&ct, 2 * 132 * 8 * 8));
  scantune::Scanner scanner;
  const int reps = 41;
  using P256 = bulk_policy<256, 32>;
  using P512 = bulk_policy<512, 16>;
  for (auto& lgs : sizes) {
    const int lg = atoi(lgs.c_str());
    const long long n = 1ll << lg;
    fill<<<1024, 256>>>(in, fin, n);
    CK(cudaGetLastError());
    std::vector<int> h_in(n), want(n);
    std::vector<float> hf(n), fmax_want(n), fsum_want(n);
    CK(cudaMemcpy(h_in.data(), in, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hf.data(), fin, n * 4, cudaMemcpyDeviceToHost));
    unsigned run = 0;
    float m = -3.402823466e38f;
    double fs = 0;
    for (long long i = 0; i < n; ++i) {
      want[i] = int(run += unsigned(h_in[i]));
      fmax_want[i] = m = m < hf[i] ? hf[i] : m;
      fsum_want[i] = float(fs += hf[i]);
    }
    // Median time of `run`, then its output checked against `expect`.
    auto timed = [&](auto run, const auto& expect, const auto* d_out, const char* what) {
      const float t = median_us(run, reps);
      check(expect, d_out, n, what, lg);
      return t;
    };
    printf("## n = 2^%d (int32, %lld tiles of 8192)\n", lg,
           bulk_launcher<int, st::op_sum<int>, P256>::tiles(n));
    const float mc =
        median_us([&] { CK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice)); }, reps);
    const unsigned copy_grid = 132 * 8;
    const float cp = median_us(
        [&] {
          copy_traced<<<copy_grid, 256>>>(reinterpret_cast<const int4*>(in),
                                          reinterpret_cast<int4*>(out), n / 4, nullptr);
        },
        reps);
    const scantune::Policy pol =
        scantune::Policy::parse("lookback_bulk.tpb256.ipt32.vec4.warp_scans.st7");
    const float lib = timed(
        [&] {
          scanner.scan_with(pol, scantune::ScanKind::Inclusive, in, out, size_t(n),
                            scantune::Op::Sum);
        },
        want, out, "library int32 sum");
    bulk_launcher<int, st::op_sum<int>, P256> isum(n);
    const float mine = timed([&] { isum(in, out, n, ws); }, want, out, "nvcc int32 sum");
    // The hook's cost: the same kernel with tracing on for every call.
    float traced = 0;
    {
      trace_buffer tb(unsigned(std::max<long long>(isum.tiles(n), isum.grid)));
      tb.on();
      traced = median_us([&] { isum(in, out, n, ws); }, reps);
    }
    printf("  us: memcpy %.2f, copy16 %.2f, library tpb256.ipt32.st7 %.2f, this build %.2f, "
           "traced %.2f\n",
           mc, cp, lib, mine, traced);
    trace_call("int32 sum tpb256.ipt32.st7", isum.tiles(n), isum.grid,
               [&] { isum(in, out, n, ws); });
    check(want, out, n, "traced int32 sum", lg);
    // Wider look-back steps (32 * SPAN tiles per round trip).
    bulk_launcher<int, st::op_sum<int>, bulk_policy<256, 32, 2>> span2(n);
    bulk_launcher<int, st::op_sum<int>, bulk_policy<256, 32, 4>> span4(n);
    const float t2 = timed([&] { span2(in, out, n, ws); }, want, out, "int32 sum span2");
    const float t4 = timed([&] { span4(in, out, n, ws); }, want, out, "int32 sum span4");
    printf("  us: this build span2 %.2f, span4 %.2f\n", t2, t4);
    trace_call("int32 sum tpb256.ipt32.span4.st7", span4.tiles(n), span4.grid,
               [&] { span4(in, out, n, ws); });
    check(want, out, n, "traced int32 sum span4", lg);
    // The copy kernel's span.
    {
      const float call_us = event_us([&] {
        copy_traced<<<copy_grid, 256>>>(reinterpret_cast<const int4*>(in),
                                        reinterpret_cast<int4*>(out), n / 4, ct);
      });
      std::vector<unsigned long long> h(2 * copy_grid);
      CK(cudaMemcpy(h.data(), ct, h.size() * 8, cudaMemcpyDeviceToHost));
      const unsigned long long s0 = *std::min_element(h.begin(), h.begin() + copy_grid);
      const unsigned long long s1 = *std::max_element(h.begin(), h.begin() + copy_grid);
      const unsigned long long e = *std::max_element(h.begin() + copy_grid, h.end());
      printf("  copy16 traced: event %.2f us, span %.2f (blocks start within %.2f)\n", call_us,
             (e - s0) / 1000.0, (s1 - s0) / 1000.0);
    }
    // float32 max: `a < b ? b : a` against the library's fmaxf, and float32 sum; two
    // rounds.
    if (lg >= 24) {
      bulk_launcher<float, ternary_max, P256> tmax256(n);
      bulk_launcher<float, st::op_max<float>, P256> fmax256(n);
      bulk_launcher<float, st::op_sum<float>, P256> fsum256(n);
      bulk_launcher<float, ternary_max, P512> tmax512(n);
      bulk_launcher<float, st::op_max<float>, P512> fmax512(n);
      bulk_launcher<float, st::op_sum<float>, P512> fsum512(n);
      for (int round = 0; round < 2; ++round) {
        const float a = timed([&] { tmax256(fin, fout, n, ws); }, fmax_want, fout, "max 256");
        const float b = timed([&] { fmax256(fin, fout, n, ws); }, fmax_want, fout, "fmaxf 256");
        const float c = timed([&] { fsum256(fin, fout, n, ws); }, fsum_want, fout, "sum 256");
        const float d = timed([&] { tmax512(fin, fout, n, ws); }, fmax_want, fout, "max 512");
        const float e = timed([&] { fmax512(fin, fout, n, ws); }, fmax_want, fout, "fmaxf 512");
        const float f = timed([&] { fsum512(fin, fout, n, ws); }, fsum_want, fout, "sum 512");
        printf("  float32 round %d us: tpb256.ipt32 a<b?b:a %.2f fmaxf %.2f sum %.2f | "
               "tpb512.ipt16 a<b?b:a %.2f fmaxf %.2f sum %.2f | memcpy %.2f\n",
               round, a, b, c, d, e, f, mc);
      }
    }
    fflush(stdout);
  }
  CK(cudaDeviceSynchronize());
  return 0;
}
