// Choosing a size's winner: duels over a whole size bucket and the incumbent's margin.
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tuner/run/winner.hpp"
#include "tuner_test_util.hpp"

namespace scantune::tuner {
namespace {

Policy one_tile() {
  return Policy::parse("lookback_warp.tpb512.ipt4.vec4.warp_scans.direct.cs");
}
Policy one_block() {
  return Policy::parse("single_block.tpb512.ipt2.vec2.warp_scans.direct");
}

TEST(Winner, BucketInnerSizesAreAQuarterAndThreeQuartersIntoTheBucket) {
  using V = std::vector<std::uint64_t>;
  EXPECT_EQ(bucket_inner_sizes(2048), (V{1664, 1920}));           // (1536, 2048]
  EXPECT_EQ(bucket_inner_sizes(3u << 19), (V{1179648, 1441792})); // (2^20, 1.5 x 2^20]
  EXPECT_EQ(bucket_inner_sizes(std::uint64_t{1} << 30), (V{872415232, 1006632960}));
  EXPECT_TRUE(bucket_inner_sizes(1000).empty()); // not a bucket's size
  EXPECT_TRUE(bucket_inner_sizes(2).empty());
}

TEST(Winner, ABucketDuelRanksByTheWorstSizeAndKeepsTheTimeAtTheBucketsSize) {
  // One tile of 2048 is 5% faster at 2^11 but takes its partial-tile path inside the
  // bucket, where the single block is 20% faster: the single block serves it better.
  FixedTimes eval;
  eval.ns = {{{one_tile().key(), 2048}, 1900}, {{one_block().key(), 2048}, 2000},
             {{one_tile().key(), 1664}, 2400}, {{one_block().key(), 1664}, 2000},
             {{one_tile().key(), 1920}, 2400}, {{one_block().key(), 1920}, 2000}};
  const std::vector<Result> d = bucket_duel(eval, {one_tile(), one_block()}, 2048);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_DOUBLE_EQ(d[0].median_ns, 1900);
  EXPECT_DOUBLE_EQ(d[0].rank_ns, 1900 * 1.2); // 20% behind the fastest at worst
  EXPECT_DOUBLE_EQ(d[1].rank_ns, 2000);       // 2000 / 1900 at 2^11
  const std::optional<Winner> w = pick_winner(d, d[0]);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->result.policy, one_block());
  EXPECT_DOUBLE_EQ(w->result.median_ns, 2000); // what the database stores for 2^11
  EXPECT_EQ(eval.calls_of(one_tile().key()), 3 * duel_rounds(2048));
}

TEST(Winner, ABucketDuelReportsEachSizesTimesForTwoWinners) {
  FixedTimes eval;
  eval.ns = {{{one_tile().key(), 2048}, 1900},
             {{one_block().key(), 2048}, 2000},
             {{one_tile().key(), 1664}, 2400},
             {{one_block().key(), 1920}, 2000}};
  DuelGrid grid;
  bucket_duel(eval, {one_tile(), one_block()}, 2048, &grid);
  EXPECT_EQ(grid.sizes, (std::vector<std::uint64_t>{1664, 1920, 2048}));
  ASSERT_EQ(grid.times.size(), 2u);
  EXPECT_EQ(grid.times[0][0], 2400);
  EXPECT_EQ(grid.times[0][1], std::numeric_limits<double>::infinity()); // not timed there
  EXPECT_EQ(grid.times[0][2], 1900);
  EXPECT_EQ(grid.times[1][2], 2000);
  DuelGrid plain; // timed at the bucket's size only: no grid
  bucket_duel(eval, {one_tile()}, std::uint64_t{1} << 24, &plain);
  EXPECT_TRUE(plain.sizes.empty());
}

// The two winners of a bucket cross where the lower one stops fitting one wave, not
// halfway between the duel's sizes: bisection finds it.
TEST(Winner, TwoWinnersSplitWhereTheyCross) {
  struct Cliff : Evaluator {
    Policy wave = one_tile(), wide = one_block();
    Result measure(const Policy& p, std::uint64_t n, Effort, double) override {
      Result r;
      r.policy = p;
      r.median_ns = p == wave ? (n <= 1700 ? 1000.0 : 1300.0) : 1100.0;
      return r;
    }
  } eval;
  EXPECT_EQ(find_crossover(eval, eval.wave, eval.wide, 1664, 1920), 1696u); // within 8 of 1700
  FixedTimes none; // untimed between: the midpoint
  EXPECT_EQ(find_crossover(none, one_tile(), one_block(), 1664, 1920), 1792u);
}

TEST(Winner, ABucketDuelPicksTheBestWorstCaseOverTheSumOfTimes) {
  // The tile's times sum lower (2850 against 2880), but at 1664 it runs 15% behind;
  // the block is never more than 11% behind.
  FixedTimes eval;
  eval.ns = {{{one_tile().key(), 2048}, 900},  {{one_block().key(), 2048}, 1000},
             {{one_tile().key(), 1920}, 800},  {{one_block().key(), 1920}, 880},
             {{one_tile().key(), 1664}, 1150}, {{one_block().key(), 1664}, 1000}};
  const std::vector<Result> d = bucket_duel(eval, {one_tile(), one_block()}, 2048);
  EXPECT_EQ(pick_winner(d, d[0])->result.policy, one_block());
}

TEST(Winner, ABucketDuelWithoutTimesInsideTheBucketIsThePlainDuel) {
  FixedTimes eval; // times at 2^11 only, as a recording of whole octaves
  eval.ns = {{{one_tile().key(), 2048}, 1900}, {{one_block().key(), 2048}, 2000}};
  const std::vector<Result> d = bucket_duel(eval, {one_tile(), one_block()}, 2048);
  EXPECT_TRUE(d[0].ok());
  EXPECT_EQ(d[0].rank_ns, 0);
  EXPECT_EQ(pick_winner(d, d[1])->result.policy, one_tile());
  // From 2^24 up a duel stays at the bucket's size.
  FixedTimes large({{one_tile().key(), 1e5}});
  bucket_duel(large, {one_tile()}, std::uint64_t{1} << 24);
  EXPECT_EQ(large.calls_of(one_tile().key()), duel_rounds(std::uint64_t{1} << 24));
}

TEST(Winner, APolicyThatFailsInsideTheBucketCannotWinIt) {
  FixedTimes eval;
  eval.ns = {{{one_tile().key(), 2048}, 1500},
             {{one_block().key(), 2048}, 2000},
             {{one_block().key(), 1664}, 2000},
             {{one_block().key(), 1920}, 2000}};
  const std::vector<Result> d = bucket_duel(eval, {one_block(), one_tile()}, 2048);
  EXPECT_FALSE(d[1].ok());
  EXPECT_EQ(pick_winner(d, d[0])->result.policy, one_block());
}

TEST(Winner, AFinalDuelRetimesSixFinalistsBelowTwoToTheThirteenThreeAbove) {
  std::vector<Result> finalists;
  FixedTimes eval;
  for (int tpb : {64, 128, 256, 512, 1024}) // tpb512 ipt4 vec4 below is the sixth
    for (int ipt : {1, 2}) {
      Result r;
      r.policy = Policy::parse("lookback_warp.tpb" + std::to_string(tpb) + ".ipt" +
                               std::to_string(ipt) + ".vec1.warp_scans");
      r.median_ns = 1000.0 + tpb + ipt; // ranked by block size, then items
      finalists.push_back(r);
      eval.ns[{r.policy.key(), 0}] = r.median_ns;
    }
  eval.ns[{one_block().key(), 0}] = 5000;
  auto duelled = [&](std::uint64_t n) {
    eval.calls.clear();
    final_duel(eval, finalists, one_block(), n);
    std::set<std::string> keys;
    for (const auto& c : eval.calls)
      keys.insert(c.first);
    return keys.size(); // the finalists and the incumbent
  };
  EXPECT_EQ(duelists(1024), 6u);
  EXPECT_EQ(duelled(1024), 7u);
  EXPECT_EQ(duelists(std::uint64_t{1} << 13), 3u);
  EXPECT_EQ(duelled(std::uint64_t{1} << 20), 4u);
}

} // namespace
} // namespace scantune::tuner
