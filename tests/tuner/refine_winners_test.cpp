// The grid neighbours of each size's winner, screened and dueled at its size.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tuner/run/refine_winners.hpp"
#include "tuner/run/winner.hpp"
#include "tuner_test_util.hpp"

namespace scantune::tuner {
namespace {

Policy wide() {
  return Policy::parse("lookback_warp.tpb1024.ipt4.vec4.warp_scans.direct.cs");
}
Policy half() {
  return Policy::parse("lookback_warp.tpb512.ipt4.vec4.warp_scans.direct.cs");
}
Policy longer() {
  return Policy::parse("lookback_warp.tpb1024.ipt6.vec2.warp_scans.direct.cs");
}

// Every size's neighbours are the other two shapes.
std::vector<Policy> others(const Result& w, std::uint64_t) {
  std::vector<Policy> out;
  for (const Policy& q : {wide(), half(), longer()})
    if (q != w.policy) out.push_back(q);
  return out;
}

TEST(RefineWinners, AFasterNeighbourReplacesTheWinnerAtItsOwnSizeOnly) {
  // 2^16's search kept the 1024-thread shape; the 512-thread one beside it is 9% faster
  // there, and slower at 2^17.
  FixedTimes eval;
  eval.ns = {{{wide().key(), 1u << 16}, 3300},   {{half().key(), 1u << 16}, 3020},
             {{longer().key(), 1u << 16}, 3600}, {{wide().key(), 1u << 17}, 3420},
             {{half().key(), 1u << 17}, 3630},   {{longer().key(), 1u << 17}, 3700}};
  const std::vector<std::uint64_t> sizes{1u << 16, 1u << 17};
  std::vector<std::optional<Result>> won{won_by(wide(), sizes[0], 3300),
                                         won_by(wide(), sizes[1], 3420)};
  const std::vector<SizeRevision> r = refine_winners(eval, sizes, won, others);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].size, sizes[0]);
  EXPECT_EQ(r[0].winner.policy, half());
  EXPECT_EQ(r[0].before, wide().key());
  EXPECT_NEAR(r[0].gain, 3300.0 / 3020.0, 1e-9);
  EXPECT_EQ(won[0]->policy, half());
  EXPECT_EQ(won[1]->policy, wide());
  // At 2^17 no neighbour screened near the winner: no duel there. At 2^16 the duel's
  // rounds, and one call at each of the bucket's inner sizes, which these times leave out.
  EXPECT_EQ(eval.calls_of(wide().key()), duel_rounds(sizes[0]) + 2);
}

TEST(RefineWinners, ANeighbourWithinTheNoiseLeavesTheWinnerAndAFailingOneIsSkipped) {
  FixedTimes eval;
  eval.ns = {{{wide().key(), 1u << 16}, 3300}, {{half().key(), 1u << 16}, 3295}};
  // `longer` has no time: it fails (a wrong result) and is never dueled.
  const std::vector<std::uint64_t> sizes{1u << 16};
  std::vector<std::optional<Result>> won{won_by(wide(), sizes[0], 3300)};
  EXPECT_TRUE(refine_winners(eval, sizes, won, others).empty());
  EXPECT_EQ(won[0]->policy, wide());
  EXPECT_EQ(eval.calls_of(longer().key()), 1);
  // A size without a winner is left alone.
  std::vector<std::optional<Result>> none{std::nullopt};
  EXPECT_TRUE(refine_winners(eval, sizes, none, others).empty());
}

} // namespace
} // namespace scantune::tuner
