// CUB's scan by key as the baseline of segmented scans (private to the tuner): the
// typed entry point gpu_support.cu dispatches to and, where
// SCANTUNE_CUB_BASELINE_DEFINE is defined, its definition (one .cu per key width, so
// they compile in parallel).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "scantune/scantune.hpp"

namespace scantune::tuner::gpu::cub_baseline {

/// One cub::DeviceScan::InclusiveScanByKey / ExclusiveScanByKey call on n elements
/// of T, a segment being a run of equal keys K (std::int32_t or std::uint64_t: a scan
/// by 64-bit keys is timed against CUB reading the same 64-bit keys), with CUB's
/// convention: temp == nullptr only sets temp_bytes. `init` starts every segment of
/// an exclusive scan. Sums only (what InclusiveSumByKey runs, with an init for
/// exclusive scans): each operator costs a dozen CUB instantiations of compile time.
/// Returns cudaErrorInvalidValue for other operators and n >= 2^32.
template <class T, class K>
cudaError_t scan_by_key(Op op, ScanKind kind, const K* keys, const T* in, T* out, std::size_t n,
                        T init, void* temp, std::size_t& temp_bytes, cudaStream_t stream);

} // namespace scantune::tuner::gpu::cub_baseline

// Every element type the flat baseline takes, with keys of type K.
#define SCANTUNE_CUB_BY_KEY_INSTANTIATE_TYPE(T, K)                                                 \
  template cudaError_t scantune::tuner::gpu::cub_baseline::scan_by_key<T, K>(                      \
      scantune::Op, scantune::ScanKind, const K*, const T*, T*, std::size_t, T, void*,             \
      std::size_t&, cudaStream_t)
#define SCANTUNE_CUB_BY_KEY_INSTANTIATE(K)                                                         \
  SCANTUNE_CUB_BY_KEY_INSTANTIATE_TYPE(std::int32_t, K);                                           \
  SCANTUNE_CUB_BY_KEY_INSTANTIATE_TYPE(std::uint32_t, K);                                          \
  SCANTUNE_CUB_BY_KEY_INSTANTIATE_TYPE(std::int64_t, K);                                           \
  SCANTUNE_CUB_BY_KEY_INSTANTIATE_TYPE(std::uint64_t, K);                                          \
  SCANTUNE_CUB_BY_KEY_INSTANTIATE_TYPE(float, K);                                                  \
  SCANTUNE_CUB_BY_KEY_INSTANTIATE_TYPE(double, K)

#if defined(SCANTUNE_CUB_BASELINE_DEFINE)

namespace scantune::tuner::gpu::cub_baseline {

template <class T, class K>
cudaError_t scan_by_key(Op op, ScanKind kind, const K* keys, const T* in, T* out, std::size_t n,
                        T init, void* temp, std::size_t& temp_bytes, cudaStream_t stream) {
  if (op != Op::Sum || n > UINT32_MAX) return cudaErrorInvalidValue;
  using U = Arith<T>; // sums wrap modulo 2^bits, as in the flat baseline
  const U* vin = reinterpret_cast<const U*>(in);
  U* vout = reinterpret_cast<U*>(out);
  const auto items = static_cast<std::uint32_t>(n);
  const ::cuda::std::plus<U> plus;
  if (kind == ScanKind::Inclusive)
    return cub::DeviceScan::InclusiveScanByKey(temp, temp_bytes, keys, vin, vout, plus, items,
                                               ::cuda::std::equal_to<>{}, stream);
  return cub::DeviceScan::ExclusiveScanByKey(temp, temp_bytes, keys, vin, vout, plus,
                                             static_cast<U>(init), items, ::cuda::std::equal_to<>{},
                                             stream);
}

} // namespace scantune::tuner::gpu::cub_baseline

#endif
