// Element-type dispatch and operator validity, shared by the tuner's host code, its
// nvcc-compiled helpers and its tests.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "policy.hpp"
#include "scantune/scantune.hpp"

namespace scantune::tuner {

inline bool is_bitwise(Op op) {
  return op == Op::BitAnd || op == Op::BitOr || op == Op::BitXor;
}
inline bool is_floating(DataType type) {
  return type == DataType::Float32 || type == DataType::Float64;
}
/// Whether a built-in operator is defined for `type` (bitwise ones need integers).
inline bool op_applies(DataType type, Op op) {
  return !(is_bitwise(op) && is_floating(type));
}

/// Calls f(T{}) with the C++ element type of `type` (scantune::visit_type).
template <class F>
decltype(auto) with_type(DataType type, F&& f) {
  return visit_type(type, std::forward<F>(f));
}

/// Tags of the 16-bit floating-point storage types, whose C++ types (__half,
/// __nv_bfloat16) only CUDA's headers define: each user maps them to its own.
struct Float16Tag {};
struct BFloat16Tag {};

/// with_type for every element type a converting scan stores: the 8- and 16-bit
/// integers, Float16Tag and BFloat16Tag, and the accumulator types.
template <class F>
decltype(auto) with_storage_type(DataType type, F&& f) {
  switch (type) {
  case DataType::Int8:
    return f(std::int8_t{});
  case DataType::UInt8:
    return f(std::uint8_t{});
  case DataType::Int16:
    return f(std::int16_t{});
  case DataType::UInt16:
    return f(std::uint16_t{});
  case DataType::Float16:
    return f(Float16Tag{});
  case DataType::BFloat16:
    return f(BFloat16Tag{});
  default:
    return with_type(type, std::forward<F>(f));
  }
}

} // namespace scantune::tuner
