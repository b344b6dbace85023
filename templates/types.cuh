// Element-type traits for NVRTC-compiled scan kernels. Device-only: no host or
// standard headers, so every template compiles under NVRTC as it stands.
#pragma once

namespace scantune {

// Unsigned twin of each integer type: integer Sum and Product wrap modulo 2^bits
// by computing in the unsigned twin (signed overflow is undefined in C++).
template <class T>
struct unsigned_of {
  typedef T type;
};
template <>
struct unsigned_of<int> {
  typedef unsigned int type;
};
template <>
struct unsigned_of<long long> {
  typedef unsigned long long type;
};

template <class T>
struct type_limits;
template <>
struct type_limits<int> {
  static __device__ __forceinline__ int lowest() { return -2147483647 - 1; }
  static __device__ __forceinline__ int highest() { return 2147483647; }
};
template <>
struct type_limits<unsigned int> {
  static __device__ __forceinline__ unsigned int lowest() { return 0u; }
  static __device__ __forceinline__ unsigned int highest() { return 0xffffffffu; }
};
template <>
struct type_limits<long long> {
  static __device__ __forceinline__ long long lowest() { return -9223372036854775807ll - 1; }
  static __device__ __forceinline__ long long highest() { return 9223372036854775807ll; }
};
template <>
struct type_limits<unsigned long long> {
  static __device__ __forceinline__ unsigned long long lowest() { return 0ull; }
  static __device__ __forceinline__ unsigned long long highest() { return 0xffffffffffffffffull; }
};

template <class T>
struct is_integer {
  static const bool value = true;
};
template <>
struct is_integer<float> {
  static const bool value = false;
};
template <>
struct is_integer<double> {
  static const bool value = false;
};

template <class A, class B>
struct same_type {
  static const bool value = false;
};
template <class A>
struct same_type<A, A> {
  static const bool value = true;
};

// Raw vector type moving `BYTES` bytes in one instruction (1 to 16).
template <int BYTES>
struct raw_vector;
template <>
struct raw_vector<1> {
  typedef unsigned char type;
};
template <>
struct raw_vector<2> {
  typedef unsigned short type;
};
template <>
struct raw_vector<4> {
  typedef unsigned int type;
};
template <>
struct raw_vector<8> {
  typedef uint2 type;
};
// A 12-byte struct value, element by element (no 12-byte access exists: three words).
template <>
struct raw_vector<12> {
  typedef uint3 type;
};
template <>
struct raw_vector<16> {
  typedef uint4 type;
};

// Storage-only element types of inputs and outputs: IEEE half and bfloat16, as bits.
// Scans accumulate them in float (the host's default accumulator), so they need no
// arithmetic here and no toolkit header under NVRTC, only conversions.
struct __align__(2) half_t {
  unsigned short bits;
};
struct __align__(2) bfloat16_t {
  unsigned short bits;
};

__device__ __forceinline__ float to_float(half_t x) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(x.bits));
  return f;
}
__device__ __forceinline__ float to_float(bfloat16_t x) {
  return __uint_as_float(unsigned(x.bits) << 16);
}
__device__ __forceinline__ half_t to_half(float f) {
  half_t h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(f));
  return h;
}
__device__ __forceinline__ bfloat16_t to_bfloat16(float f) {
  bfloat16_t h;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h.bits) : "f"(f));
  return h;
}

template <class T>
struct is_storage_float {
  static const bool value = false;
};
template <>
struct is_storage_float<half_t> {
  static const bool value = true;
};
template <>
struct is_storage_float<bfloat16_t> {
  static const bool value = true;
};
__device__ __forceinline__ void from_float(float f, half_t& h) {
  h = to_half(f);
}
__device__ __forceinline__ void from_float(float f, bfloat16_t& h) {
  h = to_bfloat16(f);
}

// Element conversions between an input, the accumulator and an output type: C++'s
// (integers wrap to a narrower output, as integer scans do at their own width);
// half and bfloat16 go through float.
template <class To, class From>
__device__ __forceinline__ To convert(From x) {
  if constexpr (same_type<To, From>::value) {
    return x;
  } else if constexpr (is_storage_float<From>::value) {
    return convert<To>(to_float(x));
  } else if constexpr (is_storage_float<To>::value) {
    To y;
    from_float(float(x), y);
    return y;
  } else {
    return To(x);
  }
}

} // namespace scantune
