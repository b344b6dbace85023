// Launch decisions that need no GPU: programmatic dependent launch per architecture
// and the SCANTUNE_PDL knob, tile counts over misaligned pointers.
#include <gtest/gtest.h>

#include <cstdlib>

#include "common/spec_sets.hpp"
#include "launch.hpp"

namespace scantune::test {
namespace {

class ScopedEnv {
public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_)
      ::setenv(name_, old_.c_str(), 1);
    else
      ::unsetenv(name_);
  }

private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(Launch, ProgrammaticLaunchFromSm90UpUnlessTurnedOff) {
  ::unsetenv("SCANTUNE_PDL");
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
