// What the standalone experiments in this directory share: a CUDA error check
// that exits with the file and line, the plain copy kernel they time beside their
// own kernels (16-byte loads and stores, grid-stride), the median of back-to-back
// calls, and the sm_90 mbarrier and bulk-copy (TMA) instructions.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t err_ = (x);                                                                        \
    if (err_ != cudaSuccess) {                                                                     \
      printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));                          \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

__global__ void copy_vec4(const int4* in, int4* out, long long n4) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4;
       i += (long long)gridDim.x * blockDim.x)
    out[i] = in[i];
}

// Median of CUDA-event intervals between back-to-back calls (3 warm-up calls), us.
template <class F>
float median_us(F&& f, int reps) {
  std::vector<cudaEvent_t> ev(reps + 1);
  for (auto& e : ev)
    CK(cudaEventCreate(&e));
  for (int w = 0; w < 3; ++w)
    f();
  CK(cudaEventRecord(ev[0]));
  for (int r = 0; r < reps; ++r) {
    f();
    CK(cudaEventRecord(ev[r + 1]));
  }
  CK(cudaEventSynchronize(ev[reps]));
  std::vector<float> t(reps);
  for (int r = 0; r < reps; ++r)
    CK(cudaEventElapsedTime(&t[r], ev[r], ev[r + 1]));
  for (auto& e : ev)
    CK(cudaEventDestroy(e));
  std::sort(t.begin(), t.end());
  return t[reps / 2] * 1000.f;
}

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return unsigned(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(unsigned long long* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count));
}
// After every mbar_init, before any other thread or the async proxy uses them.
__device__ __forceinline__ void mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned long long* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}
// Arrives and announces `bytes` of bulk copy that complete the phase.
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
               "r"(bytes)
               : "memory");
}
// Waits until the phase of the given parity has completed (acquire, CTA scope).
__device__ __forceinline__ void mbar_wait(unsigned long long* bar, unsigned parity) {
  asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
               " @!p bra W;\n}" ::"r"(smem_addr(bar)),
               "r"(parity)
               : "memory");
}
// Global -> shared bulk copy completing on `bar`; 16-byte aligned, bytes % 16 == 0.
__device__ __forceinline__ void bulk_load(void* dst, const void* src, unsigned bytes,
                                          unsigned long long* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
               "%2, [%3];" ::"r"(smem_addr(dst)),
               "l"(src), "r"(bytes), "r"(smem_addr(bar))
               : "memory");
}
// Shared -> global bulk copy in the thread's current bulk group.
__device__ __forceinline__ void bulk_store(void* dst, const void* src, unsigned bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst),
               "r"(smem_addr(src)), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void bulk_commit() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
// Waits until at most N of the thread's bulk groups still read shared memory.
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
template <int N>
__device__ __forceinline__ void bulk_wait() {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}
