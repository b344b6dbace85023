// Launch decisions that need no GPU: programmatic dependent launch per architecture
// and the SCANTUNE_PDL knob, the SCANTUNE_TICKETS knob, tile counts over misaligned
// pointers, the status workspace's size against the templates' slot layout.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "common/scoped_env.hpp"
#include "common/spec_sets.hpp"
#include "embedded_templates.hpp"
#include "launch.hpp"
#include "workspace.hpp"

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

// The host sizes the status workspace, the device lays slots out in it: both must
// agree, or the last tiles' slots run past the buffer.
TEST(Launch, StatusWorkspaceFollowsTheTemplatesSlotLayout) {
  std::string text;
  for (std::size_t i = 0; i < detail::kTemplateFileCount; ++i)
    if (std::strcmp(detail::kTemplateFiles[i].name, "scantune/tile_status.cuh") == 0)
      text = detail::kTemplateFiles[i].text;
  ASSERT_FALSE(text.empty());
  auto number_after = [&](const std::string& what) {
    const std::size_t at = text.find(what);
    EXPECT_NE(at, std::string::npos) << what;
    return at == std::string::npos ? 0ul : std::stoul(text.substr(at + what.size()));
  };
  const std::size_t offset_words = number_after("STATUS_OFFSET_WORDS = ");
  const std::size_t slot_words = number_after("#define SCANTUNE_STATUS_SLOT_WORDS ");
  EXPECT_EQ(slot_words, 4u); // one 32-byte L2 sector per tile
  for (std::size_t tiles : {0ul, 1ul, 131072ul})
    EXPECT_EQ(detail::WorkspacePool::status_bytes(tiles), (offset_words + tiles * slot_words) * 8)
        << tiles;
  // An axis tile's column slots are packed, the words of their value each (axis_tile::SLOT).
  for (std::size_t words : {1ul, 2ul, 4ul})
    EXPECT_EQ(detail::WorkspacePool::packed_status_bytes(1000, words),
              (offset_words + 1000 * words) * 8);
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
