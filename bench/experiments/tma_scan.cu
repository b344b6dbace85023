// Experiment (issue 7, 2026-11-22; results in docs/performance.md, "A warp-specialized
// scan fed by bulk copies"): can a single-pass scan whose tiles move by bulk copy
// (TMA) reach the copy speed that "Bulk copies" measured (0.95-0.96x memcpy)?
// int32 inclusive sum, n a multiple of the tile. A resident grid takes tiles by ticket;
// each block runs a ring of S shared-memory stages and four kinds of warps:
//   warp 0, producer:  takes a ticket, bulk-loads the tile into a free stage;
//   warp 1, reducer:   once a tile lands, sums each consumer's segment, publishes the
//                      tile's aggregate (status word: epoch flag << 32 | value);
//   warp 2, look-back: resolves the tile's exclusive prefix from its predecessors'
//                      status words, publishes the inclusive one;
//   warps 3.., consumers: each scans its segment in shared memory from the prefix it
//                      was handed (no block barrier), bulk-stores it, frees the stage.
// The aggregate goes out when the data lands, not after an earlier tile's look-back,
// and the consumers' scan is the known-prefix pass that ran at memcpy speed in
// "Where the look-back time goes". Status words carry the call's epoch, so nothing is
// reset between calls. Deadlock-free without co-residency: tiles are claimed in
// ticket order and every stage drains in claim order, so the lowest unfinished tile
// is always at the head of its block's ring.
// Timed against cudaMemcpyAsync, CUB and a plain copy kernel in the same process
// (medians of back-to-back calls), every result checked. Not part of the library:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Ibench/experiments -o tma_scan bench/experiments/tma_scan.cu
//   ./tma_scan 24 28        # log2 sizes, every other one from the first
#include <cstdint>
#include <cub/device/device_scan.cuh>

#include "experiment_common.cuh"

constexpr int MAX_STAGES = 12, MAX_CONSUMERS = 16, ROLE_WARPS = 3;

__device__ __forceinline__ int warp_sum(int x) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1)
    x += __shfl_xor_sync(~0u, x, d);
  return x;
}
__device__ __forceinline__ int warp_incl(int x, int lane) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const int y = __shfl_up_sync(~0u, x, d);
    if (lane >= d) x += y;
  }
  return x;
}

// A consumer's segment is V rows of 32 int4 (lane l holds element 4l..4l+3 of a row),
// so shared-memory accesses are conflict-free and each row is one warp scan.
template <int V>
__global__ void scan_tma(const int* in, int* out, unsigned tiles, unsigned stages,
                         unsigned long long* status, unsigned* ticket, unsigned epoch) {
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ __align__(8) unsigned long long full[MAX_STAGES], reduced[MAX_STAGES],
      ready[MAX_STAGES], empty[MAX_STAGES];
  __shared__ unsigned tile_of[MAX_STAGES];
  __shared__ int seg_excl[MAX_STAGES][MAX_CONSUMERS], agg_of[MAX_STAGES], prefix_of[MAX_STAGES];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int consumers = blockDim.x / 32 - ROLE_WARPS;
  const unsigned seg_vec = V * 32, tile_vec = consumers * seg_vec, tile_bytes = tile_vec * 16;
  const unsigned flag_a = 2 * epoch, flag_p = 2 * epoch + 1;
  if (threadIdx.x == 0) {
    for (unsigned s = 0; s < stages; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&reduced[s], 1);
      mbar_init(&ready[s], 1);
      mbar_init(&empty[s], consumers);
    }
    mbar_init_fence();
  }
  __syncthreads();
  auto stage_of = [&](unsigned s) {
    return reinterpret_cast<int4*>(smem + size_t(s) * tile_bytes);
  };

  if (warp == 0) {
    if (lane != 0) return;
    for (unsigned k = 0;; ++k) {
      const unsigned s = k % stages, round = k / stages;
      if (round > 0) mbar_wait(&empty[s], (round - 1) & 1);
      const unsigned t = atomicAdd(ticket, 1u);
      tile_of[s] = t;
      if (t >= tiles) { // tells the other warps to stop
        mbar_arrive(&full[s]);
        return;
      }
      mbar_arrive_expect_tx(&full[s], tile_bytes);
      bulk_load(stage_of(s), in + size_t(t) * tile_vec * 4, tile_bytes, &full[s]);
    }
  }

  if (warp == 1) {
    for (unsigned k = 0;; ++k) {
      const unsigned s = k % stages;
      mbar_wait(&full[s], (k / stages) & 1);
      const unsigned t = tile_of[s];
      if (t >= tiles) {
        if (lane == 0) mbar_arrive(&reduced[s]);
        return;
      }
      const int4* tile = stage_of(s);
      int run = 0;
      for (int c = 0; c < consumers; ++c) {
        int acc = 0;
#pragma unroll
        for (int v = 0; v < V; ++v) {
          const int4 x = tile[c * seg_vec + v * 32 + lane];
          acc += x.x + x.y + x.z + x.w;
        }
        if (lane == 0) seg_excl[s][c] = run;
        run += warp_sum(acc);
      }
      if (lane == 0) {
        agg_of[s] = run;
        store_relaxed(&status[t], pack(t == 0 ? flag_p : flag_a, run));
        mbar_arrive(&reduced[s]);
      }
      __syncwarp();
    }
  }

  if (warp == 2) {
    for (unsigned k = 0;; ++k) {
      const unsigned s = k % stages;
      mbar_wait(&reduced[s], (k / stages) & 1);
      const unsigned t = tile_of[s];
      if (t >= tiles) {
        if (lane == 0) mbar_arrive(&ready[s]);
        return;
      }
      int excl = 0;
      if (t > 0) {
        long long pos = (long long)t - 1 - lane;
        for (;;) {
          unsigned long long w;
          unsigned f;
          do {
            w = pos >= 0 ? load_relaxed(&status[pos]) : pack(flag_p, 0);
            f = unsigned(w >> 32);
          } while (__any_sync(~0u, f != flag_a && f != flag_p));
          const unsigned inclusive = __ballot_sync(~0u, f == flag_p);
          const int val = int(unsigned(w));
          if (inclusive) {
            const int first = __ffs(inclusive) - 1;
            excl += warp_sum(lane <= first ? val : 0);
            break;
          }
          excl += warp_sum(val);
          pos -= 32;
        }
        if (lane == 0) store_relaxed(&status[t], pack(flag_p, excl + agg_of[s]));
      }
      if (lane == 0) {
        prefix_of[s] = excl;
        mbar_arrive(&ready[s]);
      }
      __syncwarp();
    }
  }

  // Consumers. A stage is handed back once the bulk store of the next tile is
  // issued and the previous one has finished reading it.
  const int c = warp - ROLE_WARPS;
  for (unsigned k = 0;; ++k) {
    const unsigned s = k % stages;
    mbar_wait(&ready[s], (k / stages) & 1);
    const unsigned t = tile_of[s];
    if (t >= tiles) break;
    int4* seg = stage_of(s) + c * seg_vec;
    int carry = prefix_of[s] + seg_excl[s][c];
    int4 x[V];
    int inc[V];
#pragma unroll
    for (int v = 0; v < V; ++v)
      x[v] = seg[v * 32 + lane];
#pragma unroll
    for (int v = 0; v < V; ++v) {
      x[v].y += x[v].x;
      x[v].z += x[v].y;
      x[v].w += x[v].z;
      inc[v] = warp_incl(x[v].w, lane);
    }
#pragma unroll
    for (int v = 0; v < V; ++v) {
      const int ex = carry + inc[v] - x[v].w;
      x[v].x += ex;
      x[v].y += ex;
      x[v].z += ex;
      x[v].w += ex;
      carry += __shfl_sync(~0u, inc[v], 31);
      seg[v * 32 + lane] = x[v];
    }
    fence_shared_to_async();
    __syncwarp();
    if (lane == 0) {
      bulk_store(out + (size_t(t) * tile_vec + c * seg_vec) * 4, seg, seg_vec * 16);
      bulk_commit();
      if (k > 0) {
        bulk_wait_read<1>();
        mbar_arrive(&empty[(k - 1) % stages]);
      }
    }
    __syncwarp();
  }
  if (lane == 0) bulk_wait_all();
}

struct Buffers {
  int *in, *out;
  unsigned long long* status;
  unsigned* tickets;
  unsigned epoch = 0, zeroed_at = 0;
  static constexpr unsigned kTickets = 1 << 16;
};

static std::vector<int> h_in, h_ref, h_out;

static bool check(const Buffers& b, long long n) {
  h_out.resize(n);
  CK(cudaMemcpy(h_out.data(), b.out, n * 4, cudaMemcpyDeviceToHost));
  for (long long i = 0; i < n; ++i)
    if (h_out[i] != h_ref[i]) {
      printf("    first mismatch at %lld: %d, expected %d\n", i, h_out[i], h_ref[i]);
      return false;
    }
  return true;
}

template <int V>
void run_shape(Buffers& b, long long n, int consumers, unsigned stages, int per_sm_cap,
               float memcpy_us, float cub_us, int reps, int sms) {
  const unsigned tile_items = consumers * V * 128, tile_bytes = tile_items * 4;
  if (n % tile_items || stages > MAX_STAGES) return;
  const size_t dyn = size_t(stages) * tile_bytes;
  if (dyn > 227 * 1024) return;
  auto kern = scan_tma<V>;
  const int threads = (ROLE_WARPS + consumers) * 32;
  CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(dyn)));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kern, threads, dyn));
  if (occ == 0) return;
  const int per_sm = per_sm_cap ? std::min(occ, per_sm_cap) : occ;
  if (per_sm_cap && per_sm_cap >= occ) return; // the same grid as no cap
  const unsigned tiles = unsigned(n / tile_items);
  auto call = [&] {
    ++b.epoch;
    kern<<<sms * per_sm, threads, dyn>>>(b.in, b.out, tiles, stages, b.status,
                                         b.tickets + b.epoch % Buffers::kTickets, b.epoch);
  };
  CK(cudaMemset(b.out, 0, n * 4));
  call();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  const bool ok = check(b, n);
  const float us = median_us(call, reps);
  CK(cudaDeviceSynchronize());
  const bool ok2 = check(b, n); // the last timed call's result too
  printf("  tile %2u KB (%2d consumers x %d rows) x %2u stages, %d blocks/SM: %9.1f us  %.3f x "
         "memcpy  %.3f x CUB  %s\n",
         tile_bytes / 1024, consumers, V, stages, per_sm, us, memcpy_us / us, cub_us / us,
         ok && ok2 ? "ok" : "WRONG");
  fflush(stdout);
  // Each call takes a fresh ticket counter; used ones are zeroed before they come round.
  if (b.epoch - b.zeroed_at > Buffers::kTickets / 2) {
    CK(cudaMemset(b.tickets, 0, Buffers::kTickets * 4));
    b.zeroed_at = b.epoch;
  }
}

int main(int argc, char** argv) {
  const int lo = argc > 1 ? atoi(argv[1]) : 24, hi = argc > 2 ? atoi(argv[2]) : 28;
  const long long nmax = 1ll << hi;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  printf("%s, %d SMs\n", prop.name, sms);
  Buffers b;
  CK(cudaMalloc(&b.in, nmax * 4));
  CK(cudaMalloc(&b.out, nmax * 4));
  CK(cudaMalloc(&b.status, (nmax / 512 + 64) * 8));
  CK(cudaMemset(b.status, 0, (nmax / 512 + 64) * 8));
  CK(cudaMalloc(&b.tickets, Buffers::kTickets * 4));
  CK(cudaMemset(b.tickets, 0, Buffers::kTickets * 4));
  h_in.resize(nmax);
  srand(7);
  for (auto& x : h_in)
    x = rand() % 201 - 100;
  CK(cudaMemcpy(b.in, h_in.data(), nmax * 4, cudaMemcpyHostToDevice));
  size_t cub_bytes = 0;
  cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, b.in, b.out, int(nmax));
  void* cub_tmp;
  CK(cudaMalloc(&cub_tmp, cub_bytes));
  for (int lg = lo; lg <= hi; lg += 2) {
    const long long n = 1ll << lg;
    h_ref.resize(n);
    unsigned run = 0;
    for (long long i = 0; i < n; ++i)
      h_ref[i] = int(run += unsigned(h_in[i]));
    const int reps = lg >= 28 ? 20 : 50;
    const float mc =
        median_us([&] { CK(cudaMemcpyAsync(b.out, b.in, n * 4, cudaMemcpyDeviceToDevice)); }, reps);
    const float cu = median_us(
        [&] { cub::DeviceScan::InclusiveSum(cub_tmp, cub_bytes, b.in, b.out, int(n)); }, reps);
    const bool cub_ok = check(b, n);
    const float ck = median_us(
        [&] { copy_vec4<<<sms * 16, 256>>>((const int4*)b.in, (int4*)b.out, n / 4); }, reps);
    printf("n=2^%d: memcpy %.1f us (%.0f GB/s), CUB %.1f us (%.3f x memcpy%s), copy kernel %.1f "
           "us (%.3f x memcpy)\n",
           lg, mc, 8.0 * n / mc / 1e3, cu, mc / cu, cub_ok ? "" : ", WRONG", ck, mc / ck);
    for (int consumers : {4, 8, 16})
      for (unsigned stages : {3u, 4u, 6u, 8u})
        for (int cap : {0, 1}) {
          run_shape<2>(b, n, consumers, stages, cap, mc, cu, reps, sms);
          run_shape<4>(b, n, consumers, stages, cap, mc, cu, reps, sms);
          run_shape<8>(b, n, consumers, stages, cap, mc, cu, reps, sms);
        }
  }
  return 0;
}
