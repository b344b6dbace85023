// Experiment (issue 7, 2026-11-22, ninth session; results in docs/performance.md):
// what one status hand-over between two SMs costs on its own, the floor under the
// look-back's "about 1 us after the slowest predecessor lands" in the 2^20 timeline.
// One warp on each of two SMs (one block per SM: the blocks ask for more than half
// of an SM's shared memory; blocks elsewhere exit), lane 0 of each:
//   - load latency: a chain of dependent relaxed gpu-scope loads of a status word
//     (the look-back's load) that stays in L2, ns per load;
//   - ping-pong: A publishes 2i+1 with a relaxed store (the look-back's publish),
//     B waits for it and publishes 2i+2, A waits for that; ns per hand-over (half a
//     round), with the waiting side polling one load at a time, 0 / 100 / 200 ns
//     apart (the policies' backoff), or keeping 4 loads in flight 64 ns apart;
// for a few SM pairs (SM ids as %smid numbers them: neighbours, and pairs across the
// chip, where the status line's L2 slice may sit in the far partition for one side).
//   nvcc -O3 -std=c++17 -arch=sm_90 -Ibench/experiments -o build-slim/bench/handover \
//     bench/experiments/handover.cu
//   build-slim/bench/handover
#include "trace_common.cuh"

__device__ __forceinline__ unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

// Waits until *p == want; MODE 0/1/2: one poll at a time, 0/100/200 ns apart;
// MODE 3: four polls in flight, 64 ns apart. Gives up after 50 ms (an SM id with no
// block: %smid numbers may have holes), leaving a zero result.
__device__ bool g_gave_up;
template <int MODE>
__device__ __forceinline__ void wait_for(const unsigned long long* p, unsigned long long want) {
  const unsigned long long deadline = global_ns() + 50000000ull;
  if constexpr (MODE < 3) {
    while (load_relaxed(p) != want) {
      if (MODE > 0) __nanosleep(MODE * 100);
      if (global_ns() > deadline) {
        g_gave_up = true;
        return;
      }
    }
  } else {
    unsigned long long w[4];
#pragma unroll
    for (int d = 0; d < 4; ++d) {
      w[d] = load_relaxed(p);
      __nanosleep(64);
    }
    for (;;) {
#pragma unroll
      for (int d = 0; d < 4; ++d) {
        if (w[d] == want) return;
        w[d] = load_relaxed(p);
        __nanosleep(64);
      }
      if (global_ns() > deadline) {
        g_gave_up = true;
        return;
      }
    }
  }
}

// ns per hand-over (result[0]) and per dependent load (result[1]) between SMs a, b.
template <int MODE>
__global__ void pingpong(unsigned long long* flag, unsigned a, unsigned b, int rounds,
                         unsigned long long* result) {
  extern __shared__ int pad[]; // one block per SM
  if (threadIdx.x != 0) return;
  const unsigned s = smid();
  if (s == a) {
    // Load latency first, while B has not started publishing.
    unsigned long long x = 0;
    const unsigned long long t0 = global_ns();
    for (int i = 0; i < 4096; ++i)
      x = load_relaxed(flag + 32 + (x & 1u)); // the slot stays 0: a dependent chain
    const unsigned long long t1 = global_ns();
    result[1] = (t1 - t0) / 4096 + (x == 1234567 ? 1 : 0);
    store_relaxed(flag + 16, 1); // B may start
    const unsigned long long t2 = global_ns();
    for (int i = 0; i < rounds && !g_gave_up; ++i) {
      store_relaxed(flag, 2ull * i + 1);
      wait_for<MODE>(flag, 2ull * i + 2);
    }
    result[0] = g_gave_up ? 0 : (global_ns() - t2) / (2ull * rounds);
  } else if (s == b) {
    wait_for<0>(flag + 16, 1);
    for (int i = 0; i < rounds && !g_gave_up; ++i) {
      wait_for<MODE>(flag, 2ull * i + 1);
      store_relaxed(flag, 2ull * i + 2);
    }
  }
  (void)pad;
}

template <int MODE>
void run_pair(unsigned a, unsigned b, int sms, unsigned long long* flag, unsigned long long* result,
              size_t smem, unsigned long long out[2]) {
  CK(cudaFuncSetAttribute(pingpong<MODE>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  CK(cudaMemset(flag, 0, 64 * 8));
  CK(cudaMemset(result, 0, 2 * 8));
  const bool no = false;
  CK(cudaMemcpyToSymbol(g_gave_up, &no, sizeof no));
  pingpong<MODE><<<sms, 32, smem>>>(flag, a, b, 2000, result);
  CK(cudaGetLastError());
  CK(cudaMemcpy(out, result, 2 * 8, cudaMemcpyDeviceToHost));
}

int main() {
  int sms = 0, smem_max = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  unsigned long long *flag, *result;
  CK(cudaMalloc(&flag, 64 * 8));
  CK(cudaMalloc(&result, 2 * 8));
  const size_t smem = size_t(smem_max) * 3 / 4;
  printf("ns per hand-over (relaxed store -> relaxed poll sees it) and per dependent L2 load,\n"
         "2000 round trips per pair; polls: one at a time 0/100/200 ns apart, or 4 in flight\n"
         "64 ns apart\n");
  printf("| SM a | SM b | load | poll 0 | poll 100 | poll 200 | 4 in flight |\n|---|---|---|---|"
         "---|---|---|\n");
  const unsigned pairs[][2] = {{0, 1},  {0, 2},   {0, 16},  {0, 33},  {0, 66},
                               {0, 67}, {0, 100}, {0, 131}, {64, 65}, {40, 120}};
  for (auto& p : pairs) {
    if (int(p[1]) >= sms) continue;
    unsigned long long r0[2], r1[2], r2[2], r3[2];
    run_pair<0>(p[0], p[1], sms, flag, result, smem, r0);
    run_pair<1>(p[0], p[1], sms, flag, result, smem, r1);
    run_pair<2>(p[0], p[1], sms, flag, result, smem, r2);
    run_pair<3>(p[0], p[1], sms, flag, result, smem, r3);
    printf("| %u | %u | %llu | %llu | %llu | %llu | %llu |\n", p[0], p[1], r0[1], r0[0], r1[0],
           r2[0], r3[0]);
  }
  cudaFree(flag);
  cudaFree(result);
  return 0;
}
