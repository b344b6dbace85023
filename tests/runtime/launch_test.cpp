// Launch decisions that need no GPU: programmatic dependent launch per architecture
// and the SCANTUNE_PDL knob, the SCANTUNE_TICKETS knob, tile counts over misaligned
// pointers.
#include <gtest/gtest.h>

#include <cstdlib>

#include "common/scoped_env.hpp"
#include "common/spec_sets.hpp"
#include "launch.hpp"

namespace scantune::test {
namespace {

TEST(Launch, ProgrammaticLaunchFromSm90UpUnlessTurnedOff) {
  ScopedEnv unset("SCANTUNE_PDL", std::nullopt);
  EXPECT_FALSE(detail::programmatic_launch(80, true));
  EXPECT_FALSE(detail::programmatic_launch(89, true));
  EXPECT_TRUE(detail::programmatic_launch(90, true));
  EXPECT_TRUE(detail::programmatic_launch(100, true));
  EXPECT_FALSE(detail::programmatic_launch(90, false)); // ScannerOptions::programmatic_launch
  {
    ScopedEnv off("SCANTUNE_PDL", "0");
    EXPECT_FALSE(detail::programmatic_launch(90, true));
  }
  ScopedEnv on("SCANTUNE_PDL", "1");
  EXPECT_TRUE(detail::programmatic_launch(90, true));
}

TEST(Launch, TilesFollowBlockIndexUnlessTicketsAreForced) {
  {
    ScopedEnv unset("SCANTUNE_TICKETS", std::nullopt);
    EXPECT_TRUE(detail::tiles_by_block_from_env());
    EXPECT_TRUE(detail::LaunchTarget{}.tiles_by_block);
  }
  {
    ScopedEnv zero("SCANTUNE_TICKETS", "0");
    EXPECT_TRUE(detail::tiles_by_block_from_env());
  }
  ScopedEnv one("SCANTUNE_TICKETS", "1");
  EXPECT_FALSE(detail::tiles_by_block_from_env());
}

TEST(Launch, TileCountCountsTheMisalignedHead) {
  const Policy p =
      make_policy(Algorithm::LookbackWarp, 128, 4, 4, BlockScan::WarpScans, TileIO::Transpose);
  EXPECT_EQ(detail::tile_count(p, 512, 0), 1u);
  EXPECT_EQ(detail::tile_count(p, 512, 3), 2u);
  EXPECT_EQ(detail::tile_count(p, 513, 0), 2u);
  alignas(16) int data[8] = {};
  EXPECT_EQ(detail::misalignment(data, sizeof(int), 4), 0u);
  EXPECT_EQ(detail::misalignment(data + 3, sizeof(int), 4), 3u);
}

} // namespace
} // namespace scantune::test
