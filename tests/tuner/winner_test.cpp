// Choosing a size's winner: duels over a whole size bucket and the incumbent's margin.
#include <cstdint>
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

TEST(Winner, BucketInnerSizeIsHalfwayIntoTheBucket) {
  EXPECT_EQ(bucket_inner_size(2048), 1792u);        // (1536, 2048]
  EXPECT_EQ(bucket_inner_size(3u << 19), 1310720u); // (2^20, 1.5 x 2^20]
  EXPECT_EQ(bucket_inner_size(std::uint64_t{1} << 30), 939524096u);
  EXPECT_EQ(bucket_inner_size(1000), 0u); // not a bucket's size
  EXPECT_EQ(bucket_inner_size(2), 0u);
}

TEST(Winner, ABucketDuelRanksByBothSizesAndKeepsTheTimeAtTheBucketsSize) {
  // One tile of 2048 is 5% faster at 2^11 but takes its partial-tile path at 1792,
  // where the single block is 20% faster: the single block serves the bucket better.
  FixedTimes eval;
  eval.ns = {{{one_tile().key(), 2048}, 1900},
             {{one_block().key(), 2048}, 2000},
             {{one_tile().key(), 1792}, 2400},
             {{one_block().key(), 1792}, 2000}};
  const std::vector<Result> d = bucket_duel(eval, {one_tile(), one_block()}, 2048);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_DOUBLE_EQ(d[0].median_ns, 1900);
  EXPECT_DOUBLE_EQ(d[0].rank_ns, 4300);
  EXPECT_DOUBLE_EQ(d[1].rank_ns, 4000);
  const std::optional<Winner> w = pick_winner(d, d[0]);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->result.policy, one_block());
  EXPECT_DOUBLE_EQ(w->result.median_ns, 2000); // what the database stores for 2^11
  EXPECT_EQ(eval.calls_of(one_tile().key()), 2 * duel_rounds(2048));
}

TEST(Winner, ABucketDuelWithoutTimesInsideTheBucketIsThePlainDuel) {
  FixedTimes eval; // times at 2^11 only, as a recording of whole octaves
  eval.ns = {{{one_tile().key(), 2048}, 1900}, {{one_block().key(), 2048}, 2000}};
  const std::vector<Result> d = bucket_duel(eval, {one_tile(), one_block()}, 2048);
  EXPECT_TRUE(d[0].ok());
  EXPECT_EQ(d[0].rank_ns, 0);
  EXPECT_EQ(pick_winner(d, d[1])->result.policy, one_tile());
  // From 2^22 up a duel stays at the bucket's size.
  FixedTimes large({{one_tile().key(), 1e5}});
  bucket_duel(large, {one_tile()}, std::uint64_t{1} << 22);
  EXPECT_EQ(large.calls_of(one_tile().key()), duel_rounds(std::uint64_t{1} << 22));
}

TEST(Winner, APolicyThatFailsInsideTheBucketCannotWinIt) {
  FixedTimes eval;
  eval.ns = {{{one_tile().key(), 2048}, 1500},
             {{one_block().key(), 2048}, 2000},
             {{one_block().key(), 1792}, 2000}};
  const std::vector<Result> d = bucket_duel(eval, {one_block(), one_tile()}, 2048);
  EXPECT_FALSE(d[1].ok());
  EXPECT_EQ(pick_winner(d, d[0])->result.policy, one_block());
}

} // namespace
} // namespace scantune::tuner
