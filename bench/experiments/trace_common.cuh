// The timeline hook of the library's kernels, defined for the trace experiments
// (bulk_trace.cu, onewave_trace.cu): lane 0 of each warp that reaches a
// SCANTUNE_TRACE(event, index) records %globaltimer in slot [event][index] with an
// atomicMax (a step several warps take records the last of them). Include this before
// scantune/scan_kernels.cuh; tracing is off until a trace_buffer is enabled.
#pragma once

#include "experiment_common.cuh"

__device__ unsigned long long* g_trace; // [event][index]; null: tracing off
__device__ unsigned g_trace_stride;

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ void trace_mark(int event, unsigned index) {
  unsigned long long* t = g_trace;
  if (t && (threadIdx.x & 31u) == 0)
    atomicMax(t + size_t(event) * g_trace_stride + index, global_ns());
}
#define SCANTUNE_TRACE(event, index) ::trace_mark(event, index)
#include "scantune/scan_kernels.cuh"

// Device slots for `events` x `stride` stamps, zeroed; on() points the hook at them.
struct trace_buffer {
  unsigned long long* d = nullptr;
  unsigned stride;
  size_t words;
  trace_buffer(unsigned stride_, int events = scantune::TRACE_EVENTS)
      : stride(stride_), words(size_t(events) * stride_) {
    CK(cudaMalloc(&d, words * 8));
    CK(cudaMemset(d, 0, words * 8));
  }
  ~trace_buffer() {
    off();
    cudaFree(d);
  }
  void on() const {
    CK(cudaMemcpyToSymbol(g_trace, &d, sizeof d));
    CK(cudaMemcpyToSymbol(g_trace_stride, &stride, sizeof stride));
  }
  static void off() {
    unsigned long long* none = nullptr;
    CK(cudaMemcpyToSymbol(g_trace, &none, sizeof none));
  }
  std::vector<unsigned long long> fetch() const {
    std::vector<unsigned long long> h(words);
    CK(cudaMemcpy(h.data(), d, words * 8, cudaMemcpyDeviceToHost));
    return h;
  }
};

inline double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[std::min(v.size() - 1, size_t(q * (v.size() - 1) + 0.5))];
}
