// bench/bench_common.hpp: pieces shared by the nvcc-compiled driver (scan_bench.cu)
// and the host-compiled helpers: the CUDA error-check macro and the input-data
// generator, which must produce bit-identical values on the host (for the
// reference) and on the device (to fill the input buffers).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include <cuda_runtime_api.h>

#if defined(__CUDACC__)
#define BENCH_HD __host__ __device__
#else
#define BENCH_HD
#endif

/// Checks a CUDA runtime call; on failure prints file, line, the call and the error
/// string, then exits with status 1 (a failed CUDA call leaves nothing to measure).
#define BENCH_CUDA_CHECK(call)                                                                     \
  do {                                                                                             \
    const cudaError_t bench_err_ = (call);                                                         \
    if (bench_err_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "scantune_bench: %s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__,      \
                   #call, cudaGetErrorString(bench_err_), cudaGetErrorName(bench_err_));           \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

namespace bench {

/// splitmix64's finaliser: a cheap, well-mixed counter-based hash.
BENCH_HD inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Element i of the input generated with the seed whose mix64 is `mixed_seed`. Never zero:
/// - floating point: uniform in {-2, -1, 1, 2}. The mean is 0, so the prefix sums are a
///   random walk whose magnitude stays far below 2^24 even at n = 2^30 (about 2^16),
///   which makes every partial sum an exactly representable integer in float32 and
///   float64: results are exact whatever the association order.
/// - integers: uniform in [-127, -1] U [1, 127] (for unsigned types the negative values
///   wrap, and so do the sums, modulo 2^bits, identically everywhere).
template <class T>
BENCH_HD inline T input_value_mixed(std::uint64_t mixed_seed, std::uint64_t i) {
  const std::uint64_t h = mix64(i ^ mixed_seed);
  if constexpr (std::is_floating_point_v<T>) {
    // Branch-free (the host reference runs this for every element).
    const int m = static_cast<int>(h & 3u); // 0, 1, 2, 3 -> -2, -1, 1, 2
    return static_cast<T>(m - 2 + (m >> 1));
  } else {
    const int mag = 1 + static_cast<int>((h >> 8) % 127u);
    const int sign = 2 * static_cast<int>(h & 1u) - 1; // -1 or +1
    return static_cast<T>(sign * mag); // unsigned T: negative values wrap modulo 2^bits
  }
}

/// Element i of the input generated with `seed` (see input_value_mixed).
template <class T>
BENCH_HD inline T input_value(std::uint64_t seed, std::uint64_t i) {
  return input_value_mixed<T>(mix64(seed), i);
}

} // namespace bench
