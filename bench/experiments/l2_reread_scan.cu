// Experiment (issue 7, 2026-11-22; results in docs/performance.md, "Large tiles read
// twice"): decoupled look-back over large tiles that are read twice, the second time
// from L2, so that a look-back is paid per 32-512 KB instead of per register tile.
// Pass A loads and reduces the tile and publishes its aggregate; warp 0 looks back;
// pass B reloads the tile (L2 hits if the tiles in flight fit in L2), scans it and
// stores it. int32 inclusive sum only, n a multiple of the tile; timed against
// cudaMemcpyAsync, CUB and a plain copy kernel in the same process, results checked.
// Blocks per SM are capped (1..4, or occupancy) with padding dynamic shared memory, to
// bound the bytes resident in L2. Not part of the library or its build:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Ibench/experiments -o l2_reread_scan \
//     bench/experiments/l2_reread_scan.cu
//   ./l2_reread_scan 26 28        # log2 sizes, every other one from the first
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <vector>

#include "experiment_common.cuh"

enum { H_DEF = 0, H_LAST = 1, H_FIRST = 2, H_CS = 3, H_NA = 4 };

// An L2 eviction-priority policy for the .L2::cache_hint loads and stores.
template <bool LAST>
__device__ __forceinline__ unsigned long long l2_policy() {
  unsigned long long pol;
  if constexpr (LAST)
    asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
  else
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
  return pol;
}

template <int H>
__device__ __forceinline__ int4 ld4(const int4* p) {
  int4 r;
  if constexpr (H == H_DEF) {
    r = *p;
  } else if constexpr (H == H_LAST || H == H_FIRST) {
    asm("ld.global.L2::cache_hint.v4.s32 {%0,%1,%2,%3}, [%4], %5;"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
        : "l"(p), "l"(l2_policy<H == H_LAST>()));
  } else if constexpr (H == H_CS) {
    asm("ld.global.cs.v4.s32 {%0,%1,%2,%3}, [%4];"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
        : "l"(p));
  } else {
    asm("ld.global.L1::no_allocate.L2::256B.v4.s32 {%0,%1,%2,%3}, [%4];"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
        : "l"(p));
  }
  return r;
}
template <int H>
__device__ __forceinline__ void st4(int4* p, int4 v) {
  if constexpr (H == H_CS) {
    asm volatile("st.global.cs.v4.s32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z),
                 "r"(v.w)
                 : "memory");
  } else if constexpr (H == H_FIRST) {
    asm volatile("st.global.L2::cache_hint.v4.s32 [%0], {%1,%2,%3,%4}, %5;" ::"l"(p), "r"(v.x),
                 "r"(v.y), "r"(v.z), "r"(v.w), "l"(l2_policy<false>())
                 : "memory");
  } else {
    *p = v;
  }
}

__device__ __forceinline__ int warp_incl(int x, int lane) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    int y = __shfl_up_sync(~0u, x, d);
    if (lane >= d) x += y;
  }
  return x;
}
__device__ __forceinline__ int warp_sum(int x) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1)
    x += __shfl_xor_sync(~0u, x, d);
  return x;
}

constexpr unsigned long long F_AGG = 1ull << 32, F_PRE = 2ull << 32;

template <int TPB, int VPT, int SUB, int HA, int HB, int HS>
__global__ void __launch_bounds__(TPB)
    scan_l2(const int4* in, int4* out, unsigned long long* status, unsigned* ticket) {
  constexpr int W = TPB / 32;
  constexpr int SUBV = TPB * VPT; // vec4 per sub-tile
  __shared__ unsigned tile_sh;
  __shared__ int wt[2][W];
  __shared__ int bcast;
  const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
  if (tid == 0) tile_sh = atomicAdd(ticket, 1u);
  __syncthreads();
  const long long tile = tile_sh;
  const int4* tin = in + tile * SUB * SUBV + w * 32 * VPT + lane;
  int4* tout = out + tile * SUB * SUBV + w * 32 * VPT + lane;

  // Pass A: reduce (commutative sum here; order-respecting in the real kernel).
  int acc = 0;
#pragma unroll 2
  for (int s = 0; s < SUB; ++s) {
#pragma unroll
    for (int j = 0; j < VPT; ++j) {
      int4 v = ld4<HA>(tin + s * SUBV + j * 32);
      acc += v.x + v.y + v.z + v.w;
    }
  }
  acc = warp_sum(acc);
  if (lane == 0) wt[0][w] = acc;
  __syncthreads();
  if (w == 0) {
    int agg = lane < W ? wt[0][lane] : 0;
    agg = warp_sum(agg);
    volatile unsigned long long* st = status;
    int excl = 0;
    if (tile == 0) {
      if (lane == 0) st[0] = F_PRE | (unsigned)agg;
    } else {
      if (lane == 0) st[tile] = F_AGG | (unsigned)agg;
      long long pos = tile - 1 - lane;
      while (true) {
        unsigned long long s;
        do {
          s = pos >= 0 ? (unsigned long long)st[pos] : (2ull << 32);
        } while (__any_sync(~0u, (s >> 32) == 0));
        unsigned pm = __ballot_sync(~0u, (s >> 32) == 2);
        int val = (int)(unsigned)s;
        if (pm) {
          int first = __ffs(pm) - 1;
          excl += warp_sum(lane <= first ? val : 0);
          break;
        }
        excl += warp_sum(val);
        pos -= 32;
      }
      if (lane == 0) st[tile] = F_PRE | (unsigned)(excl + agg);
    }
    if (lane == 0) bcast = excl;
  }
  __syncthreads();
  int carry = bcast;

  // Pass B: reload (L2), scan, store.
#pragma unroll 1
  for (int s = 0; s < SUB; ++s) {
    int4 v[VPT];
#pragma unroll
    for (int j = 0; j < VPT; ++j)
      v[j] = ld4<HB>(tin + s * SUBV + j * 32);
    int run = 0;
#pragma unroll
    for (int j = 0; j < VPT; ++j) {
      v[j].y += v[j].x;
      v[j].z += v[j].y;
      v[j].w += v[j].z;
      int t = v[j].w;
      int inc = warp_incl(t, lane);
      int ex = inc - t + run;
      v[j].x += ex;
      v[j].y += ex;
      v[j].z += ex;
      v[j].w += ex;
      run += __shfl_sync(~0u, inc, 31);
    }
    if (lane == 0) wt[s & 1][w] = run;
    __syncthreads();
    int pre = carry, tot = 0;
#pragma unroll
    for (int k = 0; k < W; ++k) {
      int x = wt[s & 1][k];
      pre += k < w ? x : 0;
      tot += x;
    }
#pragma unroll
    for (int j = 0; j < VPT; ++j) {
      int4 r = v[j];
      r.x += pre;
      r.y += pre;
      r.z += pre;
      r.w += pre;
      st4<HS>(tout + s * SUBV + j * 32, r);
    }
    carry += tot;
  }
}

struct Ctx {
  int *in, *out;
  unsigned long long* status;
  unsigned* ticket;
  void* cub_tmp;
  size_t cub_bytes;
  cudaEvent_t a, b;
};

template <class F>
float median_us(Ctx& c, F f, int reps) {
  for (int i = 0; i < 3; ++i)
    f();
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(c.a));
    f();
    CK(cudaEventRecord(c.b));
    CK(cudaEventSynchronize(c.b));
    float ms;
    CK(cudaEventElapsedTime(&ms, c.a, c.b));
    t.push_back(ms * 1000);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

static std::vector<int> h_in, h_ref, h_out;

template <int TPB, int VPT, int SUB, int HA, int HB, int HS>
void run_variant_r(Ctx& c, long long n, float memcpy_us, float cub_us, int reps, const char* hn,
                   int R);
template <int TPB, int VPT, int SUB, int HA, int HB, int HS>
void run_variant(Ctx& c, long long n, float memcpy_us, float cub_us, int reps, const char* hn) {
  for (int R : {1, 2, 3, 4, 0})
    run_variant_r<TPB, VPT, SUB, HA, HB, HS>(c, n, memcpy_us, cub_us, reps, hn, R);
}
template <int TPB, int VPT, int SUB, int HA, int HB, int HS>
void run_variant_r(Ctx& c, long long n, float memcpy_us, float cub_us, int reps, const char* hn,
                   int R) {
  constexpr long long TILE = (long long)TPB * VPT * 4 * SUB;
  if (n % TILE) return;
  long long tiles = n / TILE;
  auto kern = scan_l2<TPB, VPT, SUB, HA, HB, HS>;
  int dyn = R ? 227 * 1024 / R - 2048 : 0;
  if (dyn) CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kern, TPB, dyn));
  auto f = [&] {
    cudaMemsetAsync(c.status, 0, tiles * 8);
    cudaMemsetAsync(c.ticket, 0, 4);
    kern<<<tiles, TPB, dyn>>>((const int4*)c.in, (int4*)c.out, c.status, c.ticket);
  };
  CK(cudaMemset(c.out, 0, n * 4));
  f();
  CK(cudaDeviceSynchronize());
  CK(cudaGetLastError());
  // verify
  h_out.resize(n);
  CK(cudaMemcpy(h_out.data(), c.out, n * 4, cudaMemcpyDeviceToHost));
  long long bad = -1;
  for (long long i = 0; i < n; ++i)
    if (h_out[i] != h_ref[i]) {
      bad = i;
      break;
    }
  float us = median_us(c, f, reps);
  printf("n=2^%d occ%d resMB=%.0f tpb%d vpt%d sub%d tileKB=%lld hints=%s  %9.2f us  xmemcpy %.3f  "
         "xCUB %.3f %s\n",
         __builtin_ctzll(n), occ, occ * 132.0 * TILE * 4 / 1e6, TPB, VPT, SUB, TILE * 4 / 1024, hn,
         us, memcpy_us / us, cub_us / us, bad >= 0 ? "WRONG" : "ok");
  fflush(stdout);
}

#define HINTS(TPB, VPT, SUB)                                                                       \
  run_variant<TPB, VPT, SUB, H_LAST, H_FIRST, H_CS>(c, n, mu, cu, reps, "last/first/cs");          \
  run_variant<TPB, VPT, SUB, H_NA, H_FIRST, H_CS>(c, n, mu, cu, reps, "256B/first/cs");

int main(int argc, char** argv) {
  int lo = argc > 1 ? atoi(argv[1]) : 24, hi = argc > 2 ? atoi(argv[2]) : 28;
  long long nmax = 1ll << hi;
  Ctx c;
  CK(cudaMalloc(&c.in, nmax * 4));
  CK(cudaMalloc(&c.out, nmax * 4));
  CK(cudaMalloc(&c.status, (nmax / 1024 + 64) * 8));
  CK(cudaMalloc(&c.ticket, 4));
  CK(cudaEventCreate(&c.a));
  CK(cudaEventCreate(&c.b));
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  printf("device %s, %d SMs, L2 %d MB\n", p.name, p.multiProcessorCount, p.l2CacheSize >> 20);
  h_in.resize(nmax);
  srand(7);
  for (auto& x : h_in)
    x = rand() % 201 - 100;
  CK(cudaMemcpy(c.in, h_in.data(), nmax * 4, cudaMemcpyHostToDevice));
  c.cub_tmp = nullptr;
  cub::DeviceScan::InclusiveSum(nullptr, c.cub_bytes, c.in, c.out, (int)nmax);
  CK(cudaMalloc(&c.cub_tmp, c.cub_bytes));
  for (int lg = lo; lg <= hi; lg += 2) {
    long long n = 1ll << lg;
    h_ref.resize(n);
    unsigned s = 0;
    for (long long i = 0; i < n; ++i) {
      s += (unsigned)h_in[i];
      h_ref[i] = (int)s;
    }
    int reps = lg >= 28 ? 15 : 40;
    float mu = median_us(
        c, [&] { cudaMemcpyAsync(c.out, c.in, n * 4, cudaMemcpyDeviceToDevice); }, reps);
    float cu = median_us(
        c, [&] { cub::DeviceScan::InclusiveSum(c.cub_tmp, c.cub_bytes, c.in, c.out, (int)n); },
        reps);
    float ck = median_us(
        c, [&] { copy_vec4<<<132 * 16, 256>>>((const int4*)c.in, (int4*)c.out, n / 4); }, reps);
    printf("n=2^%d memcpy %.2f us (%.2f TB/s)  CUB %.2f us (x memcpy %.3f)  copy kernel %.2f us "
           "(x memcpy %.3f)\n",
           lg, mu, 8.0 * n / mu / 1e6, cu, mu / cu, ck, mu / ck);
    HINTS(512, 4, 1)
    HINTS(512, 4, 2)
    HINTS(512, 4, 4)
    HINTS(512, 4, 8)
    HINTS(256, 4, 2)
    HINTS(256, 4, 4)
    HINTS(256, 4, 8)
    HINTS(1024, 4, 1)
    HINTS(1024, 4, 2)
    HINTS(1024, 4, 4)
  }
  return 0;
}
