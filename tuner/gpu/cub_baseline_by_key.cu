// CUB scan-by-key baselines of segmented sums for every element type (see
// cub_baseline_by_key.cuh), with the flat baseline's functors and arithmetic types.
#define SCANTUNE_CUB_BASELINE_DEFINE
#include "tuner/gpu/cub_baseline.cuh"
#include "tuner/gpu/cub_baseline_by_key.cuh"

namespace scantune::tuner::gpu::cub_baseline {

template <class T>
cudaError_t scan_by_key(Op op, ScanKind kind, const std::int32_t* keys, const T* in, T* out,
                        std::size_t n, T init, void* temp, std::size_t& temp_bytes,
                        cudaStream_t stream) {
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

#define SCANTUNE_CUB_BY_KEY_INSTANTIATE(T)                                                         \
  template cudaError_t scantune::tuner::gpu::cub_baseline::scan_by_key<T>(                         \
      scantune::Op, scantune::ScanKind, const std::int32_t*, const T*, T*, std::size_t, T, void*,  \
      std::size_t&, cudaStream_t)

SCANTUNE_CUB_BY_KEY_INSTANTIATE(std::int32_t);
SCANTUNE_CUB_BY_KEY_INSTANTIATE(std::uint32_t);
SCANTUNE_CUB_BY_KEY_INSTANTIATE(std::int64_t);
SCANTUNE_CUB_BY_KEY_INSTANTIATE(std::uint64_t);
SCANTUNE_CUB_BY_KEY_INSTANTIATE(float);
SCANTUNE_CUB_BY_KEY_INSTANTIATE(double);
