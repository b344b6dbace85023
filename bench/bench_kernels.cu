#include "bench_kernels.h"

#include <cstdint>

namespace scantune::bench {
namespace {

template <class T>
__global__ void add_prefix_kernel(T* out, std::size_t n, const T* d_prefix) {
  const T p = *d_prefix;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = p + out[i];
}

template <class T>
__global__ void fill_kernel(T* p, std::size_t n, unsigned seed) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    p[i] = T(1 + ((unsigned(i) * 2654435761u + seed) >> 29)); // 1..8
}

unsigned blocks_for(std::size_t n) {
  return static_cast<unsigned>(std::min<std::size_t>((n + 255) / 256, 65536));
}

} // namespace

template <class T>
void fill_input(T* p, std::size_t n, unsigned seed, cudaStream_t stream) {
  if (n > 0) fill_kernel<<<blocks_for(n), 256, 0, stream>>>(p, n, seed);
}

template <class T>
void add_prefix(T* out, std::size_t n, const T* d_prefix, cudaStream_t stream) {
  if (n == 0) return;
  add_prefix_kernel<<<blocks_for(n), 256, 0, stream>>>(out, n, d_prefix);
}

template void add_prefix(std::int32_t*, std::size_t, const std::int32_t*, cudaStream_t);
template void add_prefix(std::uint32_t*, std::size_t, const std::uint32_t*, cudaStream_t);
template void add_prefix(std::int64_t*, std::size_t, const std::int64_t*, cudaStream_t);
template void add_prefix(std::uint64_t*, std::size_t, const std::uint64_t*, cudaStream_t);
template void add_prefix(float*, std::size_t, const float*, cudaStream_t);
template void add_prefix(double*, std::size_t, const double*, cudaStream_t);

template void fill_input(std::int32_t*, std::size_t, unsigned, cudaStream_t);
template void fill_input(std::uint32_t*, std::size_t, unsigned, cudaStream_t);
template void fill_input(std::int64_t*, std::size_t, unsigned, cudaStream_t);
template void fill_input(std::uint64_t*, std::size_t, unsigned, cudaStream_t);
template void fill_input(float*, std::size_t, unsigned, cudaStream_t);
template void fill_input(double*, std::size_t, unsigned, cudaStream_t);

} // namespace scantune::bench
