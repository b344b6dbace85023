// Reverse (suffix) scans on every algorithm that runs reversed, every type, built-in
// and non-commutative custom operators, both kinds, tile edges, misaligned and in-place
// buffers, against a host reference that folds left to right.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>

#include "common/compare.hpp"
#include "common/gpu.hpp"
#include "common/scan_reference.hpp"
#include "common/spec_sets.hpp"
#include "scan_request.hpp"

namespace scantune::test {
namespace {

using detail::ScannerAccess;

// out[i] = x[i] op ... op x[n-1] (inclusive) or x[i+1] op ... op x[n-1] op init.
template <class T>
std::vector<T> reverse_reference(const std::vector<T>& in, const std::function<T(T, T)>& op,
                                 ScanKind kind, T init, bool has_init) {
  std::vector<T> out(in.size());
  T acc = init;
  bool any = has_init;
  for (std::size_t i = in.size(); i-- > 0;) {
    if (kind == ScanKind::Exclusive) out[i] = acc;
    acc = any ? op(in[i], acc) : in[i];
    any = true;
    if (kind == ScanKind::Inclusive) out[i] = acc;
  }
  return out;
}

std::vector<Policy> reverse_policies(DataType t) {
  const int vec = size_of(t) == 8 ? 2 : 4;
  std::vector<Policy> v;
  for (Algorithm a : tile_algorithms()) {
    if (a == Algorithm::ReduceThenScan) continue;
    for (TileIO io : all_tile_ios()) {
      Policy p =
          make_policy(a, 128, a == Algorithm::LookbackBulk ? 16 : 8, vec, BlockScan::WarpScans, io);
      p.reverse = true;
      if (!p.invalid_reason(t)) v.push_back(p);
      Policy early = p; // bulk rows released early store mirrored vectors from registers
      early.early_release = true;
      if (!early.invalid_reason(t)) v.push_back(early);
      early.tiles_per_ticket = 2; // tiles of a ticket run from the end too
      if (!early.invalid_reason(t)) v.push_back(early);
      p.tile_loop = p.one_tile_per_block();
      if (p.tile_loop && !p.invalid_reason(t)) v.push_back(p);
    }
  }
  return v;
}

// Runs one reverse scan of n elements at element offsets in_off / out_off (in place
// when out_off < 0) and compares it with the reference.
template <class T>
void check(Scanner& s, const Policy* p, OpRef op, const std::function<T(T, T)>& host_op,
           ScanKind kind, std::size_t n, std::size_t in_off, long out_off, T init) {
  const auto in = make_input<T>(n, Op::Sum, 5);
  DeviceBuffer<T> d_in(n + 8), d_out(n + 8);
  std::vector<T> padded(n + 8, T{});
  std::copy(in.begin(), in.end(), padded.begin() + static_cast<long>(in_off));
  d_in.upload(padded);
  d_out.poison();
  T* out = out_off < 0 ? d_in.ptr + in_off : d_out.ptr + out_off;
  ScanRequest r = detail::make_request<T>(kind, d_in.ptr + in_off, out, n, op, &init, nullptr, p);
  r.reverse = true;
  ScannerAccess::scan(s, r);
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  std::vector<T> got(n);
  if (n) SCANTUNE_CUDA_TRY(cudaMemcpy(got.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
  ASSERT_TRUE(
      equal_exact(got, reverse_reference(in, host_op, kind, init, kind == ScanKind::Exclusive)))
      << (p ? p->key() : "routed") << " " << to_string(data_type_of<T>()) << " " << to_string(kind)
      << " n=" << n << " in+" << in_off << " out" << out_off;
}

const std::size_t kSizes[] = {0, 1, 2, 7, 1023, 1024, 1025, 2047, 2048, 2049, 7919, 65537};

// One test per element type, so that GPU shards split them.
class GpuReverse : public GpuTest, public ::testing::WithParamInterface<DataType> {};

TEST_P(GpuReverse, EveryAlgorithmOperatorKindAndSize) {
  const DataType t = GetParam();
  Scanner s;
  for_type(t, [&](auto tag) {
    using T = decltype(tag);
    const std::function<T(T, T)> sum = [](T a, T b) { return T(a + b); };
    const std::function<T(T, T)> max = [](T a, T b) { return a < b ? b : a; };
    for (const Policy& p : reverse_policies(t))
      for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
        for (std::size_t n : kSizes) {
          check<T>(s, &p, Op::Sum, sum, k, n, n % 3, long(n % 2), T(3));
          check<T>(s, &p, Op::Max, max, k, n, 1, 1, T(0));
        }
  });
}

INSTANTIATE_TEST_SUITE_P(Types, GpuReverse, ::testing::ValuesIn(all_types()),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST_F(GpuTest, ReverseNonCommutativeOperatorKeepsLeftToRightOrder) {
  Scanner s;
  const CustomOp first{"first_nonzero", "return a != 0 ? a : b;", "0"};
  const std::function<int(int, int)> host = [](int a, int b) { return a != 0 ? a : b; };
  for (const Policy& p : reverse_policies(DataType::Int32))
    for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
      for (std::size_t n : kSizes) {
        check<int>(s, &p, first, host, k, n, 0, 0, 0);
        check<int>(s, &p, first, host, k, n, 3, 1, 17);
        check<int>(s, &p, first, host, k, n, 2, -1, 0); // in place
      }
}

TEST_F(GpuTest, ReverseRoutedCallsAndLargeSizes) {
  Scanner s;
  const std::function<int(int, int)> sum = [](int a, int b) {
    return int(unsigned(a) + unsigned(b));
  };
  for (std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{100003}, (std::size_t{1} << 24) + 3})
    for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
      check<int>(s, nullptr, Op::Sum, sum, k, n, 1, 3, 11);
      check<int>(s, nullptr, Op::Sum, sum, k, n, 0, -1, 11);
    }
  const std::function<double(double, double)> dsum = [](double a, double b) { return a + b; };
  check<double>(s, nullptr, Op::Sum, dsum, ScanKind::Inclusive, (std::size_t{1} << 24) + 3, 1, 0,
                0.0);
}

TEST_F(GpuTest, ReversePublicApiMatchesFlipScanFlipForSums) {
  Scanner s;
  const std::size_t n = 4099;
  std::vector<int> in(n);
  for (std::size_t i = 0; i < n; ++i)
    in[i] = int(i % 13) - 6;
  DeviceBuffer<int> d_in(n), d_out(n);
  d_in.upload(in);
  s.reverse_exclusive_scan(d_in.ptr, d_out.ptr, n, Op::Sum, 5);
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  const auto got = d_out.download(n);
  int acc = 5;
  for (std::size_t i = n; i-- > 0;) {
    ASSERT_EQ(got[i], acc) << i;
    acc += in[i];
  }
}

// Median ms of `reps` timed calls of `f` on the default stream, after warm-ups.
template <class F>
double median_ms(F f, int reps) {
  for (int i = 0; i < 3; ++i)
    f();
  cudaEvent_t a, b;
  SCANTUNE_CUDA_TRY(cudaEventCreate(&a));
  SCANTUNE_CUDA_TRY(cudaEventCreate(&b));
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    SCANTUNE_CUDA_TRY(cudaEventRecord(a));
    f();
    SCANTUNE_CUDA_TRY(cudaEventRecord(b));
    SCANTUNE_CUDA_TRY(cudaEventSynchronize(b));
    float t = 0;
    SCANTUNE_CUDA_TRY(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// The suffix scan runs the forward scan's tuned shape: its time at 2^28 is printed
// beside the forward scan's (docs/performance.md) and must stay within 10% of it.
template <class T>
void time_reverse_against_forward() {
  const std::size_t n = std::size_t{1} << 28;
  std::vector<T> in(n);
  for (std::size_t i = 0; i < n; ++i)
    in[i] = T(int(i * 2654435761u >> 27) - 15);
  DeviceBuffer<T> d_in(n), d_out(n);
  d_in.upload(in);
  Scanner s;
  double fwd = 0, rev = 0;
  for (int round = 0; round < 2; ++round) { // alternating, so that clocks drift alike
    fwd = median_ms([&] { s.inclusive_scan(d_in.ptr, d_out.ptr, n, Op::Sum); }, 20);
    rev = median_ms([&] { s.reverse_inclusive_scan(d_in.ptr, d_out.ptr, n, Op::Sum); }, 20);
  }
  std::printf("reverse timing %s n=2^28 (%s): forward %.4f ms, reverse %.4f ms: %.3fx\n",
              std::string(to_string(data_type_of<T>())).c_str(),
              s.plan(data_type_of<T>(), Op::Sum, ScanKind::Inclusive, n).policy.c_str(), fwd, rev,
              rev / fwd);
  EXPECT_LT(rev / fwd, 1.10);
}

TEST_F(GpuTest, ReverseTimeAgainstForward) {
  time_reverse_against_forward<int>();
  time_reverse_against_forward<double>();
}

} // namespace
} // namespace scantune::test
