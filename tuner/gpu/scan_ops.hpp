// The built-in operators with the device semantics, on the host: integer arithmetic
// on the unsigned type (wraps, no UB); integer min/max keep the left operand on ties,
// float min/max are fmin/fmax (a NaN operand is ignored). The host reference scans
// (reference.hpp) are built on them.
#pragma once

#include <cmath>
#include <string>
#include <type_traits>

#include "scantune/scantune.hpp"

namespace scantune::tuner {

template <class T>
struct SumOp {
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    } else {
      return a + b;
    }
  }
};
template <class T>
struct ProductOp {
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
    } else {
      return a * b;
    }
  }
};
template <class T>
struct MinOp {
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>)
      return std::fmin(a, b);
    else
      return b < a ? b : a;
  }
};
template <class T>
struct MaxOp {
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>)
      return std::fmax(a, b);
    else
      return a < b ? b : a;
  }
};
template <class T>
struct AndOp {
  T operator()(T a, T b) const { return static_cast<T>(a & b); }
};
template <class T>
struct OrOp {
  T operator()(T a, T b) const { return static_cast<T>(a | b); }
};
template <class T>
struct XorOp {
  T operator()(T a, T b) const { return static_cast<T>(a ^ b); }
};

/// visit(F{}) with the functor of `op` for T, so that a loop over it inlines the
/// operator; throws scantune::Error for an operator T does not have.
template <class T, class Visit>
void with_op(Op op, Visit&& visit) {
  switch (op) {
  case Op::Sum:
    return visit(SumOp<T>{});
  case Op::Product:
    return visit(ProductOp<T>{});
  case Op::Min:
    return visit(MinOp<T>{});
  case Op::Max:
    return visit(MaxOp<T>{});
  case Op::BitAnd:
  case Op::BitOr:
  case Op::BitXor:
    if constexpr (std::is_integral_v<T>) {
      if (op == Op::BitAnd) return visit(AndOp<T>{});
      if (op == Op::BitOr) return visit(OrOp<T>{});
      return visit(XorOp<T>{});
    }
    break;
  }
  throw Error("reference scan: unsupported operator " + std::to_string(static_cast<int>(op)));
}

} // namespace scantune::tuner
