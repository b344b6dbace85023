// Two winners for one size bucket: when a split is worth storing, and where it falls.
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "tuner/run/bucket_split.hpp"

namespace scantune::tuner {
namespace {

constexpr double kFailed = std::numeric_limits<double>::infinity();

// The H100's 64-bit sums in the bucket 1.5 x 2^21, timed at 2.25, 2.75 and 3 x 2^20:
// a one-wave shape, a pipelined one and a bulk one.
const TimeGrid kChanging = {{16500, 23800, 25500}, {18200, 20400, 21800}, {20000, 22000, 23000}};
const std::vector<std::uint64_t> kSizes = {2359296, 2883584, 3145728};

TEST(BucketSplit, WorstRatiosAgainstTheFastestAtEachSize) {
  EXPECT_DOUBLE_EQ(worst_ratio(kChanging, 0, 0, 3), 25500.0 / 21800);
  EXPECT_DOUBLE_EQ(worst_ratio(kChanging, 1, 0, 3), 18200.0 / 16500);
  EXPECT_DOUBLE_EQ(worst_ratio(kChanging, 1, 1, 3), 1.0);
  const OneWinner one = best_worst(kChanging, 0, 3);
  EXPECT_EQ(one.policy, 1u);
  EXPECT_DOUBLE_EQ(one.worst, 18200.0 / 16500);
}

TEST(BucketSplit, TheBestTwoWinnersAndWhereTheySplit) {
  const std::optional<TwoWinners> two = best_two(kChanging);
  ASSERT_TRUE(two);
  EXPECT_EQ(two->after, 1u);
  EXPECT_EQ(two->lower, 0u);
  EXPECT_EQ(two->upper, 1u);
  EXPECT_DOUBLE_EQ(two->worst, 1.0);
  EXPECT_FALSE(best_two({{1.0}, {2.0}})); // one size: nothing to split
}

TEST(BucketSplit, StoredOnlyWhereOneWinnerRunsMoreThanTwoPercentBehind) {
  const std::optional<TwoWinners> split = split_worth_storing(kChanging, 1);
  ASSERT_TRUE(split);
  EXPECT_EQ(split->lower, 0u);
  // Within 2% everywhere: one winner.
  EXPECT_FALSE(split_worth_storing({{100, 101, 100}, {101.5, 100, 101}}, 0));
  // Two winners that would gain less than 1% (1.030 -> 1.025).
  EXPECT_FALSE(split_worth_storing({{100, 103, 100}, {102.5, 100, 103}}, 0));
  // A duelist that failed at a size never serves it: the best pair is the winner twice.
  EXPECT_FALSE(split_worth_storing({{100, 110, 100}, {kFailed, 100, kFailed}}, 0));
  // One that failed at the lowest size can still serve the upper part.
  const std::optional<TwoWinners> upper =
      split_worth_storing({{100, 100, 100}, {kFailed, 90, 95}}, 0);
  ASSERT_TRUE(upper);
  EXPECT_EQ(upper->after, 1u);
  EXPECT_EQ(upper->upper, 1u);
  EXPECT_FALSE(split_worth_storing(kChanging, 7)); // not a duelist
}

} // namespace
} // namespace scantune::tuner
