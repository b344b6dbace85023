// Dispatcher regret (`scantune bench --regret`): the sizes between tuned buckets,
// the candidates from a real SQLite database, and the arithmetic and renderings
// with an evaluator that returns fixed times.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cache/tuning_db.hpp"
#include "tests/cache/tuning_db_test_util.hpp"
#include "tuner/report/regret_report.hpp"
#include "tuner/run/regret_run.hpp"
#include "tuner_test_util.hpp"

namespace scantune::tuner {
namespace {

using db::testing::TempDir;

constexpr std::uint64_t k(int e) {
  return std::uint64_t{1} << e;
}

const char* const kWin10 = "single_block.tpb256.ipt4.vec4.warp_scans";
const char* const kWin11 = "lookback_warp.tpb256.ipt12.vec4.warp_scans";
const char* const kWin12 = "lookback_warp.tpb512.ipt8.vec4.warp_scans";
const char* const kOther = "reduce_then_scan.tpb256.ipt8.vec4.warp_scans";
const char* const kThird = "chained.tpb256.ipt8.vec4.warp_scans";

/// A database with winners of int32 sum inclusive at 2^10, 2^11, 2^12 on one H100
/// and the measurements of their runs (plus another model's winner, ignored).
class RegretDb : public ::testing::Test {
protected:
  void SetUp() override {
    h100 = device("NVIDIA H100 80GB HBM3");
    db::RunInfo info;
    info.device_id = h100.id;
    run = store.begin_run(info);
    winner(h100, k(10), kWin10);
    winner(h100, k(12), kWin12);
    winner(h100, k(11), kWin11);
    winner(device("NVIDIA H200"), k(11), kThird);
    for (auto [size, policy, ns] :
         std::vector<std::tuple<std::uint64_t, std::string, double>>{{k(11), kWin11, 100},
                                                                     {k(11), kOther, 110},
                                                                     {k(11), kOther, 105},
                                                                     {k(11), kThird, 120},
                                                                     {k(12), kWin12, 200},
                                                                     {k(12), kThird, 210}})
      measurement(size, policy, ns);
  }
  db::DeviceInfo device(const std::string& name) {
    db::DeviceInfo d;
    d.name = name;
    d.cc_major = 9;
    d.sm_count = 132;
    d.id = store.add_device(d);
    return d;
  }
  void winner(const db::DeviceInfo& d, std::uint64_t n, const std::string& policy) {
    db::BestEntry e;
    e.device_id = d.id;
    e.type = "int32";
    e.op = "sum";
    e.kind = "inclusive";
    e.size = n;
    e.policy = policy;
    e.ns = 1000;
    e.gbs = 1;
    store.set_best(e);
  }
  void measurement(std::uint64_t n, const std::string& policy, double ns) {
    db::Measurement m;
    m.run_id = run;
    m.device_id = h100.id;
    m.type = "int32";
    m.op = "sum";
    m.kind = "inclusive";
    m.size = n;
    m.policy = policy;
    m.median_ns = m.min_ns = m.max_ns = ns;
    m.samples = 10;
    m.gbs = 1;
    store.add_measurement(m);
  }
  std::vector<std::string> keys(const std::vector<Policy>& ps) {
    std::vector<std::string> out;
    for (const Policy& p : ps)
      out.push_back(p.key());
    return out;
  }

  TempDir dir;
  db::TuningDb store = db::TuningDb::open((dir / "tuning.db").string());
  db::DeviceInfo h100;
  std::int64_t run = 0;
};

TEST(RegretSizes, AreTheTunedSizesAndTheQuarterPointsBetweenThem) {
  EXPECT_EQ(regret_sizes({k(12), k(10), k(11), k(11)}),
            (std::vector<std::uint64_t>{k(10), 1280, 1792, k(11), 2560, 3584, k(12)}));
  EXPECT_EQ(regret_sizes({k(20)}), (std::vector<std::uint64_t>{k(20)}));
  EXPECT_EQ(regret_sizes({5, 7}), (std::vector<std::uint64_t>{5, 7})); // too close to split
  EXPECT_TRUE(regret_sizes({}).empty());
}

TEST_F(RegretDb, TunedEntriesAreThisModelsWinnersBySize) {
  const auto tuned = tuned_entries(store, h100.model(), int32_sum_inclusive());
  ASSERT_EQ(tuned.size(), 3u);
  EXPECT_EQ(tuned[0].size, k(10));
  EXPECT_EQ(tuned[1].policy, kWin11);
  EXPECT_EQ(tuned[2].size, k(12));
  Problem max = int32_sum_inclusive();
  max.op = detail::OpSpec::from(OpRef(Op::Max));
  EXPECT_TRUE(tuned_entries(store, h100.model(), max).empty());
  EXPECT_EQ(regret_sizes({tuned[0].size, tuned[1].size, tuned[2].size}).size(), 7u);
}

TEST_F(RegretDb, CandidatesAreTheNeighboursWinnersThenTheirTopMeasured) {
  const auto tuned = tuned_entries(store, h100.model(), int32_sum_inclusive());
  // Between 2^11 and 2^12: both winners, then each side's fastest distinct policies.
  EXPECT_EQ(keys(regret_candidates(store, tuned, 3000, 3)),
            (std::vector<std::string>{kWin11, kWin12, kOther, kThird}));
  EXPECT_EQ(keys(regret_candidates(store, tuned, 3000, 0)),
            (std::vector<std::string>{kWin11, kWin12}));
  // Top 2 at 2^11 is the winner and kOther (its faster measurement); kThird from 2^12.
  EXPECT_EQ(keys(regret_candidates(store, tuned, 3000, 2)),
            (std::vector<std::string>{kWin11, kWin12, kOther, kThird}));
  EXPECT_EQ(keys(regret_candidates(store, tuned, 3000, 1)),
            (std::vector<std::string>{kWin11, kWin12}));
  // A tuned size: its own winner and measurements alone.
  EXPECT_EQ(keys(regret_candidates(store, tuned, k(11), 3)),
            (std::vector<std::string>{kWin11, kOther, kThird}));
  // The single-block winner of 2^10 serves no larger bucket, as in the dispatcher.
  EXPECT_EQ(keys(regret_candidates(store, tuned, 1280, 0)), (std::vector<std::string>{kWin11}));
  EXPECT_EQ(keys(regret_candidates(store, tuned, 1000, 0)), (std::vector<std::string>{kWin10}));
  EXPECT_EQ(keys(regret_candidates(store, tuned, k(20), 0)), (std::vector<std::string>{kWin12}));
}

TEST(RegretAt, TimesEachPolicyInRoundsAndComparesWithTheFastest) {
  FixedTimes eval({{kWin11, 103}, {kWin12, 100}, {kOther, 150}});
  const RegretPoint p =
      regret_at(eval, 3000, Policy::parse(kWin11),
                {Policy::parse(kWin11), Policy::parse(kWin12), Policy::parse(kOther)}, 3);
  EXPECT_EQ(p.n, 3000u);
  EXPECT_EQ(p.dispatched, kWin11);
  EXPECT_EQ(p.best, kWin12);
  EXPECT_EQ(p.candidates, 3); // the dispatched one counted once
  EXPECT_DOUBLE_EQ(*p.dispatched_ns, 103);
  EXPECT_DOUBLE_EQ(*p.best_ns, 100);
  EXPECT_NEAR(*p.regret_percent(), 3.0, 1e-9);
  EXPECT_EQ(eval.calls_of(kWin11), 6); // the duel of all, then of the two
  EXPECT_EQ(eval.calls_of(kWin12), 6);
  EXPECT_EQ(eval.calls_of(kOther), 3);
}

/// Times each policy's calls from a list (the last one repeats).
class ListedTimes : public FixedTimes {
public:
  std::map<std::string, std::vector<double>> listed;
  Result measure(const Policy& policy, std::uint64_t n, Effort e, double limit) override {
    Result r = FixedTimes::measure(policy, n, e, limit);
    const std::vector<double>& t = listed.at(policy.key());
    r.median_ns = r.min_ns = r.max_ns =
        t[std::min<std::size_t>(calls_of(policy.key()) - 1, t.size() - 1)];
    r.status = db::MeasurementStatus::Ok;
    return r;
  }
};

TEST(RegretAt, TheFastestIsRetimedAgainstTheDispatchedOne) {
  // kWin12's first three calls ran lucky (90); re-timed with kWin11 alone it ties it.
  ListedTimes eval;
  eval.listed = {{kWin11, {100}}, {kWin12, {90, 90, 90, 100}}, {kOther, {150}}};
  const RegretPoint p = regret_at(eval, 3000, Policy::parse(kWin11),
                                  {Policy::parse(kWin12), Policy::parse(kOther)}, 3);
  EXPECT_EQ(p.best, kWin11); // the dispatched one wins the tie
  EXPECT_DOUBLE_EQ(*p.best_ns, 100);
  EXPECT_DOUBLE_EQ(*p.regret_percent(), 0.0);
  EXPECT_EQ(eval.calls_of(kOther), 3); // not in the second duel
}

TEST(RegretAt, ADispatchedPolicyThatFailsHasNoRegretButANote) {
  FixedTimes eval({{kWin12, 100}});
  const RegretPoint p = regret_at(eval, 3000, Policy::parse(kWin11), {Policy::parse(kWin12)});
  EXPECT_FALSE(p.dispatched_ns);
  EXPECT_EQ(p.best, kWin12);
  EXPECT_FALSE(p.regret_percent());
  EXPECT_NE(p.note.find("mismatch at 7"), std::string::npos) << p.note;
}

RegretReport sample_report() {
  RegretReport r{"NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)", "int32 sum inclusive", 3, {}};
  r.points.push_back({k(11), true, kWin11, kWin11, 100.0, 100.0, 3, ""});
  r.points.push_back({2560, false, kWin11, kWin12, 1050.0, 1000.0, 4, ""});
  r.points.push_back({3584, false, kWin12, kWin12, 2000.0, 2000.0, 4, ""});
  r.points.push_back({k(12), true, kWin12, "", std::nullopt, std::nullopt, 1, "no time"});
  return r;
}

TEST(RegretReport, TableHasOneRowPerSizeAndTheWorstInTheSummary) {
  const RegretReport r = sample_report();
  ASSERT_EQ(r.worst(), &r.points[1]);
  const std::string md = regret_markdown(r);
  EXPECT_NE(md.find(" n | dispatched "), std::string::npos) << md;
  EXPECT_NE(md.find("regret %"), std::string::npos) << md;
  EXPECT_NE(md.find("2^11 (tuned)"), std::string::npos) << md;
  EXPECT_NE(md.find(" 2560 | lookback_warp"), std::string::npos) << md;
  EXPECT_NE(md.find("5.0"), std::string::npos) << md;
  EXPECT_NE(md.find("(same)"), std::string::npos) << md;
  EXPECT_NE(md.find("| - (no time) |"), std::string::npos) << md;
  EXPECT_NE(md.find("worst regret 5.0% at n = 2560 (1 of 4 sizes above the 3% goal)"),
            std::string::npos)
      << md;
  EXPECT_EQ(regret_summary(RegretReport{}), "no size has both times: no regret measured");
}

TEST(RegretReport, JsonCarriesEveryPointAndTheWorst) {
  const nlohmann::json j = regret_to_json(sample_report());
  ASSERT_EQ(j["points"].size(), 4u);
  EXPECT_EQ(j["points"][1]["n"], 2560);
  EXPECT_EQ(j["points"][1]["best"], kWin12);
  EXPECT_NEAR(j["points"][1]["regret_percent"].get<double>(), 5.0, 1e-9);
  EXPECT_TRUE(j["points"][3]["regret_percent"].is_null());
  EXPECT_EQ(j["points"][3]["note"], "no time");
  EXPECT_EQ(j["worst"]["n"], 2560);
  EXPECT_EQ(j["goal_percent"], kRegretGoalPercent);
}

TEST(RegretReport, PlotIsRegretAgainstLog2NWithTheGoal) {
  const PlotData d = regret_plot(sample_report());
  ASSERT_EQ(d.series.size(), 2u);
  ASSERT_EQ(d.series[0].points.size(), 3u); // the size without times is left out
  EXPECT_DOUBLE_EQ(d.series[0].points[0].log2_size, 11);
  EXPECT_NEAR(d.series[0].points[1].gbs, 5.0, 1e-9);
  EXPECT_TRUE(d.series[1].dashed);
  EXPECT_DOUBLE_EQ(d.series[1].points.back().gbs, kRegretGoalPercent);
  const std::string svg = render_svg(d);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("dispatcher regret"), std::string::npos);
}

} // namespace
} // namespace scantune::tuner
