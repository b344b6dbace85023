// Residency neighbours (tuner/search/residency.hpp) and `--min-blocks auto`.
#include <gtest/gtest.h>

#include "tuner/search/residency.hpp"
#include "tuner/search/search_space.hpp"

namespace scantune::tuner {
namespace {

const detail::SmLimits kH100 = *detail::sm_limits(90);

std::vector<std::string> keys(const std::vector<Policy>& policies) {
  std::vector<std::string> out;
  for (const Policy& p : policies)
    out.push_back(p.key());
  return out;
}

TEST(Residency, RegistersThatBindGetOneBlockMoreAndAllTheOthersAllow) {
  // The byte sums' bulk winner: 78 registers hold 2 blocks of 352 threads, its 48 KB
  // of stages 4 (scantune compile).
  const Policy bulk = Policy::parse("lookback_bulk.tpb256.ipt32.vec16.warp_scans.st6");
  const ScanTypes bytes = scan_types(DataType::Int8);
  EXPECT_EQ(keys(residency_neighbours(bulk, 78, bytes, kH100)),
            (std::vector<std::string>{"lookback_bulk.tpb256.ipt32.vec16.warp_scans.st6.mb3",
                                      "lookback_bulk.tpb256.ipt32.vec16.warp_scans.st6.mb4"}));
  // keys32's winner, 512 threads: 37 registers hold 3 blocks, threads 4: one variant.
  const Policy warp = Policy::parse("lookback_warp.tpb512.ipt12.vec1.warp_scans.wxpose.cs");
  EXPECT_EQ(keys(residency_neighbours(warp, 37, ScanTypes{}, kH100)),
            (std::vector<std::string>{"lookback_warp.tpb512.ipt12.vec1.warp_scans.wxpose.cs.mb4"}));
}

TEST(Residency, NoneWhereRegistersDoNotBindOrAMinimumIsSet) {
  // int32's bulk winner: 224 KB of stages hold one block whatever its registers.
  const Policy big = Policy::parse("lookback_bulk.tpb256.ipt32.vec4.warp_scans.st7");
  EXPECT_TRUE(residency_neighbours(big, 96, ScanTypes{}, kH100).empty());
  // 32 registers already let the thread limit bind.
  const Policy warp = Policy::parse("lookback_warp.tpb512.ipt12.vec1.warp_scans.wxpose.cs");
  EXPECT_TRUE(residency_neighbours(warp, 32, ScanTypes{}, kH100).empty());
  EXPECT_TRUE(residency_neighbours(Policy::parse("lookback_warp.tpb512.ipt12.vec1.warp_scans.mb3"),
                                   37, ScanTypes{}, kH100)
                  .empty());
  EXPECT_TRUE(residency_neighbours(warp, 0, ScanTypes{}, kH100).empty()); // unknown registers
}

TEST(Residency, OnByDefaultAndWithMinBlocksAutoOffWithoutIt) {
  for (const SpaceField& f : space_fields()) {
    if (f.option != "--min-blocks") continue;
    SpaceOptions space = default_space();
    EXPECT_TRUE(space.residency_neighbours);
    f.apply(space, "auto", f.option);
    EXPECT_TRUE(space.residency_neighbours);
    EXPECT_EQ(space.other_fields["min_blocks"], std::vector<int>{0});
    SpaceOptions both = default_space();
    f.apply(both, "0,2,auto", f.option);
    EXPECT_TRUE(both.residency_neighbours);
    EXPECT_EQ(both.other_fields["min_blocks"], (std::vector<int>{0, 2}));
    SpaceOptions counts = default_space();
    f.apply(counts, "0,3", f.option);
    EXPECT_FALSE(counts.residency_neighbours);
    SpaceOptions off = default_space();
    f.apply(off, "0", f.option);
    EXPECT_FALSE(off.residency_neighbours);
    EXPECT_THROW(f.apply(counts, "0,bogus", f.option), Error);
    return;
  }
  FAIL() << "no --min-blocks field";
}

} // namespace
} // namespace scantune::tuner
