// The bench's own kernels: input fill, and the "scan then fix-up" alternative's second
// pass (docs/multi_gpu.md), which libscantune cannot express (it has no element-wise map).
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace scantune::bench {

/// out[i] = *d_prefix + out[i] for i < n (integer sum, wrapping), ordered on `stream`.
template <class T>
void add_prefix(T* out, std::size_t n, const T* d_prefix, cudaStream_t stream);

/// p[i] = small nonzero values from (seed, i): never all zeros, exact as floats.
template <class T>
void fill_input(T* p, std::size_t n, unsigned seed, cudaStream_t stream);

} // namespace scantune::bench
