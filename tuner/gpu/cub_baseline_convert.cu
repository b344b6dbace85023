// CUB baselines of converting sums (gpu_support.hpp: cub_convert_*): cub::DeviceScan::
// InclusiveScan over the input read through a conversion into the accumulator, written
// as the output type, as a CUB user writes a widening or half-precision cumsum. Only
// inclusive sums of the type triples cub_baseline_convert.cuh lists are compiled (each
// costs an instantiation of build time).
#include <climits>
#include <cstdint>

#include <thrust/iterator/transform_iterator.h>

#define SCANTUNE_CUB_BASELINE_DEFINE
#include "tuner/gpu/cub_baseline.cuh"
#include "tuner/gpu/cub_baseline_convert.cuh"
#include "tuner/gpu/gpu_support.hpp"

namespace scantune::tuner::gpu {
namespace {

using convert_baseline::with_triple;

// Integer sums run on the accumulator's unsigned twin (cub_baseline::Arith): they wrap
// modulo 2^bits, as the library's do, without signed overflow.
template <class In, class Acc>
struct Widen {
  using U = cub_baseline::Arith<Acc>;
  __host__ __device__ U operator()(In x) const { return static_cast<U>(static_cast<Acc>(x)); }
};

template <class Tr>
cudaError_t sum(const void* in, void* out, std::size_t n, void* temp, std::size_t& temp_bytes,
                cudaStream_t stream) {
  using In = typename Tr::in;
  using U = cub_baseline::Arith<typename Tr::acc>;
  const auto src =
      thrust::make_transform_iterator(static_cast<const In*>(in), Widen<In, typename Tr::acc>{});
  auto* dst = static_cast<typename Tr::out*>(out);
  const ::cuda::std::plus<U> plus;
  if (n <= static_cast<std::size_t>(INT_MAX))
    return cub::DeviceScan::InclusiveScan(temp, temp_bytes, src, dst, plus, static_cast<int>(n),
                                          stream);
  return cub::DeviceScan::InclusiveScan(temp, temp_bytes, src, dst, plus,
                                        static_cast<std::int64_t>(n), stream);
}

std::string label(const ScanTypes& t, std::size_t n) {
  return "cub::DeviceScan (" + to_string(t) + " sum inclusive, n=" + std::to_string(n) + ")";
}

cudaError_t run(const ScanTypes& t, const void* in, void* out, std::size_t n, void* temp,
                std::size_t& temp_bytes, cudaStream_t stream) {
  cudaError_t e = cudaErrorInvalidValue;
  const bool found =
      with_triple(t, [&](auto tr) { e = sum<decltype(tr)>(in, out, n, temp, temp_bytes, stream); });
  if (!found)
    throw Error("scantune tuner: no CUB baseline for " + label(t, n) +
                " (converting sums of the types cub_baseline_convert.cuh lists)");
  return e;
}

} // namespace

std::size_t cub_convert_temp_bytes(const ScanTypes& types, std::size_t n) {
  std::size_t bytes = 0;
  check(run(types, nullptr, nullptr, n, nullptr, bytes, nullptr),
        "temporary storage size of " + label(types, n));
  return bytes;
}

void cub_convert_scan(const ScanTypes& types, const void* in, void* out, std::size_t n, void* temp,
                      std::size_t temp_bytes, cudaStream_t stream) {
  if (n == 0) return;
  // CUB reads a null temp as a size query and would silently scan nothing.
  if (temp == nullptr) throw Error("scantune tuner: " + label(types, n) + ": temp storage is null");
  check(run(types, in, out, n, temp, temp_bytes, stream), label(types, n));
}

} // namespace scantune::tuner::gpu
