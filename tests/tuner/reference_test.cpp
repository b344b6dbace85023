// The host reference (tuner/reference.hpp) against independent, naive computations:
// every type x operator x kind, integer wrap-around, exact float value sets, init
// values and the input generator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "common/compare.hpp"
#include "tuner/gpu/reference.hpp"
#include "tuner/gpu/type_dispatch.hpp"

namespace scantune::tuner {
namespace {

using test::as_values;

const DataType kTypes[] = {DataType::Int32,  DataType::UInt32,  DataType::Int64,
                           DataType::UInt64, DataType::Float32, DataType::Float64};
const Op kOps[] = {Op::Sum, Op::Product, Op::Min, Op::Max, Op::BitAnd, Op::BitOr, Op::BitXor};
const ScanKind kKinds[] = {ScanKind::Inclusive, ScanKind::Exclusive};

template <class T>
T from_bits(std::uint64_t bits) {
  T v;
  std::memcpy(&v, &bits, sizeof(T));
  return v;
}

template <class T>
std::string label(Op op, ScanKind kind, std::size_t n) {
  return std::string(to_string(data_type_of<T>())) + " " + std::string(to_string(op)) + " " +
         std::string(to_string(kind)) + " n=" + std::to_string(n);
}

// op folded over xs, computed differently from the reference: integer Sum and
// Product in 64-bit unsigned arithmetic truncated at the end (the truncation is a
// ring homomorphism), floats in long double, min/max through std::min/std::max.
template <class T>
T naive_fold(Op op, const std::vector<T>& xs) {
  if constexpr (std::is_integral_v<T>) {
    std::uint64_t acc = static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(xs[0]));
    T m = xs[0];
    for (std::size_t k = 1; k < xs.size(); ++k) {
      const auto x = static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(xs[k]));
      switch (op) {
      case Op::Sum:
        acc += x;
        break;
      case Op::Product:
        acc *= x;
        break;
      case Op::BitAnd:
        acc &= x;
        break;
      case Op::BitOr:
        acc |= x;
        break;
      case Op::BitXor:
        acc ^= x;
        break;
      case Op::Min:
        m = std::min(m, xs[k]);
        break;
      case Op::Max:
        m = std::max(m, xs[k]);
        break;
      }
    }
    if (op == Op::Min || op == Op::Max) return m;
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(acc));
  } else {
    long double acc = xs[0];
    for (std::size_t k = 1; k < xs.size(); ++k) {
      if (op == Op::Sum) acc += xs[k];
      if (op == Op::Product) acc *= xs[k];
      if (op == Op::Min) acc = std::min<long double>(acc, xs[k]);
      if (op == Op::Max) acc = std::max<long double>(acc, xs[k]);
    }
    return static_cast<T>(acc);
  }
}

// out[i] recomputed from scratch for every i (quadratic, so small n only).
template <class T>
std::vector<T> naive_scan(Op op, ScanKind kind, ValueSet set, std::uint64_t seed, std::size_t n,
                          T init) {
  std::vector<T> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<T> xs;
    if (kind == ScanKind::Exclusive) xs.push_back(init);
    const std::size_t last = kind == ScanKind::Exclusive ? i : i + 1;
    for (std::size_t k = 0; k < last; ++k)
      xs.push_back(input_value<T>(set, seed, k));
    out[i] = naive_fold(op, xs);
  }
  return out;
}

TEST(ReferenceTest, MatchesNaiveScanForEveryTypeOpKind) {
  for (DataType type : kTypes)
    for (Op op : kOps) {
      if (!op_applies(type, op)) continue;
      for (ScanKind kind : kKinds)
        for (std::size_t n : {0, 1, 2, 31, 1000})
          for (std::uint64_t seed : {1u, 42u}) {
            with_type(type, [&](auto tag) {
              using T = decltype(tag);
              const ValueSet set = value_set_for(type, op, false);
              const std::uint64_t init = init_bits(type, op, false);
              const auto got = as_values<T>(reference_scan(type, op, kind, set, seed, n, init));
              const auto want = naive_scan<T>(op, kind, set, seed, n, from_bits<T>(init));
              ASSERT_EQ(got.size(), n);
              for (std::size_t i = 0; i < n; ++i)
                ASSERT_EQ(got[i], want[i]) << label<T>(op, kind, n) << " i=" << i;
            });
          }
    }
}

// One step of op with the documented semantics, for the linear check below.
template <class T>
T step(Op op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    if (op == Op::Sum) return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    if (op == Op::Product)
      return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
    if (op == Op::BitAnd) return static_cast<T>(a & b);
    if (op == Op::BitOr) return static_cast<T>(a | b);
    if (op == Op::BitXor) return static_cast<T>(a ^ b);
  } else {
    if (op == Op::Sum) return a + b;
    if (op == Op::Product) return a * b;
  }
  return op == Op::Min ? std::min(a, b) : std::max(a, b);
}

// Sizes of several million run in parallel chunks (where the value set makes that
// exact): the result must still be the sequential scan's, bit for bit.
template <class T>
void check_large(Op op, ValueSet set) {
  constexpr std::size_t n = (std::size_t{1} << 22) + 3;
  const DataType type = data_type_of<T>();
  for (ScanKind kind : kKinds) {
    const std::uint64_t bits = init_bits(type, op, false);
    const auto got = as_values<T>(reference_scan(type, op, kind, set, 21, n, bits));
    ASSERT_EQ(got.size(), n);
    T acc = from_bits<T>(bits);
    for (std::size_t i = 0; i < n; ++i) {
      const T x = input_value<T>(set, 21, i);
      if (kind == ScanKind::Exclusive) {
        ASSERT_EQ(got[i], acc) << label<T>(op, kind, n) << " i=" << i;
      }
      acc = (i == 0 && kind == ScanKind::Inclusive) ? x : step(op, acc, x);
      if (kind == ScanKind::Inclusive) {
        ASSERT_EQ(got[i], acc) << label<T>(op, kind, n) << " i=" << i;
      }
    }
  }
}

TEST(ReferenceTest, LargeScansMatchTheSequentialScan) {
  check_large<std::int32_t>(Op::Sum, ValueSet::Walk);
  check_large<std::uint32_t>(Op::BitXor, ValueSet::Walk);
  check_large<std::uint64_t>(Op::Product, ValueSet::Walk);
  check_large<std::int64_t>(Op::Min, ValueSet::Walk);
  check_large<float>(Op::Sum, ValueSet::Walk);
  check_large<double>(Op::Product, ValueSet::Signs);
  check_large<float>(Op::Max, ValueSet::Wide);
  check_large<float>(Op::Sum, ValueSet::Wide); // rounds: must stay sequential
}

TEST(ReferenceTest, ReturnsElementBytes) {
  EXPECT_EQ(
      reference_scan(DataType::Int32, Op::Sum, ScanKind::Inclusive, ValueSet::Walk, 1, 7, 0).size(),
      7u * 4u);
  EXPECT_EQ(reference_scan(DataType::Float64, Op::Max, ScanKind::Exclusive, ValueSet::Wide, 1, 5, 0)
                .size(),
            5u * 8u);
  EXPECT_TRUE(
      reference_scan(DataType::UInt64, Op::BitOr, ScanKind::Exclusive, ValueSet::Walk, 1, 0, 0)
          .empty());
}

template <class T>
void check_sum_wraps() {
  constexpr std::size_t n = 4096;
  const auto got = as_values<T>(
      reference_scan(data_type_of<T>(), Op::Sum, ScanKind::Inclusive, ValueSet::Walk, 3, n, 0));
  using U = std::make_unsigned_t<T>;
  bool wrapped = false;
  U acc = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const T x = input_value<T>(ValueSet::Walk, 3, i);
    const T prev = i == 0 ? T(0) : got[i - 1];
    // Signed overflow: both operands of one sign, the result of the other.
    if ((prev < 0) == (x < 0) && (got[i] < 0) != (x < 0)) wrapped = true;
    acc = static_cast<U>(acc + static_cast<U>(x));
    ASSERT_EQ(got[i], static_cast<T>(acc)) << "i=" << i;
  }
  EXPECT_TRUE(wrapped) << "random " << sizeof(T) * 8 << "-bit values must overflow the sum";
}

TEST(ReferenceTest, Int32SumWrapsModulo2To32) {
  check_sum_wraps<std::int32_t>();
}
TEST(ReferenceTest, Int64SumWrapsModulo2To64) {
  check_sum_wraps<std::int64_t>();
}

TEST(ReferenceTest, Int32ProductWraps) {
  const auto got = as_values<std::int32_t>(
      reference_scan(DataType::Int32, Op::Product, ScanKind::Exclusive, ValueSet::Walk, 9, 100, 3));
  std::uint32_t acc = 3;
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i], static_cast<std::int32_t>(acc)) << "i=" << i;
    acc *= static_cast<std::uint32_t>(input_value<std::int32_t>(ValueSet::Walk, 9, i));
  }
}

// With the tuner's value sets, float scans are exact: compare with int64 arithmetic.
template <class T>
void check_float_exact(Op op, ScanKind kind) {
  constexpr std::size_t n = std::size_t{1} << 20;
  const DataType type = data_type_of<T>();
  const ValueSet set = value_set_for(type, op, false);
  const std::uint64_t bits = init_bits(type, op, false);
  const auto got = as_values<T>(reference_scan(type, op, kind, set, 11, n, bits));
  ASSERT_EQ(got.size(), n);
  // acc holds the exclusive prefix before element i, the inclusive one after it.
  std::int64_t acc = static_cast<std::int64_t>(from_bits<T>(bits));
  bool have = kind == ScanKind::Exclusive;
  for (std::size_t i = 0; i < n; ++i) {
    const T value = input_value<T>(set, 11, i);
    const auto x = static_cast<std::int64_t>(value);
    ASSERT_EQ(static_cast<T>(x), value) << "values are integers";
    if (kind == ScanKind::Exclusive) {
      ASSERT_EQ(got[i], static_cast<T>(acc)) << label<T>(op, kind, n) << " i=" << i;
    }
    if (!have)
      acc = x;
    else if (op == Op::Sum)
      acc += x;
    else if (op == Op::Product)
      acc *= x;
    else if (op == Op::Min)
      acc = std::min(acc, x);
    else
      acc = std::max(acc, x);
    have = true;
    if (kind == ScanKind::Inclusive) {
      ASSERT_EQ(got[i], static_cast<T>(acc)) << label<T>(op, kind, n) << " i=" << i;
    }
  }
}

TEST(ReferenceTest, FloatScansAreExactAt2To20) {
  for (Op op : {Op::Sum, Op::Product, Op::Min, Op::Max})
    for (ScanKind kind : kKinds) {
      check_float_exact<float>(op, kind);
      check_float_exact<double>(op, kind);
    }
}

TEST(ReferenceTest, ValueSets) {
  for (DataType t : {DataType::Float32, DataType::Float64}) {
    EXPECT_EQ(value_set_for(t, Op::Sum, false), ValueSet::Walk);
    EXPECT_EQ(value_set_for(t, Op::Product, false), ValueSet::Signs);
    EXPECT_EQ(value_set_for(t, Op::Min, false), ValueSet::Wide);
    EXPECT_EQ(value_set_for(t, Op::Max, false), ValueSet::Wide);
    EXPECT_EQ(value_set_for(t, Op::Product, true), ValueSet::Walk);
  }
  EXPECT_EQ(value_set_for(DataType::Int32, Op::Max, false), ValueSet::Walk);
}

template <class T>
T identity_of(Op op) {
  switch (op) {
  case Op::Sum:
  case Op::BitOr:
  case Op::BitXor:
    return T(0);
  case Op::Product:
    return T(1);
  case Op::Min:
    return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::max();
  case Op::Max:
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::lowest();
  case Op::BitAnd:
    break;
  }
  return static_cast<T>(~std::uint64_t{0}); // BitAnd on integers: all ones
}

TEST(ReferenceTest, InitIsNotTheIdentity) {
  for (DataType type : kTypes)
    for (Op op : kOps) {
      if (!op_applies(type, op)) continue;
      with_type(type, [&](auto tag) {
        using T = decltype(tag);
        const std::uint64_t bits = init_bits(type, op, false);
        EXPECT_NE(from_bits<T>(bits), identity_of<T>(op)) << label<T>(op, ScanKind::Exclusive, 0);
        if (sizeof(T) < 8) {
          EXPECT_EQ(bits >> (8 * sizeof(T)), 0u) << "unused bytes are zero";
        }
        EXPECT_EQ(init_bits(type, op, true), 0u) << "custom operators use T(0)";
      });
    }
  EXPECT_EQ(from_bits<std::int32_t>(init_bits(DataType::Int32, Op::Sum, false)), 3);
  EXPECT_EQ(from_bits<double>(init_bits(DataType::Float64, Op::Product, false)), -1.0);
  EXPECT_EQ(from_bits<float>(init_bits(DataType::Float32, Op::Min, false)), 3.0f);
  EXPECT_EQ(from_bits<std::uint32_t>(init_bits(DataType::UInt32, Op::BitXor, false)), 0x5A5A5A5Au);
}

TEST(ReferenceTest, BitwiseOperatorsOnFloatsThrow) {
  EXPECT_THROW(
      reference_scan(DataType::Float32, Op::BitAnd, ScanKind::Inclusive, ValueSet::Walk, 1, 10, 0),
      Error);
  EXPECT_THROW(init_bits(DataType::Float64, Op::BitXor, false), Error);
}

TEST(ReferenceTest, InputValuesAreNeverZero) {
  for (DataType type : kTypes)
    for (ValueSet set : {ValueSet::Walk, ValueSet::Signs, ValueSet::Wide})
      with_type(type, [&](auto tag) {
        using T = decltype(tag);
        for (std::uint64_t seed : {0u, 1u, 12345u})
          for (std::uint64_t i = 0; i < 200000; ++i)
            ASSERT_NE(input_value<T>(set, seed, i), T(0))
                << to_string(type) << " set " << static_cast<int>(set) << " i=" << i;
      });
}

TEST(ReferenceTest, FloatValueSetsHaveTheDocumentedRanges) {
  for (std::uint64_t i = 0; i < 100000; ++i) {
    const double w = input_value<double>(ValueSet::Walk, 5, i);
    EXPECT_TRUE(w == -2 || w == -1 || w == 1 || w == 2) << w;
    const double s = input_value<double>(ValueSet::Signs, 5, i);
    EXPECT_TRUE(s == -1 || s == 1) << s;
    const double m = input_value<double>(ValueSet::Wide, 5, i);
    EXPECT_TRUE(m == static_cast<double>(static_cast<std::int64_t>(m)) && m != 0 &&
                m >= -(1 << 20) && m <= (1 << 20))
        << m;
  }
}

// The scan of a vector (the runtime tests' reference) is the same scan as that of
// the generated input.
TEST(ReferenceTest, VectorScanMatchesTheGeneratedInputsScan) {
  constexpr std::size_t n = 1000;
  for (DataType type : kTypes)
    for (Op op : kOps)
      for (ScanKind kind : kKinds) {
        if (!op_applies(type, op)) continue;
        with_type(type, [&](auto tag) {
          using T = decltype(tag);
          const ValueSet set = value_set_for(type, op, false);
          const std::uint64_t init = init_bits(type, op, false);
          std::vector<T> in(n);
          for (std::size_t i = 0; i < n; ++i)
            in[i] = input_value<T>(set, 5, i);
          EXPECT_EQ(reference_scan(in, op, kind, from_bits<T>(init)),
                    as_values<T>(reference_scan(type, op, kind, set, 5, n, init)))
              << label<T>(op, kind, n);
        });
      }
  EXPECT_TRUE(reference_scan(std::vector<float>{}, Op::Max, ScanKind::Exclusive, 1.0f).empty());
}

// A converting reference runs converted, scanned and stored in chunks on every core;
// the sequential scan of the converted inputs must give the same bytes.
template <class In, class A, class Out>
void check_converting(const char* spec, Op op, ScanKind kind) {
  constexpr std::size_t n = (std::size_t{1} << 22) + 3; // chunks of unequal length
  const ScanTypes types = parse_scan_types(spec);
  const ValueSet set = value_set_for(types.acc, op, false);
  const std::uint64_t init = init_bits(types.acc, op, false);
  std::vector<A> in(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<In, float>)
      in[i] = static_cast<A>(narrow_float_value(set, 9, i)); // a half or bfloat16 input
    else
      in[i] = static_cast<A>(input_value<In>(set, 9, i));
  }
  const std::vector<A> scanned = reference_scan(in, op, kind, from_bits<A>(init));
  std::vector<Out> want(n);
  for (std::size_t i = 0; i < n; ++i)
    want[i] = static_cast<Out>(scanned[i]);
  EXPECT_EQ(as_values<Out>(reference_scan(types, op, kind, set, 9, n, init)), want)
      << spec << " " << to_string(op) << " " << to_string(kind);
}

TEST(ReferenceTest, ConvertingScansInChunksMatchTheSequentialScan) {
  for (ScanKind kind : kKinds) {
    check_converting<std::int8_t, std::int32_t, std::int8_t>("int8", Op::Sum, kind);
    check_converting<std::uint8_t, std::int32_t, std::int32_t>("uint8:int32", Op::Sum, kind);
    check_converting<float, float, float>("float16:float32", Op::Sum, kind);
    check_converting<std::int16_t, std::int64_t, std::int64_t>("int16:int64", Op::Max, kind);
  }
}

} // namespace
} // namespace scantune::tuner
