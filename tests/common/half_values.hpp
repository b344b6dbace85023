// Host conversions of test values to and from half and bfloat16 (and plain types), as
// the device rounds them: to nearest even from float.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

namespace scantune::test {

template <class T>
constexpr bool is_half_like = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

template <class T>
double as_double(T x) {
  if constexpr (std::is_same_v<T, __half>)
    return __half2float(x);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __bfloat162float(x);
  else
    return static_cast<double>(x);
}

template <class T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, __half>)
    return __float2half_rn(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __float2bfloat16_rn(static_cast<float>(v));
  else
    return static_cast<T>(v);
}

} // namespace scantune::test
