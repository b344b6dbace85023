// scantune_copy_ceiling: what lookback_bulk's data movement reaches on this GPU without
// the scan. Persistent blocks (one per SM) take tiles by ticket, bulk-load each into one
// of S shared-memory stages and bulk-store it back in per-warp segments, as the scan
// kernel does, but no tile waits for another. Against cudaMemcpy of the same bytes and
// a grid-stride vector copy (docs/decisions.md, "The H200's limit is the look-back's
// in-order completion"). sm_90 and up.
#include <cstdint>
#include <cstdio>
#include <vector>

#include <CLI/CLI.hpp>

#include "event_timer.cuh"
#include "templates/bulk_copy.cuh"

namespace {

using namespace scantune; // the kernel's bulk-copy and mbarrier wrappers

// S stages of C segments of SEG bytes; warp C loads, warps 0..C-1 store their segment.
// A stage goes back once its stores have read it (checked at the next store).
template <int S, int C, int SEG>
__global__ void __launch_bounds__(32 * (C + 1), 1)
    ring_copy(const char* in, char* out, unsigned tiles, unsigned long long* ticket) {
  extern __shared__ __align__(128) char stages[];
  __shared__ __align__(8) unsigned long long full[S], empty[S];
  __shared__ unsigned tile_of[S];
  const int warp = int(threadIdx.x / 32), lane = int(threadIdx.x % 32);
  const unsigned TILE = C * SEG;
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], C);
    }
    mbar_init_fence();
  }
  __syncthreads();
  if (warp == C) {
    if (lane != 0) return;
    for (unsigned k = 0;; ++k) {
      const int s = int(k % S);
      if (k >= unsigned(S)) mbar_wait(&empty[s], (k / S - 1) & 1u);
      const unsigned t = unsigned(atomicAdd(ticket, 1ull));
      tile_of[s] = t;
      if (t >= tiles) {
        mbar_arrive(&full[s]);
        return;
      }
      mbar_arrive_expect_tx(&full[s], TILE);
      bulk_load(stages + s * TILE, in + std::size_t(t) * TILE, TILE, &full[s]);
    }
  }
  int pending = -1;
  for (unsigned k = 0;; ++k) {
    const int s = int(k % S);
    mbar_wait(&full[s], (k / S) & 1u);
    const unsigned t = tile_of[s];
    if (t >= tiles) break;
    if (lane == 0) { // the stage before goes back once its store has read it
      bulk_store(out + std::size_t(t) * TILE + warp * SEG, stages + s * TILE + warp * SEG, SEG);
      bulk_commit();
      bulk_wait_read<1>();
      if (pending >= 0) mbar_arrive(&empty[pending]);
    }
    pending = s;
  }
  if (lane == 0) bulk_wait_all();
}

__global__ void vector_copy(const int4* in, int4* out, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = in[i];
}

struct Run {
  const char* in;
  char* out;
  std::size_t bytes;
  unsigned long long* ticket;
  int sms, repeats;
  double memcpy_ms;
};

void report(const char* what, const Run& r, std::size_t bytes, double ms) {
  std::printf("| %-34s | %8.1f | %6.3f |\n", what, 2.0 * double(bytes) / ms / 1e6,
              r.memcpy_ms / ms * double(bytes) / double(r.bytes));
}

template <int S, int C, int SEG>
void ring(const Run& r) {
  const unsigned tile = C * SEG, tiles = unsigned(r.bytes / tile);
  const int shared = S * int(tile);
  CHECK(cudaFuncSetAttribute(ring_copy<S, C, SEG>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             shared));
  auto launch = [&] {
    CHECK(cudaMemsetAsync(r.ticket, 0, sizeof *r.ticket));
    ring_copy<S, C, SEG><<<r.sms, 32 * (C + 1), shared>>>(r.in, r.out, tiles, r.ticket);
  };
  launch();
  CHECK(cudaDeviceSynchronize());
  std::vector<char> a(tile), b(tile);
  const std::size_t last = std::size_t(tiles - 1) * tile;
  CHECK(cudaMemcpy(a.data(), r.in + last, tile, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(b.data(), r.out + last, tile, cudaMemcpyDeviceToHost));
  if (a != b) std::printf("ring %d x %d KB: the last tile differs\n", S, tile / 1024);
  char what[64];
  std::snprintf(what, sizeof what, "ring: %2d stages x %2u KB (%d warps)", S, tile / 1024, C);
  Timer timer;
  report(what, r, std::size_t(tiles) * tile, timer.median_ms(launch, r.repeats));
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"The bulk-copy ring's copy rate against memcpy (no scan)"};
  int log2_bytes = 30, repeats = 15;
  app.add_option("--log2-bytes", log2_bytes, "Bytes copied: 2^N (default 30)")
      ->check(CLI::Range(20, 34));
  app.add_option("--repeats", repeats, "Timed calls, median (default 15)")
      ->check(CLI::Range(1, 1000));
  CLI11_PARSE(app, argc, argv);
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major < 9) {
    std::fprintf(stderr, "%s is sm_%d%d: bulk copies need sm_90\n", prop.name, prop.major,
                 prop.minor);
    return 77;
  }
  Run r{nullptr, nullptr, std::size_t(1) << log2_bytes, nullptr, prop.multiProcessorCount,
        repeats, 0};
  char *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, r.bytes));
  CHECK(cudaMalloc(&out, r.bytes));
  CHECK(cudaMalloc(&r.ticket, sizeof *r.ticket));
  std::vector<std::uint32_t> h(r.bytes / 4);
  for (std::size_t i = 0; i < h.size(); ++i)
    h[i] = std::uint32_t(i * 2654435761u) | 1u; // never zero
  CHECK(cudaMemcpy(in, h.data(), r.bytes, cudaMemcpyHostToDevice));
  r.in = in;
  r.out = out;
  Timer timer;
  r.memcpy_ms = timer.median_ms(
      [&] { CHECK(cudaMemcpyAsync(out, in, r.bytes, cudaMemcpyDeviceToDevice)); }, repeats);
  std::printf("%s, 2^%d bytes copied (GB/s = bytes read + written per second)\n\n", prop.name,
              log2_bytes);
  std::printf("| copy | GB/s | x memcpy |\n|---|---:|---:|\n");
  report("cudaMemcpy", r, r.bytes, r.memcpy_ms);
  const double vec_ms = timer.median_ms(
      [&] {
        vector_copy<<<r.sms * 8, 256>>>(reinterpret_cast<const int4*>(in),
                                        reinterpret_cast<int4*>(out), r.bytes / 16);
      },
      repeats);
  report("vector copy, 8 x 256 threads per SM", r, r.bytes, vec_ms);
  ring<16, 8, 1024>(r); // 8 KB tiles
  ring<16, 6, 2048>(r); // 12
  ring<12, 8, 2048>(r); // 16
  ring<8, 8, 3072>(r);  // 24
  ring<7, 8, 4096>(r);  // 32: lookback_bulk.tpb256.ipt32.vec4.warp_scans.st7 for int32
  ring<4, 8, 6144>(r);  // 48
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  CHECK(cudaFree(r.ticket));
  return 0;
}
