// Scans that start from a value in device memory (exclusive init, inclusive seed) on
// every algorithm, and reductions into device memory, against the host reference.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/compare.hpp"
#include "common/gpu.hpp"
#include "common/scan_reference.hpp"
#include "common/spec_sets.hpp"
#include "scan_request.hpp"

namespace scantune::test {
namespace {

using detail::ScannerAccess;

// One policy per algorithm (tile loops and both tile I/Os among them): each kernel
// reads the start value itself.
std::vector<Policy> one_policy_per_algorithm(DataType t) {
  const int vec = size_of(t) == 8 ? 2 : 4;
  std::vector<Policy> v{Policy::sequential()};
  for (Algorithm a : tile_algorithms())
    v.push_back(make_policy(a, 128, a == Algorithm::LookbackBulk ? 16 : 8, vec,
                            BlockScan::WarpScans, TileIO::Transpose));
  v.push_back(Policy::parse(size_of(t) == 8
                                ? "lookback_warp.tpb256.ipt8.vec2.warp_scans.wxpose.loop"
                                : "lookback_warp.tpb256.ipt8.vec4.warp_scans.wxpose.loop"));
  return v;
}

// The scan of [start] ++ in without its first element: an inclusive scan seeded with
// `start`, or (kind exclusive) the exclusive scan from init `start`.
template <class T>
std::vector<T> reference_from(const std::vector<T>& in, Op op, ScanKind kind, T start) {
  if (kind == ScanKind::Exclusive) return reference_scan(in, op, kind, start);
  std::vector<T> seeded{start};
  seeded.insert(seeded.end(), in.begin(), in.end());
  auto all = reference_scan(seeded, op, ScanKind::Inclusive, T{});
  return {all.begin() + 1, all.end()};
}

template <class T>
void check_device_start(Scanner& scanner, const Policy& p, Op op, ScanKind kind, std::size_t n) {
  const auto in = make_input<T>(n, op, 3);
  const T start = make_init<T>(op);
  DeviceBuffer<T> d_in(n), d_out(n), d_start(1);
  d_in.upload(in);
  d_start.upload({start});
  d_out.poison();
  ScanRequest r = detail::make_request<T>(kind, d_in.ptr, d_out.ptr, n, op, nullptr, nullptr, &p);
  r.start = d_start.ptr;
  r.seeded = kind == ScanKind::Inclusive;
  ScannerAccess::scan(scanner, r);
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  ASSERT_TRUE(equal_exact(d_out.download(n), reference_from(in, op, kind, start)))
      << p.key() << " " << to_string(data_type_of<T>()) << " " << to_string(op) << " "
      << to_string(kind) << " n=" << n;
}

TEST_F(GpuTest, DeviceStartOnEveryAlgorithmTypeOperatorAndKind) {
  Scanner scanner;
  for (DataType t : all_types())
    for_type(t, [&](auto tag) {
      using T = decltype(tag);
      for (const Policy& p : one_policy_per_algorithm(t))
        for (Op op : {Op::Sum, Op::Max, std::is_integral_v<T> ? Op::BitXor : Op::Product})
          for (ScanKind kind : {ScanKind::Inclusive, ScanKind::Exclusive})
            for (std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{1024},
                                  std::size_t{4097}, std::size_t{100003}}) {
              if (p.algorithm == Algorithm::Sequential && n > 5000) continue;
              check_device_start<T>(scanner, p, op, kind, n);
            }
    });
}

// The public overloads, chained on one stream without a host round trip: each scan
// starts from the previous one's reduction, written by the kernel just before it (a
// programmatic dependent launch must not read it early).
TEST_F(GpuTest, ReduceThenScanFromItChainsOnOneStream) {
  Scanner scanner;
  cudaStream_t stream;
  SCANTUNE_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const std::size_t n = (std::size_t{1} << 22) + 5;
  const auto a = make_input<long long>(n, Op::Sum, 1), b = make_input<long long>(n, Op::Sum, 2);
  DeviceBuffer<long long> d_a(n), d_b(n), d_out(n), d_total(1);
  d_a.upload(a);
  d_b.upload(b);
  long long total = 0;
  for (long long x : a)
    total += x;
  for (int round = 0; round < 20; ++round) {
    d_total.poison();
    d_out.poison();
    scanner.reduce(d_a.ptr, d_total.ptr, n, Op::Sum, stream);
    if (round % 2)
      scanner.inclusive_scan(d_b.ptr, d_out.ptr, n, Op::Sum, DeviceValue<long long>{d_total.ptr},
                             stream);
    else
      scanner.exclusive_scan(d_b.ptr, d_out.ptr, n, Op::Sum, DeviceValue<long long>{d_total.ptr},
                             stream);
    SCANTUNE_CUDA_TRY(cudaStreamSynchronize(stream));
    const ScanKind kind = round % 2 ? ScanKind::Inclusive : ScanKind::Exclusive;
    ASSERT_TRUE(equal_exact(d_out.download(n), reference_from(b, Op::Sum, kind, total)))
        << "round " << round;
  }
  SCANTUNE_CUDA_TRY(cudaStreamDestroy(stream));
}

template <class T>
T reference_reduce(const std::vector<T>& in, Op op) {
  if (!in.empty()) return reference_scan(in, op, ScanKind::Inclusive, T{}).back();
  switch (op) {
  case Op::Sum:
  case Op::BitOr:
  case Op::BitXor:
    return T(0);
  case Op::Product:
    return T(1);
  case Op::BitAnd:
    if constexpr (std::is_integral_v<T>) return static_cast<T>(~T(0));
    break;
  case Op::Min:
    return std::is_integral_v<T> ? std::numeric_limits<T>::max()
                                 : std::numeric_limits<T>::quiet_NaN();
  case Op::Max:
    return std::is_integral_v<T> ? std::numeric_limits<T>::lowest()
                                 : std::numeric_limits<T>::quiet_NaN();
  }
  return T{};
}

TEST_F(GpuTest, ReduceEveryTypeOperatorAndSize) {
  Scanner scanner;
  for (DataType t : all_types())
    for_type(t, [&](auto tag) {
      using T = decltype(tag);
      for (Op op : ops_for(t))
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{33}, std::size_t{4099},
                              std::size_t{1000003}, (std::size_t{1} << 24) + 7}) {
          const auto in = make_input<T>(n + 1, op, 5);
          DeviceBuffer<T> d_in(n + 1), d_result(1);
          d_in.upload(in);
          for (std::size_t offset : {std::size_t{0}, std::size_t{1}}) { // misaligned input
            if (offset > n) continue;
            d_result.poison();
            scanner.reduce(d_in.ptr + offset, d_result.ptr, n - offset, op);
            SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
            const std::vector<T> part(in.begin() + offset, in.begin() + n);
            ASSERT_TRUE(equal_exact(d_result.download(1), {reference_reduce(part, op)}))
                << to_string(t) << " " << to_string(op) << " n=" << n - offset;
          }
        }
    });
}

// Float sums: within the stated tolerance of a float64 reference, and the same bits
// on every run (the partials combine in block order, whatever the scheduling).
TEST_F(GpuTest, ReduceFloatsWithinToleranceAndReproducible) {
  Scanner scanner;
  const std::size_t n = (std::size_t{1} << 26) + 3;
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> in(n);
  double exact = 0;
  for (auto& x : in) {
    x = u(rng);
    exact += x;
  }
  DeviceBuffer<float> d_in(n), d_result(1);
  d_in.upload(in);
  std::vector<float> first;
  for (int run = 0; run < 10; ++run) {
    scanner.reduce(d_in.ptr, d_result.ptr, n, Op::Sum);
    auto got = d_result.download(1);
    if (run == 0) {
      first = got;
      // A pairwise tree per tile, then sequential chains over tiles and blocks:
      // relative error at most (tiles + 64) * 2^-24.
      const double bound = (double(n) / 1024 + 64) * 0x1p-24;
      EXPECT_LE(std::abs(double(got[0]) - exact) / exact, bound);
    }
    ASSERT_EQ(std::memcmp(&got[0], &first[0], sizeof(float)), 0) << "run " << run;
  }
}

} // namespace
} // namespace scantune::test
