// GPU correctness: every inter-block algorithm x block-scan algorithm x a spread
// of tile shapes x all types x all operators x inclusive/exclusive against the
// host reference, at sizes around tile boundaries; large sizes up to 2^27; in
// place and misaligned pointers; custom operators. Integers and integer-valued
// floats are compared exactly; random floats against a float64 reference.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <thread>

#include "codegen.hpp"
#include "common/compare.hpp"
#include "common/gpu.hpp"
#include "common/scan_reference.hpp"
#include "common/scoped_env.hpp"
#include "common/spec_sets.hpp"
#include "kernel_registry.hpp"
#include "scan_request.hpp"

namespace scantune::test {
namespace {

// Sizes around the policy's tile boundaries, small edge cases and primes.
std::vector<std::size_t> boundary_sizes(const Policy& p) {
  const std::size_t tile = p.algorithm == Algorithm::Sequential ? 256 : p.tile_items();
  std::vector<std::size_t> s{0, 1, 2, 31, 32, 33, tile - 1, tile, tile + 1, 2 * tile + 7, 7919};
  if (p.uses_tile_status() || p.algorithm == Algorithm::ReduceThenScan)
    s.push_back(37 * tile + 5); // > 32 predecessors
  return s;
}

// Runs one (policy, type, op, kind) at size n, with the input and output offset by
// `offset` elements (and in place when asked); the input comes from `seed`.
template <class T>
void check_policy_at(Scanner& scanner, const Policy& p, Op op, ScanKind kind, std::size_t offset,
                     bool in_place, std::size_t n, std::uint64_t seed) {
  const T init = make_init<T>(op);
  auto in = make_input<T>(n, op, seed);
  auto want = reference_scan(in, op, kind, init);
  DeviceBuffer<T> d_in(n + 8), d_out(n + 8);
  d_out.poison();
  d_in.upload(in, offset);
  T* out = in_place ? d_in.ptr + offset : d_out.ptr + offset + 1; // output misaligned differently
  scantune::detail::scan_with(scanner, p, kind, d_in.ptr + offset, out, n, op, init);
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  auto got = in_place ? d_in.download(n, offset) : d_out.download(n, offset + 1);
  ASSERT_TRUE(equal_exact(got, want))
      << p.key() << " " << to_string(data_type_of<T>()) << " " << to_string(op) << " "
      << to_string(kind) << " n=" << n << " offset=" << offset << (in_place ? " in place" : "");
}

// The same at every boundary size of the policy.
template <class T>
void check_policy(Scanner& scanner, const Policy& p, Op op, ScanKind kind, std::size_t offset,
                  bool in_place) {
  for (std::size_t n : boundary_sizes(p))
    check_policy_at<T>(scanner, p, op, kind, offset, in_place, n, 7 + offset);
}

// Compiles a matrix up front, in parallel NVRTC batches.
void prepare(const std::vector<detail::KernelSpec>& specs) {
  detail::KernelRegistry::instance().prepare(specs, device_arch(), 72);
}

class GpuScanMatrix : public GpuTest,
                      public ::testing::WithParamInterface<std::tuple<Algorithm, BlockScan>> {};

TEST_P(GpuScanMatrix, AllTypesOpsKindsAtTileBoundaries) {
  const auto [alg, bs] = GetParam();
  std::vector<std::pair<Policy, DataType>> runs;
  std::vector<detail::KernelSpec> specs;
  for (DataType t : all_types())
    for (const Policy& p : shape_spread(alg, bs, t)) {
      ASSERT_FALSE(p.invalid_reason(t)) << p.key() << ": " << *p.invalid_reason(t);
      runs.emplace_back(p, t);
      for (Op op : ops_for(t))
        for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
          specs.push_back({p, t, detail::OpSpec::from(op), k});
    }
  prepare(specs);
  Scanner scanner;
  for (const auto& [p, t] : runs)
    for (Op op : ops_for(t))
      for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
        for_type(
            t, [&, &p = p](auto tag) { check_policy<decltype(tag)>(scanner, p, op, k, 0, false); });
}

INSTANTIATE_TEST_SUITE_P(Algorithms, GpuScanMatrix, ::testing::ValuesIn(algorithm_block_scans()),
                         [](const auto& info) {
                           return std::string(to_string(std::get<0>(info.param))) + "_" +
                                  std::string(to_string(std::get<1>(info.param)));
                         });

TEST_F(GpuTest, SequentialAllTypesOpsKinds) {
  Scanner scanner;
  for (DataType t : all_types())
    for (Op op : ops_for(t))
      for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
        for_type(t, [&](auto tag) {
          check_policy<decltype(tag)>(scanner, Policy::sequential(), op, k, 0, false);
        });
}

// Misaligned input/output (1-3 elements) and in place, on both tile I/O paths. One test
// per element type, so that GPU shards split it.
class GpuOffsets : public GpuTest, public ::testing::WithParamInterface<DataType> {};

TEST_P(GpuOffsets, OffsetAndInPlacePointers) {
  const DataType t = GetParam();
  Scanner scanner;
  for (Algorithm a : tile_algorithms())
    for (const Policy& p : shape_spread(a, BlockScan::WarpScans, t))
      for (std::size_t offset : {1, 2, 3})
        for (bool in_place : {false, true})
          for_type(t, [&, &p = p](auto tag) {
            check_policy<decltype(tag)>(scanner, p, Op::Sum, ScanKind::Exclusive, offset, in_place);
            check_policy<decltype(tag)>(scanner, p, Op::Max, ScanKind::Inclusive, offset, in_place);
          });
}

INSTANTIATE_TEST_SUITE_P(Types, GpuOffsets, ::testing::ValuesIn(all_types()),
                         [](const auto& info) { return std::string(to_string(info.param)); });

// Beyond one wave the single-pass kernels take their tiles by ticket, or with a tile
// loop one wave of blocks loops over them (scan_kernels.cuh): 64-item tiles at n ~ 3M
// are ten or more waves; misaligned, in place, both kinds, and with SCANTUNE_TICKETS=1
// (tickets at every size, one tile per block even with a tile loop).
TEST_F(GpuTest, SinglePassTilesBeyondOneWave) {
  for (bool tickets : {false, true}) {
    SCOPED_TRACE(tickets ? "SCANTUNE_TICKETS=1" : "tiles by blockIdx within one wave");
    ScopedEnv knob("SCANTUNE_TICKETS", tickets ? std::optional<std::string>("1") : std::nullopt);
    Scanner scanner; // reads the knob
    for (Algorithm a : {Algorithm::Chained, Algorithm::LookbackThread, Algorithm::LookbackWarp})
      for (Policy p : {make_policy(a, 64, 1, 1, BlockScan::WarpScans, TileIO::Transpose),
                       make_policy(a, 128, 2, 2, BlockScan::WarpScans, TileIO::WarpTranspose)})
        for (bool loop : {false, true}) { // a wave of blocks, each looping over ten or more tiles
          p.tile_loop = loop;
          for (ScanKind kind : {ScanKind::Inclusive, ScanKind::Exclusive})
            for (bool in_place : {false, true})
              check_policy_at<std::uint64_t>(scanner, p, Op::Sum, kind, in_place ? 3 : 1, in_place,
                                             3000017, 13); // n prime
        }
  }
}

// 2^k - 1, 2^k + 1 and primes up to 2^27 (the slow seed variants up to 2^20),
// with the default scanner policy and every inter-block algorithm. One test per element
// type: the host reference and the downloads bound it, so shards run the types apart.
class GpuLargeSizes : public GpuTest, public ::testing::WithParamInterface<DataType> {};

TEST_P(GpuLargeSizes, EveryAlgorithm) {
  const DataType t = GetParam();
  Scanner scanner;
  std::vector<std::size_t> sizes{1000003, 16777259};
  for (int k : {10, 13, 16, 19, 20, 22, 24, 26, 27}) {
    sizes.push_back((std::size_t{1} << k) - 1);
    sizes.push_back((std::size_t{1} << k) + 1);
  }
  const std::vector<Policy> policies{
      Policy::sequential(),
      make_policy(Algorithm::SingleBlock, 1024, 8, 4, BlockScan::WarpScans, TileIO::Transpose),
      make_policy(Algorithm::ReduceThenScan, 256, 12, 4, BlockScan::BlellochPadded,
                  TileIO::Transpose),
      make_policy(Algorithm::Chained, 256, 12, 4, BlockScan::WarpScans, TileIO::Transpose),
      make_policy(Algorithm::LookbackThread, 256, 12, 4, BlockScan::HillisSteele, TileIO::Direct),
      make_policy(Algorithm::LookbackWarp, 256, 12, 4, BlockScan::WarpScans, TileIO::Transpose),
      Policy::parse("lookback_warp.tpb256.ipt12.vec4.warp_scans.wxpose.loop"),
      make_policy(Algorithm::LookbackPipelined, 256, 12, 4, BlockScan::WarpScans,
                  TileIO::WarpTranspose),
      make_policy(Algorithm::LookbackBulk, 256, 32, 4, BlockScan::WarpScans, TileIO::Transpose),
      make_policy(Algorithm::LookbackBulk, 512, 8, 2, BlockScan::WarpScans, TileIO::Direct),
  };
  for_type(t, [&](auto tag) {
    using T = decltype(tag);
    for (std::size_t n : sizes) {
      if (sizeof(T) == 8 && n > (std::size_t{1} << 26) && t != DataType::Float64 &&
          t != DataType::Int64)
        continue;
      const Op op = std::is_integral_v<T> && n % 2 ? Op::BitXor : Op::Sum;
      auto in = make_input<T>(n, op, 11);
      DeviceBuffer<T> d_in(n), d_out(n);
      d_in.upload(in);
      for (ScanKind kind : {ScanKind::Inclusive, ScanKind::Exclusive}) {
        auto want = reference_scan(in, op, kind, make_init<T>(op));
        for (Policy p : policies) {
          const bool slow =
              p.algorithm == Algorithm::Sequential || p.algorithm == Algorithm::SingleBlock;
          if (slow && n > (std::size_t{1} << 20) + 1) continue;
          if (size_of(t) == 8 && p.vector_width == 4) { // same tile bytes for 8-byte elements
            p.vector_width = 2;
            p.items_per_thread /= 2;
          }
          d_out.poison();
          scantune::detail::scan_with(scanner, p, kind, d_in.ptr, d_out.ptr, n, op,
                                      make_init<T>(op));
          SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
          ASSERT_TRUE(equal_exact(d_out.download(n), want))
              << p.key() << " " << to_string(t) << " " << to_string(kind) << " n=" << n;
        }
        d_out.poison();
        if (kind == ScanKind::Inclusive)
          scanner.inclusive_scan(d_in.ptr, d_out.ptr, n, op);
        else
          scanner.exclusive_scan(d_in.ptr, d_out.ptr, n, op, make_init<T>(op));
        SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
        ASSERT_TRUE(equal_exact(d_out.download(n), want))
            << "default policy " << to_string(t) << " n=" << n;
      }
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Types, GpuLargeSizes,
                         ::testing::Values(DataType::Int32, DataType::Float32, DataType::Int64,
                                           DataType::Float64, DataType::UInt32, DataType::UInt64),
                         [](const auto& info) { return std::string(to_string(info.param)); });

// Random floats in [0, 1) against a float64 reference. Stated tolerance: the
// relative error of a prefix is at most (tiles + 64) * eps, since the carry
// across tiles is a sequential chain of at most `tiles` additions and each tile
// adds a tree/serial chain of at most 64 levels (IPT + log2 TPB).
template <class T>
void check_float_tolerance(Scanner& scanner, const Policy& p, std::size_t n) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<T> in(n);
  for (auto& x : in)
    x = static_cast<T>(u(rng));
  DeviceBuffer<T> d_in(n), d_out(n);
  d_in.upload(in);
  scantune::detail::scan_with(scanner, p, ScanKind::Inclusive, d_in.ptr, d_out.ptr, n, Op::Sum);
  auto got = d_out.download(n);
  const double eps = std::is_same_v<T, float> ? 0x1p-24 : 0x1p-53;
  const double bound = (double(n / p.tile_items()) + 65) * eps;
  double acc = 0, worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    acc += double(in[i]);
    worst = std::max(worst, std::abs(double(got[i]) - acc) / acc);
  }
  EXPECT_LE(worst, bound) << p.key() << " n=" << n;
  ::testing::Test::RecordProperty("worst_relative_error", std::to_string(worst));
}

TEST_F(GpuTest, RandomFloatsWithinTolerance) {
  Scanner scanner;
  for (Algorithm a : tile_algorithms()) {
    Policy p4 = make_policy(a, 256, 12, 4, BlockScan::WarpScans, TileIO::Transpose);
    Policy p8 = make_policy(a, 256, 8, 2, BlockScan::WarpScans, TileIO::Transpose);
    const std::size_t n = a == Algorithm::SingleBlock ? (1u << 20) + 3 : (1u << 24) + 3;
    check_float_tolerance<float>(scanner, p4, n);
    check_float_tolerance<double>(scanner, p8, n);
  }
}

// Float min/max are fminf/fmaxf: a NaN is ignored, and a prefix of NaNs only stays
// NaN. Every algorithm must give the host's result (exactly: integer values, NaN
// matches NaN, -0 == +0) on a ramp with NaNs at the start, in runs across tile
// boundaries and scattered, both zeros and infinities.
template <class T>
void check_min_max_with_nans(Scanner& scanner, const Policy& p) {
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  const std::size_t tile = p.tile_items();
  for (std::size_t n : {tile * 3 + 5, tile * 37 + 5}) {
    for (Op op : {Op::Min, Op::Max}) {
      std::mt19937_64 rng(n + 3);
      std::vector<T> in(n);
      for (std::size_t i = 0; i < n; ++i) {
        const T ramp = T(double(i / 4) + double(rng() % 3));
        in[i] = rng() % 8 == 0 ? nan : op == Op::Max ? ramp : -ramp;
      }
      in[0] = in[1] = nan; // a NaN-only prefix
      in[2] = T(-0.0);
      in[3] = T(0.0);
      in[5] = op == Op::Max ? -inf : inf; // absorbed
      for (std::size_t i = tile - 3; i < tile + 4; ++i)
        in[i] = nan; // a run across a tile boundary
      DeviceBuffer<T> d_in(n), d_out(n);
      d_in.upload(in);
      for (ScanKind kind : {ScanKind::Inclusive, ScanKind::Exclusive}) {
        const T init = T(-7);
        d_out.poison();
        scantune::detail::scan_with(scanner, p, kind, d_in.ptr, d_out.ptr, n, op, init);
        ASSERT_TRUE(equal_exact(d_out.download(n), reference_scan(in, op, kind, init)))
            << p.key() << " " << to_string(data_type_of<T>()) << " " << to_string(op) << " "
            << to_string(kind) << " n=" << n;
      }
    }
  }
}

TEST_F(GpuTest, FloatMinMaxIgnoreNaNs) {
  Scanner scanner;
  for (Algorithm a : tile_algorithms()) {
    if (a == Algorithm::LookbackBulk && device_arch() < 90) continue;
    for (TileIO io : {TileIO::Transpose, TileIO::Direct}) {
      if (io == TileIO::Direct && a != Algorithm::LookbackBulk) continue; // its lane runs
      Policy p = make_policy(a, 128, 8, 4, BlockScan::WarpScans, io);
      if (p.stages_tiles()) p.stages = 4;
      check_min_max_with_nans<float>(scanner, p);
      p.vector_width = 2;
      check_min_max_with_nans<double>(scanner, p);
    }
  }
}

// lookback_bulk's lane runs (the direct tile I/O): runs of 1-8 vectors a lane, so every
// rotation of a run's reads, under a non-commutative operator (the first nonzero, over
// mostly zeros) and int64 sums, both kinds, tile edges, misaligned and in place.
// Scans sparse values under "the first nonzero so far", which is not commutative: any
// element, segment or tile combined out of order shows. Misaligned input.
void check_first_nonzero(Scanner& scanner, const Policy& p, std::size_t n, unsigned seed) {
  const CustomOp first{"first_nonzero", "return a != 0 ? a : b;", "0"};
  std::vector<int> in(n);
  std::mt19937 rng(unsigned(n) + seed);
  for (int& v : in)
    v = rng() % 7 == 0 ? int(rng() % 100) + 1 : 0;
  DeviceBuffer<int> d_in(n + 1), d_out(n + 1);
  d_in.upload(in, 1);
  for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
    std::vector<int> want(n);
    int acc = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (k == ScanKind::Exclusive) want[i] = acc;
      acc = acc != 0 ? acc : in[i];
      if (k == ScanKind::Inclusive) want[i] = acc;
    }
    d_out.poison();
    scantune::detail::scan_with(scanner, p, k, d_in.ptr + 1, d_out.ptr, n, first, 0);
    ASSERT_EQ(d_out.download(n), want) << p.key() << " " << to_string(k) << " n=" << n;
  }
}

TEST_F(GpuTest, BulkLaneRunsKeepOrderAtEveryRotation) {
  if (device_arch() < 90) GTEST_SKIP() << "lookback_bulk needs sm_90";
  Scanner scanner;
  for (int rows : {1, 2, 3, 5, 8})
    for (int tpb : {32, 128}) {
      Policy p = make_policy(Algorithm::LookbackBulk, tpb, 4 * rows, 4, BlockScan::WarpScans,
                             TileIO::Direct);
      p.stages = 4;
      ASSERT_FALSE(p.invalid_reason(DataType::Int32)) << p.key();
      for (std::size_t n : boundary_sizes(p))
        ASSERT_NO_FATAL_FAILURE(check_first_nonzero(scanner, p, n, unsigned(rows)));
      Policy wide = p; // 8-byte values: half the elements a vector
      wide.items_per_thread = 2 * rows;
      wide.vector_width = 2;
      for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
        for (bool in_place : {false, true})
          check_policy<std::int64_t>(scanner, wide, Op::Sum, k, 3, in_place);
    }
}

// An early stage release passes each tile's prefix through a ring of twice the stages
// while the stage itself is refilled: tiles of 128 items make a block cycle both rings
// hundreds of times; 3-8 stages, a non-commutative operator, 8-byte sums misaligned and
// in place, tiles by ticket beyond one wave.
TEST_F(GpuTest, BulkEarlyReleaseKeepsOrderAcrossTheRings) {
  if (device_arch() < 90) GTEST_SKIP() << "lookback_bulk needs sm_90";
  Scanner scanner;
  for (int stages : {3, 5, 8})
    for (int tpb : {32, 256}) {
      Policy p = make_policy(Algorithm::LookbackBulk, tpb, tpb == 32 ? 4 : 16, 4,
                             BlockScan::WarpScans, TileIO::Transpose);
      p.stages = stages;
      p.early_release = true;
      ASSERT_FALSE(p.invalid_reason(DataType::Int32)) << p.key();
      for (std::size_t n : {std::size_t{1}, p.tile_items() - 1, p.tile_items() * 7 + 5,
                            std::size_t{300007}, std::size_t{2000003}})
        ASSERT_NO_FATAL_FAILURE(check_first_nonzero(scanner, p, n, unsigned(stages)));
      Policy wide = p; // the same bytes a stage
      wide.vector_width = 2;
      wide.items_per_thread /= 2;
      for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
        for (bool in_place : {false, true})
          check_policy<std::int64_t>(scanner, wide, Op::Sum, k, 3, in_place);
    }
}

// Tickets of several tiles: the tiles after a ticket's first take their block's previous
// inclusive prefix; at some sizes the last ticket ends part-way, and every launch must
// leave the ticket counter reset for the next (two kinds, many sizes, one counter).
TEST_F(GpuTest, BulkTicketsOfSeveralTilesKeepOrder) {
  if (device_arch() < 90) GTEST_SKIP() << "lookback_bulk needs sm_90";
  Scanner scanner;
  for (int per_ticket : {2, 3, 8})
    for (int stages : {3, 8})
      for (bool early : {false, true}) {
        if (per_ticket == 8 && stages == 3) continue;
        Policy p =
            make_policy(Algorithm::LookbackBulk, 32, 4, 4, BlockScan::WarpScans, TileIO::Transpose);
        p.stages = stages;
        p.tiles_per_ticket = per_ticket;
        p.early_release = early;
        ASSERT_FALSE(p.invalid_reason(DataType::Int32)) << p.key();
        const std::size_t ticket = p.tile_items() * std::size_t(per_ticket);
        for (std::size_t n : {std::size_t{1}, ticket - 1, ticket + 1, ticket * 5 + 131,
                              std::size_t{300007}, std::size_t{2000003}})
          ASSERT_NO_FATAL_FAILURE(check_first_nonzero(scanner, p, n, unsigned(stages)));
        Policy wide = p; // the same bytes a stage
        wide.vector_width = 2;
        wide.items_per_thread = 2;
        for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
          check_policy<std::int64_t>(scanner, wide, Op::Sum, k, 3, k == ScanKind::Exclusive);
      }
}

TEST_F(GpuTest, CustomOperators) {
  Scanner scanner;
  const CustomOp absmax{"absmax", "return fabs(a) > fabs(b) ? a : b;", "0.0"};
  const CustomOp absmax_i{"absmax_i", "return (a < 0 ? -a : a) > (b < 0 ? -b : b) ? a : b;", "0"};
  for (std::size_t n : {1ul, 1000ul, 3072ul * 40 + 1, (1ul << 22) + 5}) {
    std::vector<double> in(n);
    std::vector<int> ini(n);
    std::mt19937_64 rng(n);
    for (std::size_t i = 0; i < n; ++i) {
      in[i] = double(std::int64_t(rng() % 2000001) - 1000000) / 16;
      ini[i] = int(std::int64_t(rng() % 2000001) - 1000000);
    }
    auto absmax_ref = [](auto a, auto b) { return std::abs(a) > std::abs(b) ? a : b; };
    std::vector<double> want(n);
    std::vector<int> want_i(n);
    double acc = 0.25; // exclusive init
    int acc_i = 0;
    for (std::size_t i = 0; i < n; ++i) {
      want[i] = acc;
      acc = absmax_ref(acc, in[i]);
      acc_i = i == 0 ? ini[0] : absmax_ref(acc_i, ini[i]);
      want_i[i] = acc_i;
    }
    DeviceBuffer<double> d_in(n), d_out(n);
    DeviceBuffer<int> di_in(n), di_out(n);
    d_in.upload(in);
    di_in.upload(ini);
    for (Algorithm a : tile_algorithms()) {
      scantune::detail::scan_with(scanner,
                                  make_policy(a, 256, 8, 2, BlockScan::Blelloch, TileIO::Transpose),
                                  ScanKind::Exclusive, d_in.ptr, d_out.ptr, n, absmax, 0.25);
      scantune::detail::scan_with(scanner,
                                  make_policy(a, 128, 16, 4, BlockScan::WarpScans, TileIO::Direct),
                                  ScanKind::Inclusive, di_in.ptr, di_out.ptr, n, absmax_i, 0);
      ASSERT_TRUE(equal_exact(d_out.download(n), want)) << to_string(a) << " n=" << n;
      ASSERT_TRUE(equal_exact(di_out.download(n), want_i)) << to_string(a) << " n=" << n;
    }
    scanner.exclusive_scan(d_in.ptr, d_out.ptr, n, absmax, 0.25);
    ASSERT_TRUE(equal_exact(d_out.download(n), want));
  }
}

TEST_F(GpuTest, BrokenCustomOperatorThrowsWithTheNvrtcLog) {
  Scanner scanner;
  DeviceBuffer<float> d(16);
  const CustomOp broken{"broken", "return a +* b;", "0"};
  try {
    scanner.inclusive_scan(d.ptr, d.ptr, 16, broken);
    FAIL() << "expected a compile error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("custom operator broken"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("error"), std::string::npos) << e.what();
  }
}

TEST_F(GpuTest, ProcessWideSums) {
  const std::size_t n = 100003;
  auto in = make_input<std::int64_t>(n, Op::Sum, 3);
  DeviceBuffer<std::int64_t> d_in(n), d_out(n);
  d_in.upload(in);
  inclusive_sum(d_in.ptr, d_out.ptr, n);
  ASSERT_TRUE(equal_exact(d_out.download(n),
                          reference_scan(in, Op::Sum, ScanKind::Inclusive, std::int64_t{0})));
  exclusive_sum(d_in.ptr, d_out.ptr, n);
  ASSERT_TRUE(equal_exact(d_out.download(n),
                          reference_scan(in, Op::Sum, ScanKind::Exclusive, std::int64_t{0})));
}

} // namespace
} // namespace scantune::test
