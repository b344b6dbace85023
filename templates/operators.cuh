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

// Integer min/max keep the left operand on ties. Float min/max ignore NaN operands
// (IEEE 754 minNum/maxNum), so their identity is NaN: unlike `a < b ? b : a`, which
// returns its left operand whenever either is NaN, they are associative with NaNs,
// and a result never depends on how a policy groups the elements. float: fminf/fmaxf,
// one FMNMX where the compare-and-select is two instructions; double: the
// compare-and-select plus a NaN test of the left operand, as sm_90 has no FP64
// min/max instruction and fmin/fmax cost 13% at 2^26 (docs/decisions.md, "NaN-ignoring
// float min/max"). The host references use the same definitions.
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
// NaN-ignoring float min (MAX false) / max, identity NaN.
template <class T, bool MAX>
struct float_extreme;
template <bool MAX>
struct float_extreme<float, MAX> {
  static __device__ __forceinline__ float identity() { return __int_as_float(0x7fffffff); }
  __device__ __forceinline__ float operator()(float a, float b) const {
    return MAX ? fmaxf(a, b) : fminf(a, b);
  }
};
template <bool MAX>
struct float_extreme<double, MAX> {
  static __device__ __forceinline__ double identity() {
    return __longlong_as_double(0x7fffffffffffffffll);
  }
  __device__ __forceinline__ double operator()(double a, double b) const {
    return (MAX ? a < b : b < a) || a != a ? b : a;
  }
};
template <>
struct op_min<float> : float_extreme<float, false> {};
template <>
struct op_max<float> : float_extreme<float, true> {};
template <>
struct op_min<double> : float_extreme<double, false> {};
template <>
struct op_max<double> : float_extreme<double, true> {};

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

// A reverse scan is a forward scan of the reversed sequence under op'(a, b) = op(b, a)
// (associative when op is): every fold keeps the elements in their left-to-right order.
template <class Op>
struct reversed_op {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return Op()(b, a);
  }
  static __device__ __forceinline__ decltype(Op::identity()) identity() { return Op::identity(); }
};

// Sums of 1- and 2-byte integers into 32-bit accumulators, a word at a time: dp4a adds
// the four bytes of a word (dp2a.lo its two halves) to an accumulator in one
// instruction, where converting and adding each element costs two. lookback_bulk's one
// reducer warp folds every tile, and at one byte per element that work bounded the
// scan (docs/decisions.md, "Byte sums").
template <class Op>
struct is_sum_op {
  static const bool value = false;
};
template <class T>
struct is_sum_op<op_sum<T>> {
  static const bool value = true;
};
template <class Op>
struct is_sum_op<reversed_op<Op>> : is_sum_op<Op> {};

// Elements of In per 32-bit word, and whether they are signed.
template <class In>
struct packed_lanes {
  static const int value = 0;
  static const bool is_signed = false;
};
template <>
struct packed_lanes<signed char> {
  static const int value = 4;
  static const bool is_signed = true;
};
template <>
struct packed_lanes<unsigned char> {
  static const int value = 4;
  static const bool is_signed = false;
};
template <>
struct packed_lanes<short> {
  static const int value = 2;
  static const bool is_signed = true;
};
template <>
struct packed_lanes<unsigned short> {
  static const int value = 2;
  static const bool is_signed = false;
};

template <class T, class Op, class In>
struct packed_sum {
  // Elements a word adds at once; 0 where this sum has no packed form.
  static const int lanes =
      is_sum_op<Op>::value && (same_type<T, int>::value || same_type<T, unsigned>::value)
          ? packed_lanes<In>::value
          : 0;
  // c + the elements of word w (wrapping as the accumulator's sums do).
  static __device__ __forceinline__ T add(unsigned w, T c) {
    const bool sig = packed_lanes<In>::is_signed;
    unsigned d;
    if (lanes == 4 && sig)
      asm("dp4a.s32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(w), "r"(0x01010101u), "r"(unsigned(c)));
    else if (lanes == 4)
      asm("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(w), "r"(0x01010101u), "r"(unsigned(c)));
    else if (sig)
      asm("dp2a.lo.s32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(w), "r"(0x0101u), "r"(unsigned(c)));
    else
      asm("dp2a.lo.u32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(w), "r"(0x0101u), "r"(unsigned(c)));
    return T(d);
  }
};

// Byte sums whose output is bytes (int8 and uint8 sums wrap at 8 bits however wide the
// accumulator): a word's four inclusive prefixes without unpacking it, the even bytes'
// in the 16-bit lanes of `even`, the odd bytes' in those of `odd` (no lane exceeds
// 4 x 255 + 255, so no carry crosses a lane).
struct byte_prefix {
  unsigned even, odd;
  __device__ __forceinline__ byte_prefix() : even(0u), odd(0u) {}
  __device__ __forceinline__ explicit byte_prefix(unsigned w) {
    const unsigned e = w & 0x00FF00FFu, o = (w >> 8) & 0x00FF00FFu;
    const unsigned pair = e + o; // b0 + b1 | b2 + b3
    even = e + (pair << 16);     // b0 | b0 + b1 + b2
    odd = pair + (pair << 16);   // b0 + b1 | b0 + b1 + b2 + b3
  }
  // The word's sum, its bytes read unsigned (equal modulo 256 to the signed sum).
  __device__ __forceinline__ unsigned total() const { return odd >> 16; }
  // The prefixes plus c, modulo 256, as the word's four bytes; exclusive: one byte
  // later, c first.
  __device__ __forceinline__ unsigned bytes(unsigned c, bool exclusive) const {
    const unsigned add = (c & 0xFFu) * 0x00010001u;
    const unsigned incl = ((even + add) & 0x00FF00FFu) | (((odd + add) & 0x00FF00FFu) << 8);
    return exclusive ? (incl << 8) | (c & 0xFFu) : incl;
  }
};

} // namespace scantune
