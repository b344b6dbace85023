// Reproducible floating-point scans: the same bits on every run, for every look-back
// algorithm's reproducible form and through a reproducible scanner's dispatch.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "common/gpu.hpp"
#include "common/spec_sets.hpp"
#include "scan_request.hpp"

namespace scantune::test {
namespace {

// Random values of mixed sign and magnitude: float sums then depend on the order.
template <class T>
std::vector<T> mixed_floats(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<T> v(n);
  for (auto& x : v)
    x = static_cast<T>(u(rng) * std::exp2(double(rng() % 16)));
  return v;
}

// Runs `scan` `runs` times on one input and checks that every output has the bits of
// the first, and that the first is within the tolerance of a float64 reference:
// |error| <= (tiles + 64) * eps * sum of |x| up to i (the association depth bound of
// gpu_scan_test.cpp's RandomFloatsWithinTolerance, on absolute values).
template <class T, class Scan>
void check_runs(ScanKind kind, std::size_t n, std::size_t tile, int runs, const std::string& what,
                Scan scan) {
  const auto in = mixed_floats<T>(n, n);
  DeviceBuffer<T> d_in(n), d_out(n);
  d_in.upload(in);
  std::vector<T> first;
  for (int run = 0; run < runs; ++run) {
    d_out.poison();
    scan(d_in.ptr, d_out.ptr, n);
    SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
    auto got = d_out.download(n);
    if (run == 0) {
      first = got;
      const double eps = std::is_same_v<T, float> ? 0x1p-24 : 0x1p-53;
      const double depth = double(n / tile) + 65;
      double exact = 0, magnitude = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (kind == ScanKind::Inclusive) {
          exact += double(in[i]);
          magnitude += std::abs(double(in[i]));
        }
        ASSERT_LE(std::abs(double(got[i]) - exact), depth * eps * magnitude)
            << what << " n=" << n << " at " << i;
        if (kind == ScanKind::Exclusive) {
          exact += double(in[i]);
          magnitude += std::abs(double(in[i]));
        }
      }
      continue;
    }
    ASSERT_EQ(std::memcmp(got.data(), first.data(), n * sizeof(T)), 0)
        << what << " n=" << n << ": run " << run << " differs from run 0";
  }
}

TEST_F(GpuTest, ReproducibleLookBacksGiveTheSameBitsOnEveryRun) {
  Scanner scanner;
  const std::vector<const char*> keys{"lookback_warp.tpb128.ipt8.vec4.warp_scans.repro",
                                      "lookback_warp.tpb256.ipt8.vec2.warp_scans.span2.loop.repro",
                                      "lookback_pipelined.tpb256.ipt8.vec4.warp_scans.wxpose.repro",
                                      "lookback_bulk.tpb256.ipt16.vec4.warp_scans.st4.repro",
                                      "lookback_thread.tpb128.ipt8.vec4.warp_scans.repro",
                                      "chained.tpb256.ipt8.vec4.warp_scans.repro"};
  for (const char* key : keys) {
    const Policy p = Policy::parse(key);
    for (std::size_t n : {std::size_t{100003}, (std::size_t{1} << 22) + 1}) {
      check_runs<float>(ScanKind::Inclusive, n, p.tile_items(), 20, key,
                        [&](const float* in, float* out, std::size_t m) {
                          scantune::detail::scan_with(scanner, p, ScanKind::Inclusive, in, out, m,
                                                      Op::Sum);
                        });
      Policy wide = p; // the same 16-byte vectors of 8-byte elements
      if (wide.vector_width == 4) wide.vector_width = 2;
      check_runs<double>(ScanKind::Exclusive, n, wide.tile_items(), 5, wide.key(),
                         [&](const double* in, double* out, std::size_t m) {
                           scantune::detail::scan_with(scanner, wide, ScanKind::Exclusive, in, out,
                                                       m, Op::Sum, 0.0);
                         });
    }
  }
}

// Through dispatch: ScannerOptions::reproducible, at sizes whose tuned policies use
// several algorithms, 20 runs each.
TEST_F(GpuTest, ReproducibleScannerDispatch) {
  ScannerOptions o;
  o.database = "off";
  o.reproducible = true;
  Scanner scanner(o);
  for (std::size_t n : {std::size_t{1} << 16, (std::size_t{1} << 20) + 7, std::size_t{1} << 24,
                        (std::size_t{1} << 27) + 3}) {
    const Policy p =
        detail::ScannerAccess::choose(scanner, DataType::Float32, Op::Sum, ScanKind::Inclusive, n);
    EXPECT_EQ(p.reproducible, p.uses_tile_status()) << p.key();
    check_runs<float>(ScanKind::Inclusive, n, p.tile_items(), 20, p.key(),
                      [&](const float* in, float* out, std::size_t m) {
                        scanner.inclusive_scan(in, out, m, Op::Sum);
                      });
  }
}

} // namespace
} // namespace scantune::test
