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

} // namespace scantune::tuner
