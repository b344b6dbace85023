// The tuner's input data: element i of a problem's input, computed identically on
// the host (for the reference) and on the device (to fill the buffers). Values are
// never zero, and for floating point they are chosen so that every association
// order gives bit-identical results, which makes verification exact:
// - sum (and custom operators): {-2, -1, 1, 2}; the prefix sums are a random walk
//   far below 2^24 in magnitude even at n = 2^30, so every partial sum is exact;
// - product: {-1, 1} (powers of two would overflow or round as denormals);
// - min, max: integers in [-2^20, 2^20] without 0.
// Integers are random 64-bit patterns (never 0), truncated to the type; sums and
// products wrap modulo 2^bits identically everywhere.
// Half and bfloat16 inputs (narrow_float_value) are the float sets with the Wide one
// narrowed to integers in [-128, 128] without 0, exact in both formats; they are
// accumulated in float, exactly, and only the stored outputs round.
#pragma once

#include <cstdint>
#include <type_traits>

#if defined(__CUDACC__)
#define SCANTUNE_HD __host__ __device__
#else
#define SCANTUNE_HD
#endif

namespace scantune::tuner {

/// Which value set an input uses (see the file comment).
enum class ValueSet : int { Walk = 0, Signs = 1, Wide = 2 };

/// splitmix64's finaliser: a counter-based hash.
SCANTUNE_HD inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <class T>
SCANTUNE_HD inline T input_value(ValueSet set, std::uint64_t seed, std::uint64_t i) {
  const std::uint64_t h = mix64(i ^ mix64(seed));
  if constexpr (std::is_floating_point_v<T>) {
    if (set == ValueSet::Signs) return (h & 1u) ? T(1) : T(-1);
    if (set == ValueSet::Wide) {
      const long long mag = 1 + static_cast<long long>((h >> 8) % (1u << 20));
      return static_cast<T>((h & 1u) ? mag : -mag);
    }
    const int m = static_cast<int>(h & 3u); // 0, 1, 2, 3 -> -2, -1, 1, 2
    return static_cast<T>(m - 2 + (m >> 1));
  } else {
    const T v = static_cast<T>(h);
    return v == T(0) ? T(1) : v;
  }
}

/// Element i of a half or bfloat16 input, as the float it converts to exactly.
SCANTUNE_HD inline float narrow_float_value(ValueSet set, std::uint64_t seed, std::uint64_t i) {
  if (set != ValueSet::Wide) return input_value<float>(set, seed, i);
  const std::uint64_t h = mix64(i ^ mix64(seed));
  const int mag = 1 + static_cast<int>((h >> 8) % 128u);
  return static_cast<float>((h & 1u) ? mag : -mag);
}

} // namespace scantune::tuner
