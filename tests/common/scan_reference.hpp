// Host reference scans and test-data generators, with the device operators'
// exact semantics (wrapping integer Sum/Product; integer min/max keep the left
// operand on ties, float min/max are fmin/fmax).
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include "policy.hpp"
#include "scantune/scantune.hpp"

namespace scantune::test {

template <class T>
T apply(Op op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    switch (op) {
    case Op::Sum:
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    case Op::Product:
      return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
    case Op::BitAnd:
      return static_cast<T>(a & b);
    case Op::BitOr:
      return static_cast<T>(a | b);
    case Op::BitXor:
      return static_cast<T>(a ^ b);
    default:
      break;
    }
  } else {
    if (op == Op::Sum) return a + b;
    if (op == Op::Product) return a * b;
    if (op == Op::Min) return std::fmin(a, b);
    if (op == Op::Max) return std::fmax(a, b);
  }
  if (op == Op::Min) return b < a ? b : a;
  return a < b ? b : a; // Max
}

template <class T>
std::vector<T> reference_scan(const std::vector<T>& in, Op op, ScanKind kind, T init) {
  std::vector<T> out(in.size());
  if (in.empty()) return out;
  T acc = kind == ScanKind::Exclusive ? init : in[0];
  std::size_t i = 0;
  if (kind == ScanKind::Inclusive) out[i++] = acc;
  for (; i < in.size(); ++i) {
    if (kind == ScanKind::Exclusive) {
      out[i] = acc;
      acc = apply(op, acc, in[i]);
    } else {
      acc = apply(op, acc, in[i]);
      out[i] = acc;
    }
  }
  return out;
}

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

template <class T>
T make_init(Op op) {
  if (op == Op::Product) return T(3);
  if constexpr (std::is_integral_v<T>) {
    if (op == Op::BitAnd) return static_cast<T>(~T(0) ^ T(6));
  }
  return T(5);
}

} // namespace scantune::test
