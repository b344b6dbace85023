// The shipped logaddexp operator (logcumsumexp) on the GPU: float, double, and half and
// bfloat16 through float, forward and reversed, against a float64 reference, within
// the output's rounding plus float32's accumulation error, which grows with the
// combination depth: (n / 256 + 64) x 2^-24 of (|result| + 1).
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <limits>
#include <type_traits>

#include "common/gpu.hpp"
#include "common/half_values.hpp"
#include "scantune/scantune.hpp"

namespace scantune::test {
namespace {

double logaddexp(double a, double b) {
  const double hi = std::max(a, b), lo = std::min(a, b);
  return hi == -std::numeric_limits<double>::infinity() ? hi : hi + std::log1p(std::exp(lo - hi));
}

template <class T>
void check(std::size_t n, bool reverse) {
  std::vector<T> in(n);
  for (std::size_t i = 0; i < n; ++i) // [-5, 5], with -inf now and then (exp(-inf) = 0)
    in[i] = i % 97 == 5 ? from_double<T>(-std::numeric_limits<double>::infinity())
                        : from_double<T>(double((i * 2654435761u) >> 12 & 0xfffff) / 104857.6 - 5);
  DeviceBuffer<T> d_in(n), d_out(n);
  d_in.upload(in);
  Scanner s;
  if (reverse)
    s.reverse_inclusive_scan(d_in.ptr, d_out.ptr, n, logaddexp_op());
  else
    s.inclusive_scan(d_in.ptr, d_out.ptr, n, logaddexp_op());
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  const auto got = d_out.download(n);
  const double out_eps = std::is_same_v<T, __half>          ? 0x1p-11
                         : std::is_same_v<T, __nv_bfloat16> ? 0x1p-8
                         : std::is_same_v<T, float>         ? 0x1p-24
                                                            : 0x1p-53;
  const double acc_eps = std::is_same_v<T, double> ? 0x1p-53 : 0x1p-24;
  const double depth = double(n) / 256 + 64;
  double ref = -std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = reverse ? n - 1 - k : k;
    ref = logaddexp(ref, as_double(in[i]));
    const double tol = out_eps * std::fabs(ref) + depth * acc_eps * (std::fabs(ref) + 1);
    ASSERT_LE(std::fabs(as_double(got[i]) - ref), tol)
        << i << " of " << n << (reverse ? " reversed" : "");
  }
}

TEST_F(GpuTest, LogcumsumexpFloatTypesAgainstFloat64) {
  for (std::size_t n : {std::size_t{1}, std::size_t{4099}, (std::size_t{1} << 20) + 3}) {
    check<float>(n, false);
    check<double>(n, false);
    check<__half>(n, false);
    check<__nv_bfloat16>(n, false);
  }
  check<float>(100003, true);
}

TEST_F(GpuTest, LogcumsumexpOfMinusInfinityStaysMinusInfinity) {
  const std::size_t n = 3000;
  std::vector<float> in(n, -std::numeric_limits<float>::infinity());
  in[2000] = 1.5f;
  DeviceBuffer<float> d_in(n), d_out(n);
  d_in.upload(in);
  Scanner s;
  s.inclusive_scan(d_in.ptr, d_out.ptr, n, logaddexp_op());
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  const auto got = d_out.download(n);
  EXPECT_EQ(got[0], -std::numeric_limits<float>::infinity());
  EXPECT_EQ(got[1999], -std::numeric_limits<float>::infinity());
  EXPECT_EQ(got[2000], 1.5f);
  EXPECT_EQ(got[n - 1], 1.5f);
}

} // namespace
} // namespace scantune::test
