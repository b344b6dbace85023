// Test-data generators, and the host reference scan of a vector: the tuner's
// (tuner/reference.hpp), with the device operators' exact semantics.
#pragma once

#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include "policy.hpp"
#include "scantune/scantune.hpp"
#include "tuner/gpu/reference.hpp"

namespace scantune::test {

using tuner::reference_scan;

/// Data that exercises `op` without degenerating: never all zeros, integer
/// products of odd factors (never 0 mod 2^k), bit patterns that keep AND/OR
/// informative, and integer-valued floats whose sums stay exact (|prefix| << 2^24).
template <class T>
std::vector<T> make_input(std::size_t n, Op op, std::uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ull + n);
  std::vector<T> v(n);
  for (auto& x : v) {
    const std::uint64_t r = rng();
    if constexpr (std::is_integral_v<T>) {
      constexpr int bits = sizeof(T) * 8;
      switch (op) {
      case Op::Product:
        x = static_cast<T>(r | 1u);
        break;
      case Op::BitAnd:
        x = static_cast<T>(~(T(1) << (r % bits)));
        break;
      case Op::BitOr:
        x = static_cast<T>(T(1) << (r % bits));
        break;
      default:
        x = static_cast<T>(r);
        break;
      }
    } else {
      switch (op) {
      case Op::Product:
        x = (r & 1) ? T(1) : T(-1);
        break;
      case Op::Min:
      case Op::Max:
        x = static_cast<T>(static_cast<std::int64_t>(r % 2000001) - 1000000) / T(8);
        break;
      default:
        x = static_cast<T>(static_cast<int>(r % 5) - 2);
        break; // sums stay small and exact
      }
    }
  }
  return v;
}

/// The segmented reference: reference_scan of every segment on its own (a segment
/// starts at element 0 and wherever heads[i] != 0).
template <class T>
std::vector<T> reference_segmented_scan(const std::vector<T>& in,
                                        const std::vector<std::uint8_t>& heads, Op op,
                                        ScanKind kind, T init) {
  std::vector<T> out;
  out.reserve(in.size());
  for (std::size_t begin = 0; begin < in.size();) {
    std::size_t end = begin + 1;
    while (end < in.size() && !heads[end])
      ++end;
    const std::vector<T> segment(in.begin() + static_cast<std::ptrdiff_t>(begin),
                                 in.begin() + static_cast<std::ptrdiff_t>(end));
    const std::vector<T> scanned = reference_scan(segment, op, kind, init);
    out.insert(out.end(), scanned.begin(), scanned.end());
    begin = end;
  }
  return out;
}

template <class T>
T make_init(Op op) {
  if (op == Op::Product) return T(3);
  if constexpr (std::is_integral_v<T>) {
    if (op == Op::BitAnd) return static_cast<T>(~T(0) ^ T(6));
  }
  return T(5);
}

} // namespace scantune::test
