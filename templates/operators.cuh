// Built-in scan operators. Each is a functor with a static identity(); a custom
// operator generated at run time has the same shape.
#pragma once

#include "scantune/types.cuh"

namespace scantune {

template <class T>
struct op_sum {
  static __device__ __forceinline__ T identity() { return T(0); }
  __device__ __forceinline__ T operator()(T a, T b) const {
    typedef typename unsigned_of<T>::type U;
    return T(U(a) + U(b));
  }
};
template <>
struct op_sum<float> {
  static __device__ __forceinline__ float identity() { return 0.0f; }
  __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
};
template <>
struct op_sum<double> {
  static __device__ __forceinline__ double identity() { return 0.0; }
  __device__ __forceinline__ double operator()(double a, double b) const { return a + b; }
};

template <class T>
struct op_product {
  static __device__ __forceinline__ T identity() { return T(1); }
  __device__ __forceinline__ T operator()(T a, T b) const {
    typedef typename unsigned_of<T>::type U;
    return T(U(a) * U(b));
  }
};
template <>
struct op_product<float> {
  static __device__ __forceinline__ float identity() { return 1.0f; }
  __device__ __forceinline__ float operator()(float a, float b) const { return a * b; }
};
template <>
struct op_product<double> {
  static __device__ __forceinline__ double identity() { return 1.0; }
  __device__ __forceinline__ double operator()(double a, double b) const { return a * b; }
};

// min/max keep the left operand on ties and when the right one is NaN; the host
// reference uses the same definition.
template <class T>
struct op_min {
  static __device__ __forceinline__ T identity() { return type_limits<T>::highest(); }
  __device__ __forceinline__ T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T>
struct op_max {
  static __device__ __forceinline__ T identity() { return type_limits<T>::lowest(); }
  __device__ __forceinline__ T operator()(T a, T b) const { return a < b ? b : a; }
};

template <class T>
struct op_bit_and {
  static_assert(is_integer<T>::value, "bit_and applies to integer types only");
  static __device__ __forceinline__ T identity() { return T(~T(0)); }
  __device__ __forceinline__ T operator()(T a, T b) const { return T(a & b); }
};
template <class T>
struct op_bit_or {
  static_assert(is_integer<T>::value, "bit_or applies to integer types only");
  static __device__ __forceinline__ T identity() { return T(0); }
  __device__ __forceinline__ T operator()(T a, T b) const { return T(a | b); }
};
template <class T>
struct op_bit_xor {
  static_assert(is_integer<T>::value, "bit_xor applies to integer types only");
  static __device__ __forceinline__ T identity() { return T(0); }
  __device__ __forceinline__ T operator()(T a, T b) const { return T(a ^ b); }
};

} // namespace scantune
