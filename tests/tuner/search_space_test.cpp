// The search space: default grid, --algorithms, size limits, post-compile
// constraints, neighbours, and the size / value list parsers.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/expect_error.hpp"
#include "policy.hpp"
#include "scantune/scantune.hpp"
#include "tuner/search/search_space.hpp"

namespace scantune::tuner {
namespace {

constexpr std::uint64_t kNoLimit = std::numeric_limits<std::uint64_t>::max();

std::set<std::string> keys(const std::vector<Policy>& ps) {
  std::set<std::string> out;
  for (const Policy& p : ps)
    out.insert(p.key());
  return out;
}

template <class F>
std::set<int> values(const std::vector<Policy>& ps, F field) {
  std::set<int> out;
  for (const Policy& p : ps)
    out.insert(static_cast<int>(field(p)));
  return out;
}

// How many of the tunable fields differ (the algorithm counts as one field).
int fields_changed(const Policy& a, const Policy& b) {
  return (a.algorithm != b.algorithm) + (a.block_threads != b.block_threads) +
         (a.items_per_thread != b.items_per_thread) + (a.vector_width != b.vector_width) +
         (a.block_scan != b.block_scan) + (a.io != b.io) + (a.backoff_ns != b.backoff_ns) +
         (a.streaming != b.streaming) + (a.lookback_span != b.lookback_span) +
         (a.stages != b.stages) + (a.tile_loop != b.tile_loop) +
         (a.early_release != b.early_release) + (a.tiles_per_ticket != b.tiles_per_ticket);
}

void expect_valid_and_unique(const std::vector<Policy>& space, DataType type) {
  for (const Policy& p : space)
    EXPECT_FALSE(p.invalid_reason(type)) << p.key() << ": " << *p.invalid_reason(type);
  EXPECT_EQ(keys(space).size(), space.size());
}

TEST(SearchSpace, DefaultSpaceFor4ByteTypes) {
  const auto space = enumerate(DataType::Int32, default_space());
  // A regression count: changes to the grid or to Policy::invalid_reason move it.
  // lookback_bulk: 200 shapes, each with rows and lane runs, rows also released early,
  // each of those at one and two tiles a ticket
  EXPECT_EQ(space.size(), 34128u);
  expect_valid_and_unique(space, DataType::Int32);
  EXPECT_EQ(values(space, [](const Policy& p) { return p.algorithm; }),
            (std::set<int>{static_cast<int>(Algorithm::SingleBlock),
                           static_cast<int>(Algorithm::ReduceThenScan),
                           static_cast<int>(Algorithm::LookbackThread),
                           static_cast<int>(Algorithm::LookbackWarp),
                           static_cast<int>(Algorithm::LookbackPipelined),
                           static_cast<int>(Algorithm::LookbackBulk)}));
  EXPECT_EQ(values(space, [](const Policy& p) { return p.vector_width; }),
            (std::set<int>{1, 2, 4}));
  EXPECT_EQ(values(space, [](const Policy& p) { return p.block_threads; }),
            (std::set<int>{64, 128, 256, 384, 512, 1024})); // 384: lookback_pipelined only
  EXPECT_EQ(values(space, [](const Policy& p) { return p.items_per_thread; }),
            (std::set<int>{1, 2, 4, 6, 8, 10, 12, 16, 20, 24, 32})); // 10: likewise
  EXPECT_EQ(values(space, [](const Policy& p) { return p.block_scan; }).size(), 4u);
  EXPECT_EQ(values(space, [](const Policy& p) { return p.io; }).size(), 3u);
  EXPECT_EQ(values(space, [](const Policy& p) { return p.streaming; }), (std::set<int>{0, 1}));
  EXPECT_EQ(values(space, [](const Policy& p) { return p.lookback_span; }), (std::set<int>{1}));
  EXPECT_EQ(values(space, [](const Policy& p) { return p.backoff_ns; }), (std::set<int>{0, 200}));
  EXPECT_EQ(values(space, [](const Policy& p) { return p.tile_loop; }), (std::set<int>{0, 1}));
  for (const Policy& p : space) {
    EXPECT_TRUE(p.backoff_ns == 0 || p.uses_tile_status()) << p.key();
    EXPECT_TRUE(!p.tile_loop || p.one_tile_per_block()) << p.key();
  }
  EXPECT_TRUE(keys(space).count("lookback_warp.tpb256.ipt12.vec4.warp_scans"));
  EXPECT_TRUE(keys(space).count("lookback_warp.tpb256.ipt12.vec4.warp_scans.loop"));
  EXPECT_TRUE(keys(space).count("reduce_then_scan.tpb512.ipt8.vec2.hillis_steele.direct"));
  // Same element size, same space.
  EXPECT_EQ(keys(enumerate(DataType::Float32, default_space())), keys(space));
  EXPECT_EQ(keys(enumerate(DataType::UInt32, default_space())), keys(space));
}

TEST(SearchSpace, DefaultSpaceFor8ByteTypes) {
  const auto space = enumerate(DataType::Int64, default_space());
  EXPECT_EQ(space.size(), 22976u);
  expect_valid_and_unique(space, DataType::Int64);
  EXPECT_EQ(values(space, [](const Policy& p) { return p.vector_width; }), (std::set<int>{1, 2}));
  EXPECT_EQ(keys(enumerate(DataType::Float64, default_space())), keys(space));
  // Larger elements need more shared memory: big transposed tiles drop out.
  EXPECT_FALSE(keys(space).count("lookback_warp.tpb1024.ipt8.vec2.warp_scans"));
  EXPECT_TRUE(keys(space).count("lookback_warp.tpb1024.ipt8.vec2.warp_scans.direct"));
}

TEST(SearchSpace, EnumerationOrderIsStable) {
  EXPECT_EQ(enumerate(DataType::Int32, default_space()).front().key(),
            "single_block.tpb64.ipt1.vec1.warp_scans");
  const auto a = enumerate(DataType::Int32, default_space());
  const auto b = enumerate(DataType::Int32, default_space());
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(a[i].key(), b[i].key());
}

TEST(SearchSpace, NoSlowSeedsByDefault) {
  for (const Policy& p : enumerate(DataType::Int32, default_space()))
    EXPECT_TRUE(p.algorithm != Algorithm::Sequential && p.algorithm != Algorithm::Chained)
        << p.key();
}

TEST(SearchSpace, AllAddsSeedsAndLiftsLimits) {
  SpaceOptions s = default_space();
  apply_algorithms(s, "all");
  EXPECT_EQ(s.algorithms.size(), 8u);
  EXPECT_EQ(s.block_scans.size(), 4u);
  EXPECT_EQ(s.single_block_max_n, kNoLimit);
  EXPECT_EQ(s.hillis_steele_max_n, kNoLimit);
  const auto space = enumerate(DataType::Int32, s);
  expect_valid_and_unique(space, DataType::Int32);
  EXPECT_EQ(std::count_if(space.begin(), space.end(),
                          [](const Policy& p) { return p.key() == "sequential"; }),
            1);
  const auto chained = std::count_if(space.begin(), space.end(), [](const Policy& p) {
    return p.algorithm == Algorithm::Chained;
  });
  const auto lookback_warp = std::count_if(space.begin(), space.end(), [](const Policy& p) {
    return p.algorithm == Algorithm::LookbackWarp;
  });
  const auto pipelined = std::count_if(space.begin(), space.end(), [](const Policy& p) {
    return p.algorithm == Algorithm::LookbackPipelined;
  });
  EXPECT_EQ(chained, lookback_warp); // same shape: tile parameters and backoffs
  // No direct I/O, and stages that fit a block: a subset of the look-back shapes.
  EXPECT_GT(pipelined, 0);
  EXPECT_LT(pipelined, lookback_warp);
  EXPECT_EQ(space.size(), 34128u + 1 + static_cast<std::size_t>(chained));
  EXPECT_EQ(s.pipelined_min_n, 0u);
  EXPECT_EQ(s.bulk_min_n, 0u);
  EXPECT_EQ(s.tile_loop_min_n, 0u);
}

TEST(SearchSpace, BulkTakesSixteenByteRowsItsOwnStagesAndLargeSizes) {
  for (DataType t : {DataType::Int32, DataType::Float64}) {
    const auto space = enumerate(t, default_space());
    std::vector<Policy> bulk;
    std::copy_if(space.begin(), space.end(), std::back_inserter(bulk),
                 [](const Policy& p) { return p.algorithm == Algorithm::LookbackBulk; });
    ASSERT_FALSE(bulk.empty());
    EXPECT_EQ(values(bulk, [](const Policy& p) { return p.vector_width; }),
              (std::set<int>{static_cast<int>(16 / size_of(t))}));
    EXPECT_EQ(values(bulk, [](const Policy& p) { return p.stages; }), (std::set<int>{4, 6, 7, 8}));
    EXPECT_EQ(values(bulk, [](const Policy& p) { return p.block_scan; }),
              (std::set<int>{static_cast<int>(BlockScan::WarpScans)}));
  }
  SpaceOptions s = default_space();
  const Policy p = Policy::parse("lookback_bulk.tpb256.ipt32.vec4.warp_scans.st6");
  EXPECT_FALSE(applies_at(p, std::uint64_t{1} << 21, s));
  EXPECT_TRUE(applies_at(p, std::uint64_t{1} << 22, s));
  apply_algorithms(s, "lookback_bulk");
  EXPECT_TRUE(applies_at(p, 1000, s));
}

// 64 items a thread: lookback_bulk over 1- and 2-byte elements only (16-32 KB byte
// tiles); an explicit --items-per-thread list replaces it.
TEST(SearchSpace, BulkTakesSixtyFourItemsOverNarrowElements) {
  const auto items = [](const ScanTypes& t, const SpaceOptions& s, bool bulk) {
    std::set<int> out;
    for (const Policy& p : enumerate(t, s))
      if ((p.algorithm == Algorithm::LookbackBulk) == bulk) out.insert(p.items_per_thread);
    return out;
  };
  for (const char* t : {"int8", "uint16", "float16"}) {
    EXPECT_TRUE(items(parse_scan_types(t), default_space(), true).count(64)) << t;
    EXPECT_FALSE(items(parse_scan_types(t), default_space(), false).count(64)) << t;
  }
  for (const char* t : {"int32", "uint8:int32", "int8:int64"}) // 4- or 8-byte sides
    EXPECT_FALSE(items(parse_scan_types(t), default_space(), true).count(64)) << t;
  EXPECT_TRUE(keys(enumerate(parse_scan_types("int8"), default_space()))
                  .count("lookback_bulk.tpb512.ipt64.vec16.warp_scans.st7"));
  SpaceOptions s = default_space();
  for (const SpaceField& f : space_fields())
    if (f.option == "--items-per-thread") f.apply(s, "16,32", f.option);
  EXPECT_EQ(items(parse_scan_types("int8"), s, true), (std::set<int>{16, 32}));
}

TEST(SearchSpace, PipelinedOnlyFromTwoToTheTwentyUnlessNamed) {
  SpaceOptions s = default_space();
  const Policy p = Policy::parse("lookback_pipelined.tpb128.ipt24.vec4.warp_scans.wxpose");
  EXPECT_FALSE(applies_at(p, (1u << 20) - 1, s));
  EXPECT_TRUE(applies_at(p, 1u << 20, s));
  apply_algorithms(s, "lookback_pipelined,lookback_warp");
  EXPECT_TRUE(applies_at(p, 1000, s));
  apply_algorithms(s, "default");
  EXPECT_FALSE(applies_at(p, 1000, s));
}

TEST(SearchSpace, TileLoopsOnlyFromTwoToTheTwentyOneAndOnlyOneTilePerBlock) {
  SpaceOptions s = default_space();
  const Policy p = Policy::parse("lookback_warp.tpb256.ipt24.vec4.warp_scans.wxpose.loop");
  EXPECT_FALSE(applies_at(p, (1u << 21) - 1, s));
  EXPECT_TRUE(applies_at(p, 1u << 21, s));
  EXPECT_TRUE(
      applies_at(Policy::parse("lookback_warp.tpb256.ipt24.vec4.warp_scans.wxpose"), 1000, s));
  apply_algorithms(s, "all");
  EXPECT_TRUE(applies_at(p, 1000, s));
  s = default_space();
  s.tile_loops = parse_tile_loops("on");
  for (const Policy& q : enumerate(DataType::Int32, s))
    EXPECT_EQ(q.tile_loop, q.one_tile_per_block()) << q.key();
}

TEST(SearchSpace, FlagListsNameTheirValues) {
  EXPECT_EQ(parse_tile_loops("off, on,off"), (std::vector<bool>{false, true}));
  EXPECT_EQ(parse_cache_hints("streaming"), (std::vector<bool>{true}));
  try {
    parse_tile_loops("off,yes");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "unknown tile loop 'yes' (expected one of: off, on)");
  }
  EXPECT_THROW(parse_cache_hints("default,fast"), Error);
}

TEST(SearchSpace, ExplicitNamesReplaceTheirDimension) {
  SpaceOptions s = default_space();
  apply_algorithms(s, "lookback_warp,reduce_then_scan");
  EXPECT_EQ(s.algorithms,
            (std::vector<Algorithm>{Algorithm::LookbackWarp, Algorithm::ReduceThenScan}));
  EXPECT_EQ(s.block_scans.size(), 4u); // untouched

  apply_algorithms(s, " blelloch , warp_scans ");
  EXPECT_EQ(s.block_scans, (std::vector<BlockScan>{BlockScan::Blelloch, BlockScan::WarpScans}));
  EXPECT_EQ(s.algorithms.size(), 2u); // untouched
  for (const Policy& p : enumerate(DataType::Int32, s)) {
    EXPECT_TRUE(p.algorithm == Algorithm::LookbackWarp || p.algorithm == Algorithm::ReduceThenScan);
    EXPECT_TRUE(p.block_scan == BlockScan::Blelloch || p.block_scan == BlockScan::WarpScans);
  }

  apply_algorithms(s, "default");
  EXPECT_EQ(s.algorithms, default_space().algorithms);
  EXPECT_EQ(s.block_scans, default_space().block_scans);
}

TEST(SearchSpace, NamingASmallInputVariantLiftsItsLimit) {
  SpaceOptions s = default_space();
  apply_algorithms(s, "hillis_steele");
  EXPECT_EQ(s.hillis_steele_max_n, kNoLimit);
  EXPECT_EQ(s.single_block_max_n, default_space().single_block_max_n);
  EXPECT_EQ(s.block_scans, std::vector<BlockScan>{BlockScan::HillisSteele});

  s = default_space();
  apply_algorithms(s, "single_block");
  EXPECT_EQ(s.single_block_max_n, kNoLimit);
  EXPECT_EQ(s.hillis_steele_max_n, default_space().hillis_steele_max_n);
}

TEST(SearchSpace, UnknownAlgorithmNamesThrow) {
  SpaceOptions s = default_space();
  EXPECT_ERROR_NAMING(apply_algorithms(s, "lookback_warp,lookback_wrap"), "'lookback_wrap'",
                      "lookback_warp");
  EXPECT_ERROR_NAMING(apply_algorithms(s, "lookback_warp,,chained"), "''");
  EXPECT_ERROR_NAMING(apply_algorithms(s, ""), "''");
  EXPECT_EQ(s.algorithms, default_space().algorithms); // a failed list changes nothing
}

TEST(SearchSpace, SmallInputLimits) {
  const SpaceOptions s = default_space();
  const Policy single = Policy::parse("single_block.tpb256.ipt8.vec4.warp_scans");
  const Policy hillis = Policy::parse("lookback_warp.tpb256.ipt8.vec4.hillis_steele");
  const Policy lookback = Policy::parse("lookback_warp.tpb256.ipt12.vec4.warp_scans");
  EXPECT_TRUE(applies_at(single, 1u << 16, s));
  EXPECT_FALSE(applies_at(single, (1u << 16) + 1, s));
  EXPECT_TRUE(applies_at(hillis, 1u << 20, s));
  EXPECT_FALSE(applies_at(hillis, (1u << 20) + 1, s));
  EXPECT_TRUE(applies_at(lookback, std::uint64_t{1} << 34, s));
  EXPECT_TRUE(applies_at(Policy::sequential(), 1u << 30, s));

  SpaceOptions all = s;
  apply_algorithms(all, "all");
  EXPECT_TRUE(applies_at(single, std::uint64_t{1} << 34, all));
  EXPECT_TRUE(applies_at(hillis, std::uint64_t{1} << 34, all));
}

cudaFuncAttributes attributes(int max_threads, int registers, std::size_t local_bytes) {
  cudaFuncAttributes a{};
  a.maxThreadsPerBlock = max_threads;
  a.numRegs = registers;
  a.localSizeBytes = local_bytes;
  return a;
}

TEST(SearchSpace, KernelConstraints) {
  const Policy p = Policy::parse("reduce_then_scan.tpb512.ipt8.vec4.warp_scans");
  const auto fine = attributes(1024, 64, 0); // 64 x 512 = 32768 registers
  EXPECT_FALSE(kernel_constraint(p, {fine, fine, fine}));
  EXPECT_FALSE(kernel_constraint(p, {attributes(512, 128, 0)})); // exactly 65536 registers
  EXPECT_FALSE(kernel_constraint(p, {}));

  auto spill = kernel_constraint(p, {fine, attributes(1024, 64, 24), fine});
  ASSERT_TRUE(spill);
  EXPECT_NE(spill->find("kernel 1"), std::string::npos) << *spill;
  EXPECT_NE(spill->find("spills 24 bytes"), std::string::npos) << *spill;
  // The few bytes NVRTC's ptxas spills at its 32-register target are timed.
  EXPECT_FALSE(kernel_constraint(p, {fine, attributes(1024, 32, kMaxTimedSpillBytes)}));
  EXPECT_TRUE(kernel_constraint(p, {attributes(1024, 32, kMaxTimedSpillBytes + 1)}));

  auto regs = kernel_constraint(p, {fine, fine, attributes(1024, 130, 0)});
  ASSERT_TRUE(regs);
  EXPECT_NE(regs->find("kernel 2"), std::string::npos) << *regs;
  EXPECT_NE(regs->find("130 registers x 512 threads"), std::string::npos) << *regs;

  auto threads = kernel_constraint(p, {attributes(384, 64, 0)});
  ASSERT_TRUE(threads);
  EXPECT_NE(threads->find("kernel 0"), std::string::npos) << *threads;
  EXPECT_NE(threads->find("384"), std::string::npos) << *threads;
  EXPECT_NE(threads->find("512"), std::string::npos) << *threads;

  // Shared memory: the kernel's static bytes plus the launch's dynamic bytes, against
  // the device's per-block limit (an sm_86 allows 99 KB).
  const Policy pipe = Policy::parse("lookback_pipelined.tpb512.ipt20.vec4.warp_scans.wxpose");
  auto with_static = attributes(1024, 64, 0);
  with_static.sharedSizeBytes = 400;
  const std::size_t stages = pipe.dynamic_shared_bytes(DataType::Int32); // 3 x 40 KB
  EXPECT_EQ(stages, 3u * 512 * 20 * 4);
  EXPECT_FALSE(kernel_constraint(pipe, {with_static}, stages));
  EXPECT_FALSE(kernel_constraint(pipe, {with_static}, stages, stages + 400));
  auto shared = kernel_constraint(pipe, {with_static}, stages, 101376);
  ASSERT_TRUE(shared);
  EXPECT_NE(shared->find("needs 123280 bytes of shared memory"), std::string::npos) << *shared;
  EXPECT_NE(shared->find("allows 101376"), std::string::npos) << *shared;
}

// Two tiles a ticket are bulk neighbours by default; asked for one, none are.
TEST(SearchSpace, TilesPerTicketByDefaultUnlessAskedForOne) {
  const Policy p = Policy::parse("lookback_bulk.tpb256.ipt32.vec4.warp_scans.st7.early");
  const auto plain = keys(neighbours(p, DataType::Int32, default_space()));
  EXPECT_EQ(plain.count("lookback_bulk.tpb256.ipt32.vec4.warp_scans.st7.tk2.early"), 1u);
  SpaceOptions space = default_space();
  for (const SpaceField& f : space_fields())
    if (f.field == "tiles_per_ticket") f.apply(space, "1", f.option);
  const auto one = keys(neighbours(p, DataType::Int32, space));
  EXPECT_EQ(one.count("lookback_bulk.tpb256.ipt32.vec4.warp_scans.st7.tk2.early"), 0u);
  EXPECT_EQ(enumerate(DataType::Int32, space).size(), 34128u - 600u); // the 600 bulk ones
  for (const Policy& q : enumerate(DataType::Int32, default_space()))
    EXPECT_TRUE(q.tiles_per_ticket == 1 || q.algorithm == Algorithm::LookbackBulk) << q.key();
}

TEST(SearchSpace, NeighboursOfATypicalPolicy) {
  const Policy p = Policy::parse("lookback_warp.tpb256.ipt12.vec4.warp_scans");
  const auto n = keys(neighbours(p, DataType::Int32, default_space()));
  const std::set<std::string> expected{
      "lookback_warp.tpb128.ipt12.vec4.warp_scans", // block threads -1 step
      "lookback_warp.tpb512.ipt12.vec4.warp_scans", // +1 step
      "lookback_warp.tpb256.ipt8.vec4.warp_scans",  // items per thread (ipt16 too)
      "lookback_warp.tpb256.ipt16.vec4.warp_scans", //
      "lookback_warp.tpb256.ipt12.vec2.warp_scans", // every vector width (no vec8 for
      "lookback_warp.tpb256.ipt12.vec1.warp_scans", // int32): screening takes the widest
      "lookback_warp.tpb256.ipt12.vec4.hillis_steele",
      "lookback_warp.tpb256.ipt12.vec4.blelloch",
      "lookback_warp.tpb256.ipt12.vec4.blelloch_padded",
      "lookback_warp.tpb256.ipt12.vec4.warp_scans.direct",
      "lookback_warp.tpb256.ipt12.vec4.warp_scans.wxpose", // tile I/O
      "lookback_warp.tpb256.ipt12.vec4.warp_scans.cs",     // cache hints
      "lookback_warp.tpb256.ipt12.vec4.warp_scans.bo200",
      "lookback_warp.tpb256.ipt12.vec4.warp_scans.loop", // a wave of blocks looping
      "lookback_thread.tpb256.ipt12.vec4.warp_scans",    // the other look-back variants
      "lookback_pipelined.tpb256.ipt12.vec4.warp_scans",
      "lookback_bulk.tpb256.ipt12.vec4.warp_scans"};
  EXPECT_EQ(n, expected);

  // Without the other look-back variant in the space, it is no neighbour.
  SpaceOptions s = default_space();
  apply_algorithms(s, "lookback_warp");
  EXPECT_FALSE(keys(neighbours(p, DataType::Int32, s))
                   .count("lookback_thread.tpb256.ipt12.vec4.warp_scans"));
  // Nor backoffs for an algorithm that does not wait on other tiles.
  const auto rts = neighbours(Policy::parse("reduce_then_scan.tpb256.ipt12.vec4.warp_scans"),
                              DataType::Int32, default_space());
  for (const Policy& q : rts)
    EXPECT_EQ(q.backoff_ns, 0) << q.key();
  EXPECT_TRUE(neighbours(Policy::sequential(), DataType::Int32, default_space()).empty());
  // Stage counts are neighbours of the pipelined look-back only, when the space lists them.
  s = default_space();
  s.stages = {3, 4};
  const Policy pipe = Policy::parse("lookback_pipelined.tpb256.ipt12.vec4.warp_scans");
  EXPECT_TRUE(keys(neighbours(pipe, DataType::Int32, s))
                  .count("lookback_pipelined.tpb256.ipt12.vec4.warp_scans.st4"));
  EXPECT_FALSE(keys(neighbours(pipe, DataType::Int32, default_space()))
                   .count("lookback_pipelined.tpb256.ipt12.vec4.warp_scans.st4"));
  for (const Policy& q : neighbours(p, DataType::Int32, s))
    EXPECT_EQ(q.stages, 3) << q.key();
}

TEST(SearchSpace, NeighboursAreValidDistinctOneStepMoves) {
  for (DataType type : {DataType::Int32, DataType::Int64}) {
    const auto space = enumerate(type, default_space());
    for (std::size_t i = 0; i < space.size(); i += 7) {
      const Policy& p = space[i];
      const auto ns = neighbours(p, type, default_space());
      EXPECT_FALSE(ns.empty()) << p.key();
      EXPECT_EQ(keys(ns).size(), ns.size()) << p.key();
      for (const Policy& q : ns) {
        EXPECT_FALSE(q.invalid_reason(type)) << q.key();
        EXPECT_NE(q.key(), p.key());
        EXPECT_EQ(fields_changed(p, q), 1) << p.key() << " -> " << q.key();
      }
    }
  }
}

TEST(SearchSpace, ParseSizes) {
  const auto all = parse_sizes("2^10:2^30:1");
  ASSERT_EQ(all.size(), 21u);
  EXPECT_EQ(all.front(), 1u << 10);
  EXPECT_EQ(all.back(), 1u << 30);
  for (std::size_t i = 1; i < all.size(); ++i)
    EXPECT_EQ(all[i], all[i - 1] * 2);
  const auto even = parse_sizes("2^10:2^30:2");
  ASSERT_EQ(even.size(), 11u);
  EXPECT_EQ(even[1], 1u << 12);
  EXPECT_EQ(even.back(), 1u << 30);
  EXPECT_EQ(parse_sizes("2^10:2^15:2").back(), 1u << 14); // stops at or below the end
  EXPECT_EQ(parse_sizes("2^20"), std::vector<std::uint64_t>{1u << 20});
  EXPECT_EQ(parse_sizes("1000000"), std::vector<std::uint64_t>{1000000});
  EXPECT_EQ(parse_sizes("1024,2^20"), (std::vector<std::uint64_t>{1024, 1u << 20}));
  EXPECT_EQ(parse_sizes("2^20, 1024 ,2^10,1"), (std::vector<std::uint64_t>{1, 1024, 1u << 20}));
  EXPECT_EQ(parse_sizes("1024:4096"), (std::vector<std::uint64_t>{1024, 2048, 4096}));
  EXPECT_EQ(parse_sizes("2^40").back(), std::uint64_t{1} << 40);
  // Half octaves: the largest sizes of the odd size buckets.
  EXPECT_EQ(parse_sizes("1.5x2^20"), std::vector<std::uint64_t>{3u << 19});
  EXPECT_EQ(parse_sizes("2^10:2^12:0.5"),
            (std::vector<std::uint64_t>{1024, 1536, 2048, 3072, 4096}));
  EXPECT_EQ(parse_sizes("1:2^2:0.5"), (std::vector<std::uint64_t>{1, 2, 3, 4}));
  EXPECT_EQ(parse_sizes("1.5x2^39").back(), std::uint64_t{3} << 38);
}

TEST(SearchSpace, ParseSizesRejectsJunk) {
  for (std::string bad : {"",
                          "abc",
                          "2^",
                          "2^x",
                          "2^41",
                          "0",
                          "1099511627777",
                          "-5",
                          "1e6",
                          "2^10:2^5",
                          "1000:2000",
                          "2^10:2^20:0",
                          "2^10:2^20:x2",
                          "2^10:2^12:1:3",
                          "1,,2",
                          "2^10,",
                          "1.5x2^40",
                          "1.5x2^0",
                          "1.5x",
                          "1.5x1024",
                          "2^10:2^20:0.25",
                          "1.5x2^10:2^20"})
    EXPECT_ERROR_NAMING(parse_sizes(bad), "'" + bad + "'");
}

TEST(SearchSpace, ParseIntList) {
  EXPECT_EQ(parse_int_list("64,128", "block threads"), (std::vector<int>{64, 128}));
  const auto every = parse_int_list("1:32", "items per thread");
  ASSERT_EQ(every.size(), 32u);
  EXPECT_EQ(every.front(), 1);
  EXPECT_EQ(every.back(), 32);
  EXPECT_EQ(parse_int_list("64:1024:x2", "block threads"),
            (std::vector<int>{64, 128, 256, 512, 1024}));
  EXPECT_EQ(parse_int_list("4:16:4", "items per thread"), (std::vector<int>{4, 8, 12, 16}));
  EXPECT_EQ(parse_int_list("200, 0", "backoff"), (std::vector<int>{0, 200}));
  EXPECT_EQ(parse_int_list("8,1:4,8", "items per thread"), (std::vector<int>{1, 2, 3, 4, 8}));
}

TEST(SearchSpace, ParseIntListRejectsJunk) {
  for (std::string bad : {"", "a", "64,", "-1", "64:32", "1:32:x1", "1:32:0", "0:8:x2", "1:2:3:4",
                          "99999999999", "1:100000"})
    EXPECT_ERROR_NAMING(parse_int_list(bad, "block threads"), "block threads", "'" + bad + "'");
}

TEST(SearchSpace, SizeLabels) {
  EXPECT_EQ(size_label(1u << 20), "2^20");
  EXPECT_EQ(size_label(1), "2^0");
  EXPECT_EQ(size_label(1000000), "1000000");
  EXPECT_EQ(size_label(std::uint64_t{1} << 40), "2^40");
  EXPECT_EQ(size_label(3u << 19), "1.5x2^20");
  EXPECT_EQ(size_label(3), "1.5x2^1");
}

} // namespace
} // namespace scantune::tuner
