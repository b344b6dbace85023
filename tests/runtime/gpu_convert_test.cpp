// Converting scans (narrow and mixed types) on the GPU: every type pair the typed calls
// make, through dispatch and through every algorithm that converts, forward and reversed,
// at tile and warp edges, primes, misaligned and in place, against a host reference that
// converts and accumulates the same way: integers exact; half and bfloat16 of integral
// values exact too (float accumulates them exactly below 2^24, and the host rounds the
// output as the device does); random half and bfloat16 values against float64 with a
// tolerance that grows with n.
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "common/gpu.hpp"
#include "common/half_values.hpp"
#include "common/spec_sets.hpp"
#include "scan_request.hpp"

namespace scantune::test {
namespace {

// The device's conversions: C++'s for integers, half and bfloat16 through float.
template <class To, class From>
To convert(From x) {
  if constexpr (is_half_like<From>)
    return static_cast<To>(as_double(x));
  else if constexpr (is_half_like<To>)
    return from_double<To>(static_cast<double>(static_cast<float>(x)));
  else
    return static_cast<To>(x);
}

// The accumulator's operator: integer sums wrap, as the device's do.
template <class A>
A combine(Op op, A a, A b) {
  if (op == Op::Max) return std::max(a, b);
  if constexpr (std::is_integral_v<A>) {
    using U = std::make_unsigned_t<A>;
    return static_cast<A>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

template <class In, class A, class Out>
std::vector<Out> reference(const std::vector<In>& in, Op op, ScanKind kind, A init, bool reverse) {
  const std::size_t n = in.size();
  std::vector<Out> out(n);
  A acc = kind == ScanKind::Exclusive ? init : A{};
  bool any = kind == ScanKind::Exclusive;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = reverse ? n - 1 - k : k;
    const A x = convert<A>(in[i]);
    if (kind == ScanKind::Exclusive) out[i] = convert<Out>(acc);
    acc = !any ? x : reverse ? combine(op, x, acc) : combine(op, acc, x);
    any = true;
    if (kind == ScanKind::Inclusive) out[i] = convert<Out>(acc);
  }
  return out;
}

// Small integral values (exact in every type), nonzero mostly, of both signs where signed.
template <class In>
std::vector<In> inputs(std::size_t n, unsigned seed) {
  std::vector<In> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned h = static_cast<unsigned>(i * 2654435761u + seed * 40503u) >> 20;
    const bool is_signed = is_half_like<In> || std::is_signed_v<In>;
    v[i] = from_double<In>(is_signed ? int(h % 17) - 8 : int(h % 9) + 1);
  }
  return v;
}

struct Case {
  std::size_t n = 0, in_off = 0, out_off = 0;
  bool in_place = false, reverse = false;
  ScanKind kind = ScanKind::Inclusive;
  Op op = Op::Sum;
};

// One scan through ScannerAccess (an explicit policy, or dispatch when null).
template <class In, class Out>
::testing::AssertionResult run_case(Scanner& s, const Policy* policy, const Case& c) {
  const ScanTypes types = scan_types(data_type_of<In>(), data_type_of<Out>());
  return visit_type(types.acc, [&](auto tag) -> ::testing::AssertionResult {
    using A = decltype(tag);
    const std::vector<In> in = inputs<In>(c.n, static_cast<unsigned>(c.n + c.in_off));
    DeviceBuffer<In> d_in(c.n + 4); // room for the offsets
    DeviceBuffer<Out> d_out(c.n + 4);
    d_in.upload(in, c.in_off);
    d_out.poison();
    const A init = A(3);
    ScanRequest r;
    r.set_types(types);
    r.kind = c.kind;
    r.op = c.op;
    r.in = d_in.ptr + c.in_off;
    r.out = c.in_place ? static_cast<void*>(d_in.ptr + c.in_off) : d_out.ptr + c.out_off;
    r.n = c.n;
    r.init = &init;
    r.policy = policy;
    r.reverse = c.reverse;
    detail::ScannerAccess::scan(s, r);
    SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
    std::vector<Out> got(c.n);
    SCANTUNE_CUDA_TRY(cudaMemcpy(got.data(), r.out, c.n * sizeof(Out), cudaMemcpyDeviceToHost));
    const auto want = reference<In, A, Out>(in, c.op, c.kind, init, c.reverse);
    for (std::size_t i = 0; i < c.n; ++i)
      if (std::memcmp(&got[i], &want[i], sizeof(Out)) != 0)
        return ::testing::AssertionFailure()
               << to_string(types) << " " << to_string(c.op) << " " << to_string(c.kind)
               << (c.reverse ? " reverse" : "") << " n=" << c.n << " offsets " << c.in_off << "/"
               << c.out_off << (c.in_place ? " in place" : "") << " policy "
               << (policy ? policy->key() : "dispatched") << ": first mismatch at " << i << ": got "
               << as_double(got[i]) << ", want " << as_double(want[i]);
    return ::testing::AssertionSuccess();
  });
}

std::vector<std::size_t> sizes_around(std::size_t tile) {
  return {0, 1, 31, 32, 33, tile - 1, tile, tile + 1, 3 * tile + 7, 65537};
}

// Every algorithm that converts x tile I/O, forward (and lookback_warp and lookback_bulk
// reversed), sum, both kinds, misaligned and in place where the sizes allow. lookback_bulk
// also takes max (its partial tiles hold no identity padding: the readers mask them) and a
// size where every block cycles its stages and output buffers several times.
template <class In, class Out>
void every_algorithm() {
  Scanner s;
  const ScanTypes t = scan_types(data_type_of<In>(), data_type_of<Out>());
  const int vec = 16 / static_cast<int>(std::max(sizeof(In), sizeof(Out)));
  std::vector<Policy> policies{Policy::sequential()};
  for (Algorithm a : tile_algorithms())
    for (TileIO io : all_tile_ios()) {
      Policy p = make_policy(a, 128, 16, vec, BlockScan::WarpScans, io);
      if (p.invalid_reason(t)) continue;
      policies.push_back(p);
      if (a == Algorithm::LookbackWarp || a == Algorithm::LookbackBulk) {
        p.reverse = true;
        policies.push_back(p);
      }
    }
  for (const Policy& p : policies) {
    const bool bulk = p.algorithm == Algorithm::LookbackBulk;
    std::vector<std::size_t> sizes = sizes_around(128 * 16);
    if (bulk) sizes.push_back((std::size_t{1} << 23) + 13);
    for (std::size_t n : sizes) {
      if (p.algorithm == Algorithm::Sequential && n > 5000) continue;
      for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
        for (Op op : {Op::Sum, Op::Max}) {
          if (op == Op::Max && !bulk) continue;
          Case c{n, 0, 0, false, p.reverse, k, op};
          EXPECT_TRUE((run_case<In, Out>(s, &p, c)));
          c.in_off = 1;
          c.out_off = sizeof(In) == sizeof(Out) ? 1 : 2;
          EXPECT_TRUE((run_case<In, Out>(s, &p, c)));
          if (sizeof(In) == sizeof(Out)) {
            c.in_place = true;
            EXPECT_TRUE((run_case<In, Out>(s, &p, c)));
          }
        }
    }
  }
}

TEST_F(GpuTest, ConvertEveryAlgorithmInt8) {
  every_algorithm<std::int8_t, std::int8_t>();
}
TEST_F(GpuTest, ConvertEveryAlgorithmInt16) {
  every_algorithm<std::int16_t, std::int16_t>();
}
TEST_F(GpuTest, ConvertEveryAlgorithmUInt8ToInt32) {
  every_algorithm<std::uint8_t, std::int32_t>();
}
TEST_F(GpuTest, ConvertEveryAlgorithmHalf) {
  every_algorithm<__half, __half>();
}

// Few launches of the staged converting paths at widths that differ (compute-sanitizer
// racecheck runs this one): pipelined stages, block- and warp-transposed tiles.
TEST_F(GpuTest, ConvertSanitizeCases) {
  Scanner s;
  for (const char* key : {"lookback_pipelined.tpb128.ipt16.vec4.warp_scans",
                          "lookback_bulk.tpb128.ipt16.vec4.warp_scans.st4",
                          "lookback_warp.tpb128.ipt16.vec4.warp_scans.wxpose",
                          "lookback_warp.tpb128.ipt16.vec4.warp_scans"}) {
    const Policy p = Policy::parse(key);
    for (std::size_t n : {std::size_t{5000}, std::size_t{3 * 2048 + 7}}) {
      EXPECT_TRUE((run_case<std::uint8_t, std::int32_t>(s, &p, {n, 1, 2})));
      EXPECT_TRUE((run_case<__half, float>(s, &p, {n, 0, 0})));
    }
  }
  // Byte sums into bytes: the bulk consumers' word-at-a-time path (full, aligned tiles)
  // beside the element path of the last, partial tile; at 64 items a thread, the element
  // path reads a lane's elements twice (also for a misaligned output).
  for (const char* key : {"lookback_bulk.tpb128.ipt16.vec16.warp_scans.st4",
                          "lookback_bulk.tpb128.ipt64.vec16.warp_scans.st3"}) {
    const Policy bytes = Policy::parse(key);
    EXPECT_TRUE((run_case<std::int8_t, std::int8_t>(s, &bytes, {3 * 8192 + 7, 1, 2})));
    for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
      for (bool in_place : {false, true}) {
        EXPECT_TRUE(
            (run_case<std::int8_t, std::int8_t>(s, &bytes, {5000, 0, 0, in_place, false, k})));
        EXPECT_TRUE((run_case<std::uint8_t, std::uint8_t>(
            s, &bytes, {3 * 8192 + 7, 0, 0, in_place, false, k})));
      }
  }
}

// Dispatch (the converted shape of the accumulator's tuned one, or the shapes measured for
// large converting scans) for a pair: sum and max, both kinds, forward and reversed.
template <class In, class Out>
void dispatched() {
  Scanner s;
  for (std::size_t n : {std::size_t{1}, std::size_t{1000003}, (std::size_t{1} << 20) + 3,
                        (std::size_t{1} << 22) + 5})
    for (Op op : {Op::Sum, Op::Max})
      for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
        for (bool rev : {false, true}) {
          Case c{n, 1, sizeof(In) == sizeof(Out) ? 3 : 1, false, rev, k, op};
          EXPECT_TRUE((run_case<In, Out>(s, nullptr, c)));
        }
}

// In three tests, so that GPU shards split them: narrow types alone, integers widened,
// floats widened.
TEST_F(GpuTest, ConvertDispatchedNarrowTypes) {
  dispatched<std::int8_t, std::int8_t>();
  dispatched<std::uint8_t, std::uint8_t>();
  dispatched<std::int16_t, std::int16_t>();
  dispatched<std::uint16_t, std::uint16_t>();
  dispatched<__half, __half>();
  dispatched<__nv_bfloat16, __nv_bfloat16>();
}

TEST_F(GpuTest, ConvertDispatchedIntegersWidened) {
  dispatched<std::uint8_t, std::int32_t>();
  dispatched<std::uint8_t, std::int64_t>();
  dispatched<std::int8_t, std::int64_t>();
  dispatched<std::int32_t, std::int64_t>();
  dispatched<std::uint32_t, std::uint64_t>();
}

TEST_F(GpuTest, ConvertDispatchedFloatsWidened) {
  dispatched<__half, float>();
  dispatched<__nv_bfloat16, float>();
  dispatched<float, double>();
  dispatched<std::int16_t, float>();
}

// The table's large converting rows, where residency-bounded shapes (.mb3, .mb4) won:
// dispatched near those buckets (2^26, 2^28), forward, aligned (as the rows were tuned).
TEST_F(GpuTest, ConvertDispatchedLargeSums) {
  Scanner s;
  for (std::size_t n : {(std::size_t{1} << 26) + 3, (std::size_t{1} << 28) - 1}) {
    const Case c{n, 0, 0, false, false, ScanKind::Inclusive, Op::Sum};
    EXPECT_TRUE((run_case<std::int8_t, std::int8_t>(s, nullptr, c)));
    EXPECT_TRUE((run_case<std::uint8_t, std::uint8_t>(s, nullptr, c)));
    EXPECT_TRUE((run_case<__nv_bfloat16, __nv_bfloat16>(s, nullptr, c)));
    EXPECT_TRUE((run_case<std::uint8_t, std::int32_t>(s, nullptr, c)));
    EXPECT_TRUE((run_case<std::int8_t, std::int64_t>(s, nullptr, c)));
  }
}

// Byte sums on the table's 32 KB tiles (64 items a thread, 512 threads, 7 stages): full
// tiles a word at a time, the last one element-wise; both kinds, in place, misaligned.
TEST_F(GpuTest, ConvertByteSumsOnLargeTiles) {
  Scanner s;
  const Policy p = Policy::parse("lookback_bulk.tpb512.ipt64.vec16.warp_scans.st7");
  const std::size_t n = 5 * 32768 + 13;
  for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
    EXPECT_TRUE((run_case<std::int8_t, std::int8_t>(s, &p, {n, 0, 0, false, false, k})));
    EXPECT_TRUE((run_case<std::uint8_t, std::uint8_t>(s, &p, {n, 0, 0, true, false, k})));
    EXPECT_TRUE((run_case<std::int8_t, std::int8_t>(s, &p, {n, 3, 1, false, false, k})));
  }
}

// Wrap-around: int8 sums keep the low 8 bits, as an int8 accumulator would.
TEST_F(GpuTest, ConvertNarrowIntegerSumsWrapLikeTheirWidth) {
  const std::size_t n = 100000;
  std::vector<std::int8_t> in(n, 100);
  DeviceBuffer<std::int8_t> d_in(n), d_out(n);
  d_in.upload(in);
  Scanner s;
  s.inclusive_scan(d_in.ptr, d_out.ptr, n, Op::Sum);
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  const auto got = d_out.download(n);
  for (std::size_t i = 0; i < n; i += 997)
    ASSERT_EQ(got[i], static_cast<std::int8_t>(static_cast<std::uint8_t>((i + 1) * 100u))) << i;
}

// The typed public calls: overloads for one narrow type and for two types, init in any
// arithmetic type, reverse; bool flags counted into int32.
TEST_F(GpuTest, ConvertPublicTypedCalls) {
  const std::size_t n = 5003;
  std::vector<bool> flags(n);
  std::vector<std::uint8_t> bytes(n);
  for (std::size_t i = 0; i < n; ++i)
    bytes[i] = flags[i] = (i * 7) % 3 == 0;
  DeviceBuffer<std::uint8_t> d_flags(n);
  DeviceBuffer<std::int32_t> d_counts(n);
  d_flags.upload(bytes);
  Scanner s;
  s.exclusive_scan(reinterpret_cast<const bool*>(d_flags.ptr), d_counts.ptr, n, Op::Sum, 0);
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  auto counts = d_counts.download(n);
  int c = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(counts[i], c) << i;
    c += flags[i];
  }
  s.reverse_inclusive_scan(d_flags.ptr, d_counts.ptr, n, Op::Sum);
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  counts = d_counts.download(n);
  c = 0;
  for (std::size_t i = n; i-- > 0;) {
    c += flags[i];
    ASSERT_EQ(counts[i], c) << i;
  }
  std::vector<__half> h(n, __float2half_rn(0.5f));
  DeviceBuffer<__half> d_h(n);
  d_h.upload(h);
  s.exclusive_scan(d_h.ptr, d_h.ptr, n, Op::Sum, __float2half_rn(1.0f)); // in place
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  const auto got = d_h.download(n);
  for (std::size_t i = 0; i < n; i += 101)
    ASSERT_EQ(__half2float(got[i]), __half2float(__float2half_rn(1.0f + 0.5f * float(i)))) << i;
}

// Random half and bfloat16 values against a float64 reference: each output is within its
// type's rounding (2^-11, 2^-8 of the value) plus float32's accumulation error, which
// grows with the combination depth: (n / 256 + 64) x 2^-24 of the running sum of |x|.
template <class T>
void random_against_float64(std::size_t n) {
  std::vector<T> in(n);
  for (std::size_t i = 0; i < n; ++i)
    in[i] = from_double<T>(double((i * 2654435761u) >> 8 & 0xffff) / 32768.0 - 1.0);
  DeviceBuffer<T> d_in(n), d_out(n);
  d_in.upload(in);
  Scanner s;
  s.inclusive_scan(d_in.ptr, d_out.ptr, n, Op::Sum);
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  const auto got = d_out.download(n);
  const double out_eps = std::is_same_v<T, __half> ? 0x1p-11 : 0x1p-8;
  const double depth = (double(n) / 256 + 64) * 0x1p-24;
  double ref = 0, abs_sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ref += as_double(in[i]);
    abs_sum += std::fabs(as_double(in[i]));
    const double tol = out_eps * std::fabs(ref) + depth * abs_sum + 1e-30;
    ASSERT_LE(std::fabs(as_double(got[i]) - ref), tol) << i << " of " << n;
  }
}

TEST_F(GpuTest, ConvertRandomHalfAndBFloat16AgainstFloat64) {
  for (std::size_t n : {std::size_t{4099}, std::size_t{1} << 20}) {
    random_against_float64<__half>(n);
    random_against_float64<__nv_bfloat16>(n);
  }
}

} // namespace
} // namespace scantune::test
