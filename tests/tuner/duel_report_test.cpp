// `scantune show --duels` reads a bucket's duel back from stored measurements: the
// round (back-to-back measurements of one run) with the most duelists, the sizes it
// timed for several policies, the policies timed at all of them (the median of each
// one's times), and how far one winner and two stay from the fastest at each size.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cache/tuning_db_test_util.hpp"
#include "tuner/report/duel_report.hpp"

namespace {

using namespace scantune::db;
using namespace scantune::db::testing;
using scantune::tuner::best_worst;
using scantune::tuner::duel_buckets;
using scantune::tuner::DuelBucket;
using scantune::tuner::ReportFilter;

const std::string kWave = "lookback_warp.tpb128.ipt20.vec1.warp_scans";
const std::string kPipe = "lookback_pipelined.tpb256.ipt10.vec1.warp_scans";
const std::string kBulk = "lookback_bulk.tpb256.ipt32.vec4.warp_scans.st7";

TEST(DuelReport, BestWorstRatioOverARangeOfSizes) {
  // Two policies at three sizes: A wins the first, B the other two.
  const std::vector<std::vector<double>> t = {{100, 120, 130}, {110, 100, 100}};
  EXPECT_DOUBLE_EQ(best_worst(t, 0, 3).worst, 1.1); // B: 110 / 100 at the first size
  EXPECT_DOUBLE_EQ(best_worst(t, 0, 1).worst, 1.0);
  EXPECT_DOUBLE_EQ(best_worst(t, 1, 3).worst, 1.0);
}

// The bucket 1.5 x 2^21 duelled at 2.25, 2.75 and 3 x 2^20 in one round, as the H100
// did for 64-bit sums: a one-wave shape wins the lowest size by 10% and loses the others.
class DuelReportDb : public ::testing::Test {
protected:
  void SetUp() override {
    db_ = std::make_unique<TuningDb>(TuningDb::open(dir_ / "d.db", rw()));
    h_ = db_->add_device(h100());
    a_ = db_->add_device(a100());
    run_ = db_->begin_run(sample_run(h_));
    add(run_, h_, kWave, {16500, 23800, 25500});
    add(run_, h_, kPipe, {18200, 20400, 21800});
    add(run_, h_, kBulk, {20000, 22000, 23000});
    // Timed at the bucket's own size only (screening): not a duelist.
    db_->add_measurement(ok_measurement(run_, h_, "single_block.tpb1024.ipt4.vec4.warp_scans",
                                        90000, 3u << 20, "int64"));
    // Another model's times never count.
    add(db_->begin_run(sample_run(a_)), a_, kWave, {1000, 1000, 1000});
    BestEntry e = make_best(h_, run_, "int64", 3u << 20, 21800, kPipe);
    db_->set_best(e);
  }
  void add(std::int64_t run, std::int64_t dev, const std::string& policy, std::vector<double> ns) {
    for (std::size_t i = 0; i < sizes_.size(); ++i)
      db_->add_measurement(ok_measurement(run, dev, policy, ns[i], sizes_[i], "int64"));
  }
  const std::vector<std::uint64_t> sizes_ = {2359296, 2883584, 3145728};
  TempDir dir_;
  std::unique_ptr<TuningDb> db_;
  std::int64_t h_ = 0, a_ = 0, run_ = 0;
};

TEST_F(DuelReportDb, OneWinnerAndTwoAgainstTheFastestAtEachDuelSize) {
  const std::vector<DuelBucket> b = duel_buckets(*db_, ReportFilter{"H100", "", "", ""});
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].sizes, sizes_);
  EXPECT_EQ(b[0].duelists, 3);
  EXPECT_EQ(b[0].best.policy, kPipe);
  // The stored winner (pipelined): 18200 / 16500 at the lowest size.
  ASSERT_TRUE(b[0].winner);
  EXPECT_NEAR(*b[0].winner, 18200.0 / 16500, 1e-12);
  // Bulk would be no better at its worst: 20000 / 16500; pipelined is the best one.
  EXPECT_NEAR(b[0].one, 18200.0 / 16500, 1e-12);
  // Two winners: the wave shape up to 2.25 x 2^20, pipelined above, each the fastest.
  EXPECT_EQ(b[0].split_after, 2359296u);
  EXPECT_DOUBLE_EQ(b[0].two, 1.0);
}

TEST_F(DuelReportDb, AStoredSplitIsJudgedOnEachSideOfItsLowerSize) {
  BestEntry e = make_best(h_, run_, "int64", 3u << 20, 21800, kPipe);
  e.lower_policy = kWave;
  e.lower_upto = 2392064; // the wave shape at 2.25 x 2^20 only
  db_->set_best(e);
  std::vector<DuelBucket> b = duel_buckets(*db_, ReportFilter{});
  ASSERT_EQ(b.size(), 1u);
  ASSERT_TRUE(b[0].winner);
  EXPECT_DOUBLE_EQ(*b[0].winner, 1.0);
  e.lower_upto = 2883584; // ... and at 2.75 x 2^20, where pipelined is 17% faster
  db_->set_best(e);
  b = duel_buckets(*db_, ReportFilter{});
  EXPECT_NEAR(*b[0].winner, 23800.0 / 20400, 1e-12);
  e.lower_policy = "lookback_warp.tpb256.ipt12.vec2.warp_scans"; // never duelled
  db_->set_best(e);
  EXPECT_FALSE(duel_buckets(*db_, ReportFilter{})[0].winner);
}

TEST_F(DuelReportDb, TheMedianOfAPolicysTimesAtASizeCounts) {
  // Pipelined re-timed twice at the lowest size: the median of 18200, 16600 and 16650
  // comes within 0.9% of the wave shape there.
  for (double ns : {16600.0, 16650.0})
    db_->add_measurement(ok_measurement(run_, h_, kPipe, ns, sizes_[0], "int64"));
  const std::vector<DuelBucket> b = duel_buckets(*db_, ReportFilter{});
  ASSERT_EQ(b.size(), 1u);
  EXPECT_NEAR(b[0].one, 16650.0 / 16500, 1e-12);
}

TEST_F(DuelReportDb, TimesCompareWithinOneRoundTheOneWithTheMostDuelists) {
  // Another bucket's measurement ends the round; a later round of two duelists, 5%
  // slower, is not the main duel.
  db_->add_measurement(ok_measurement(run_, h_, kWave, 5000, 1u << 20, "int64"));
  add(run_, h_, kWave, {17300, 25000, 26800});
  add(run_, h_, kBulk, {17000, 23100, 24100});
  std::vector<DuelBucket> b = duel_buckets(*db_, ReportFilter{});
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].duelists, 3);
  EXPECT_NEAR(b[0].one, 18200.0 / 16500, 1e-12);
  // A round on another card of the model with as many duelists is the later one: there
  // pipelined is within 1% everywhere.
  const std::int64_t card = db_->add_device(h100("GPU-99999999-2222-3333-4444-555555555555"));
  const std::int64_t run2 = db_->begin_run(sample_run(card));
  add(run2, card, kWave, {16500, 23800, 25500});
  add(run2, card, kPipe, {16600, 20400, 21800});
  add(run2, card, kBulk, {20000, 22000, 23000});
  b = duel_buckets(*db_, ReportFilter{});
  ASSERT_EQ(b.size(), 1u);
  EXPECT_NEAR(b[0].one, 16600.0 / 16500, 1e-12);
}

TEST_F(DuelReportDb, ABucketTimedAtOneSizeWasNotDuelled) {
  BestEntry e = make_best(h_, run_, "int64", 1u << 20, 5000, kWave);
  db_->set_best(e);
  db_->add_measurement(ok_measurement(run_, h_, kWave, 5000, 1u << 20, "int64"));
  db_->add_measurement(ok_measurement(run_, h_, kPipe, 5200, 1u << 20, "int64"));
  const std::vector<DuelBucket> b = duel_buckets(*db_, ReportFilter{});
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].best.size, 3u << 20);
  EXPECT_TRUE(duel_buckets(*db_, ReportFilter{"A100", "", "", ""}).empty());
}

} // namespace
