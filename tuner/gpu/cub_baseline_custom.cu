// CUB DeviceScan with the sample custom operators (custom_op_twins.hpp) as
// functors: absmax on float32/float64, shifted_product on uint32/uint64.
#define SCANTUNE_CUB_BASELINE_DEFINE
#include "tuner/gpu/cub_baseline.cuh"

namespace scantune::tuner::gpu::cub_baseline {
namespace {

struct AbsMaxOp {
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    SCANTUNE_TWIN_ABSMAX_BODY
  }
};
struct ShiftedProductOp {
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    SCANTUNE_TWIN_SHIFTED_PRODUCT_BODY
  }
};

} // namespace

template <class T>
cudaError_t scan_twin(Twin twin, ScanKind kind, const T* in, T* out, std::size_t n, T init,
                      void* temp, std::size_t& temp_bytes, cudaStream_t stream) {
  if constexpr (std::is_floating_point_v<T>) {
    if (twin == Twin::AbsMax)
      return call_as<T, T>(AbsMaxOp{}, kind, in, out, n, init, temp, temp_bytes, stream);
  } else if constexpr (std::is_unsigned_v<T>) {
    if (twin == Twin::ShiftedProduct)
      return call_as<T, T>(ShiftedProductOp{}, kind, in, out, n, init, temp, temp_bytes, stream);
  }
  return cudaErrorInvalidValue;
}

} // namespace scantune::tuner::gpu::cub_baseline

SCANTUNE_CUB_TWIN_INSTANTIATE(float);
SCANTUNE_CUB_TWIN_INSTANTIATE(double);
SCANTUNE_CUB_TWIN_INSTANTIATE(std::uint32_t);
SCANTUNE_CUB_TWIN_INSTANTIATE(std::uint64_t);
SCANTUNE_CUB_TWIN_INSTANTIATE(std::int32_t);
SCANTUNE_CUB_TWIN_INSTANTIATE(std::int64_t);
