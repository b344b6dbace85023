// Experiment (issue 7, 2026-11-22; results in docs/performance.md, "Bulk copies"):
// how close to cudaMemcpyAsync can a kernel's own copy get on this GPU? A scan that
// streams its tiles can be no faster than its copy path, so this bounds the
// large-input target (0.95x memcpy). Compared in one process, medians of CUDA-event
// times over back-to-back calls, outputs checked:
//   memcpy  cudaMemcpyAsync device to device
//   vec4    a grid-stride copy, 16-byte loads and stores through registers
//   tma     a resident grid copying chunks with bulk copies (cp.async.bulk, sm_90):
//           one thread per block runs a ring of S shared-memory stages, loads
//           complete on an mbarrier, stores are bulk groups; no data in registers
// Not part of the library or its build:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Ibench/experiments -o tma_copy bench/experiments/tma_copy.cu
//   ./tma_copy 26 28       # log2 int32 counts, every other one from the first
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

#include "experiment_common.cuh"

static const int MAX_STAGES = 16;

// Chunks c = blockIdx.x + k * gridDim.x; stage k % S. Loading chunk k+S into a
// stage waits until the bulk store of chunk k has read it.
__global__ void copy_tma(const char* in, char* out, size_t chunks, unsigned chunk_bytes,
                         unsigned stages) {
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ __align__(8) unsigned long long bar[MAX_STAGES];
  if (threadIdx.x != 0) return;
  for (unsigned s = 0; s < stages; ++s)
    mbar_init(&bar[s], 1);
  mbar_init_fence();
  auto load = [&](size_t k) {
    const size_t c = blockIdx.x + k * gridDim.x;
    if (c >= chunks) return;
    const unsigned s = unsigned(k % stages);
    mbar_arrive_expect_tx(&bar[s], chunk_bytes);
    bulk_load(smem + size_t(s) * chunk_bytes, in + c * chunk_bytes, chunk_bytes, &bar[s]);
  };
  for (unsigned k = 0; k < stages; ++k)
    load(k);
  for (size_t k = 0;; ++k) {
    const size_t c = blockIdx.x + k * gridDim.x;
    if (c >= chunks) break;
    const unsigned s = unsigned(k % stages), parity = unsigned((k / stages) & 1);
    mbar_wait(&bar[s], parity);
    bulk_store(out + c * chunk_bytes, smem + size_t(s) * chunk_bytes, chunk_bytes);
    bulk_commit();
    // The stage stored one step ago is free once that store has read it.
    if (k >= 1) {
      bulk_wait_read<1>();
      load(k - 1 + stages);
    }
  }
  bulk_wait_all();
}

int main(int argc, char** argv) {
  const int lo = argc > 1 ? atoi(argv[1]) : 26, hi = argc > 2 ? atoi(argv[2]) : 28;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  printf("%s, %d SMs\n", prop.name, sms);
  for (int lg = lo; lg <= hi; lg += 2) {
    const size_t n = size_t(1) << lg, bytes = n * 4;
    std::vector<int> h(n);
    for (size_t i = 0; i < n; ++i)
      h[i] = int(i * 2654435761u >> 7);
    int *in, *out;
    CK(cudaMalloc(&in, bytes));
    CK(cudaMalloc(&out, bytes));
    CK(cudaMemcpy(in, h.data(), bytes, cudaMemcpyHostToDevice));
    const int reps = lg >= 28 ? 20 : 50;
    auto check = [&](const char* what) {
      std::vector<int> o(n);
      CK(cudaMemcpy(o.data(), out, bytes, cudaMemcpyDeviceToHost));
      if (o != h) printf("  %s: WRONG\n", what);
      CK(cudaMemset(out, 0, bytes));
    };
    const float mc =
        median_us([&] { CK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice)); }, reps);
    check("memcpy");
    printf("n=2^%d (%zu MB): memcpy %.1f us (%.0f GB/s)\n", lg, bytes >> 20, mc,
           2.0 * bytes / mc / 1e3);
    for (int per_sm : {4, 8, 16, 32}) {
      const float t = median_us(
          [&] {
            copy_vec4<<<sms * per_sm, 256>>>(reinterpret_cast<const int4*>(in),
                                             reinterpret_cast<int4*>(out), (long long)(bytes / 16));
          },
          reps);
      check("vec4");
      printf("  vec4 %3d x 256 per SM: %8.1f us  %.3f x memcpy\n", per_sm, t, mc / t);
    }
    for (unsigned kb : {8u, 16u, 32u})
      for (unsigned stages : {4u, 6u, 8u, 12u})
        for (int per_sm : {1, 2, 4}) {
          const unsigned chunk = kb * 1024;
          const size_t dyn = size_t(stages) * chunk;
          if (dyn * per_sm > 220 * 1024 || stages > MAX_STAGES) continue;
          CK(cudaFuncSetAttribute(copy_tma, cudaFuncAttributeMaxDynamicSharedMemorySize, int(dyn)));
          const float t = median_us(
              [&] {
                copy_tma<<<sms * per_sm, 32, dyn>>>(reinterpret_cast<const char*>(in),
                                                    reinterpret_cast<char*>(out), bytes / chunk,
                                                    chunk, stages);
              },
              reps);
          CK(cudaGetLastError());
          check("tma");
          printf("  tma %2u KB x %2u stages, %d blocks per SM (%3u KB in flight per SM): %8.1f "
                 "us  %.3f x memcpy\n",
                 kb, stages, per_sm, kb * stages * per_sm, t, mc / t);
        }
    CK(cudaFree(in));
    CK(cudaFree(out));
  }
}
