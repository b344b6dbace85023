// Tile layer, bulk data movement (sm_90 and up): shared-memory mbarriers and the
// bulk-copy (TMA) instructions lookback_bulk moves whole tiles with. One thread
// issues a copy of a contiguous byte range; no registers hold the data.
//  - bulk_load: global -> shared; completes on an mbarrier that was told the byte
//    count (mbar_arrive_expect_tx), so the waiting threads see the data.
//  - bulk_store: shared -> global, in the issuing thread's bulk group; the stage
//    may be rewritten once bulk_wait_read says the group has read it.
// Addresses must be 16-byte aligned and sizes multiples of 16. Threads that wrote
// shared memory a bulk store reads must first run fence_shared_to_async.
// Below sm_90 the functions compile to nothing: the host never launches
// lookback_bulk there (Policy::min_arch).
#pragma once

namespace scantune {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define SCANTUNE_BULK 1
#else
#define SCANTUNE_BULK 0
#endif

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return unsigned(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(unsigned long long* bar, unsigned count) {
#if SCANTUNE_BULK
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(count)
               : "memory");
#endif
}
// After the mbar_init calls, before any other thread or a bulk copy uses the barriers.
__device__ __forceinline__ void mbar_init_fence() {
#if SCANTUNE_BULK
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}
// Arrives (release: the caller's earlier writes are visible to the waiters).
__device__ __forceinline__ void mbar_arrive(unsigned long long* bar) {
#if SCANTUNE_BULK
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(bar)) : "memory");
#endif
}
// Arrives and announces `bytes` of bulk copies that also complete the phase.
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned long long* bar, unsigned bytes) {
#if SCANTUNE_BULK
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)),
               "r"(bytes)
               : "memory");
#endif
}
// Announces `bytes` of bulk copies that also complete the phase, without arriving (the
// caller arrives once its own writes to the stage are done).
__device__ __forceinline__ void mbar_expect_tx(unsigned long long* bar, unsigned bytes) {
#if SCANTUNE_BULK
  asm volatile(
      "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)),
      "r"(bytes)
      : "memory");
#endif
}
// Waits (acquire) until the barrier's phase of parity `parity` has completed.
__device__ __forceinline__ void mbar_wait(unsigned long long* bar, unsigned parity) {
#if SCANTUNE_BULK
  // The braces scope the label, so every inlined copy may use the same name.
  asm volatile("{\n .reg .pred done;\n WAIT: mbarrier.try_wait.parity.shared::cta.b64 done, [%0], "
               "%1;\n @!done bra WAIT;\n}" ::"r"(shared_address(bar)),
               "r"(parity)
               : "memory");
#endif
}

__device__ __forceinline__ void bulk_load(void* dst, const void* src, unsigned bytes,
                                          unsigned long long* bar) {
#if SCANTUNE_BULK
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
               "%2, [%3];" ::"r"(shared_address(dst)),
               "l"(src), "r"(bytes), "r"(shared_address(bar))
               : "memory");
#endif
}
__device__ __forceinline__ void bulk_store(void* dst, const void* src, unsigned bytes) {
#if SCANTUNE_BULK
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst),
               "r"(shared_address(src)), "r"(bytes)
               : "memory");
#endif
}
// Closes the bulk stores issued since the last commit into one group.
__device__ __forceinline__ void bulk_commit() {
#if SCANTUNE_BULK
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#endif
}
// Waits until at most N of the thread's bulk groups are still reading shared memory.
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
#if SCANTUNE_BULK
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
#endif
}
// Waits until all of the thread's bulk groups have completed (writes included).
__device__ __forceinline__ void bulk_wait_all() {
#if SCANTUNE_BULK
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
}
// Orders this thread's shared-memory writes before later bulk copies that read them.
__device__ __forceinline__ void fence_shared_to_async() {
#if SCANTUNE_BULK
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

} // namespace scantune
