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

// Raw vector type moving `BYTES` bytes in one instruction (4, 8 or 16).
template <int BYTES>
struct raw_vector;
template <>
struct raw_vector<4> {
  typedef unsigned int type;
};
template <>
struct raw_vector<8> {
  typedef uint2 type;
};
template <>
struct raw_vector<16> {
  typedef uint4 type;
};

} // namespace scantune
