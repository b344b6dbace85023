// Whole `run_tune` runs in simulation mode over a real recording: the exhaustive
// search of int32 inclusive sums on an H100 over the default space at 2^10..2^30
// (95122 measurements). No GPU needed.
#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include <gtest/gtest.h>

#include "cache/tuning_db.hpp"
#include "cache/tuning_db_test_util.hpp"
#include "dispatch.hpp"
#include "tuner/run/tune.hpp"
#include "tuner/search/simulated_evaluator.hpp"
#include "tuner_test_util.hpp"

namespace scantune::tuner {
namespace {

using db::testing::EnvGuard;
using db::testing::TempDir;

TuneOptions simulated(const TempDir& dir, const std::string& strategy) {
  TuneOptions o;
  o.simulate_db = SCANTUNE_RECORDED_DB;
  o.db_path = (dir / (strategy + ".db")).string();
  o.strategy = strategy;
  o.progress = Progress::Mode::Quiet;
  // The space the recording was made with (before the warp transpose, the cache
  // hints and the look-ahead kernel joined the default).
  o.space.algorithms = {Algorithm::SingleBlock, Algorithm::ReduceThenScan,
                        Algorithm::LookbackThread, Algorithm::LookbackWarp};
  o.space.ios = {TileIO::Transpose, TileIO::Direct};
  o.space.streaming = {false};
  return o;
}

/// Runs `o` with its output in a temporary file; returns the exit code.
int run(const TuneOptions& o) {
  std::FILE* out = std::tmpfile();
  const int rc = run_tune(o, out);
  std::fclose(out);
  return rc;
}

/// Runs `o`, which must succeed; returns what it printed.
std::string run_text(const TuneOptions& o) {
  return printed_by([&](std::FILE* f) { return run_tune(o, f); });
}

/// The recorded medians, per size and policy.
std::map<std::uint64_t, std::map<std::string, double>> recorded_medians() {
  db::OpenOptions ro;
  ro.mode = db::OpenMode::ReadOnly;
  auto rec = db::TuningDb::open(SCANTUNE_RECORDED_DB, ro);
  std::map<std::uint64_t, std::map<std::string, double>> out;
  db::MeasurementFilter f;
  f.status = db::MeasurementStatus::Ok;
  for (const auto& m : rec.list_measurements(f))
    out[m.size][m.policy] = *m.median_ns;
  return out;
}

std::map<std::uint64_t, db::BestEntry> best_of(const std::string& path) {
  auto db = db::TuningDb::open(path);
  std::map<std::uint64_t, db::BestEntry> out;
  for (const auto& b : db.list_best())
    out[b.size] = b;
  return out;
}

// Residency neighbours (the default, `--min-blocks auto`): the refinement also times the
// winners whose recorded registers bind their residency with more blocks; the recording
// has none of those (min_blocks joined the grid later), so they fail as not recorded and
// every winner stays as a run without them (`--min-blocks 0`) leaves it.
TEST(TuneSimulation, MinBlocksAutoTimesResidencyNeighboursOfTheWinners) {
  TempDir dir;
  TuneOptions plain = simulated(dir, "halving");
  plain.space.residency_neighbours = false;
  ASSERT_EQ(run(plain), 0);
  for (const auto& m : db::TuningDb::open(plain.db_path).list_measurements({}))
    EXPECT_EQ(Policy::parse(m.policy).min_blocks, 0) << m.policy;
  TuneOptions o = simulated(dir, "halving");
  o.db_path = (dir / "auto.db").string();
  o.space.residency_neighbours = true;
  ASSERT_EQ(run(o), 0);
  auto db = db::TuningDb::open(o.db_path);
  int tried = 0;
  for (const auto& m : db.list_measurements({}))
    if (Policy::parse(m.policy).min_blocks > 0) {
      ++tried;
      EXPECT_NE(m.status, db::MeasurementStatus::Ok) << m.policy;
    }
  EXPECT_GT(tried, 0);
  const auto a = best_of(plain.db_path), b = best_of(o.db_path);
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [n, e] : a)
    EXPECT_EQ(b.at(n).policy, e.policy) << n;
}

TEST(TuneSimulation, RecordingIsTheFullSpace) {
  db::OpenOptions ro;
  ro.mode = db::OpenMode::ReadOnly;
  auto rec = db::TuningDb::open(SCANTUNE_RECORDED_DB, ro);
  EXPECT_EQ(rec.counts().measurements, 95122);
  SimulatedEvaluator sim(rec, int32_sum_inclusive());
  EXPECT_EQ(sim.recorded_sizes().size(), 21u);
}

// The halving strategy, replaying the recording, stores from 2^19 up a policy whose
// recorded median is within 2% of the recorded best. Below, calls take 4-7 us and
// are host-bound: in the recording, configurations that behave identically there
// (backoff 0 vs 200 ns) differ by 5-15% (p10-p90), so the recorded best is the
// luckiest of 4000-5700 noisy draws (at 2^16 one draw 9% below the next). There the
// reference is the third fastest and the bound 25% (docs/tuner.md); on the GPU the
// duel of `--against` judges those sizes instead.
TEST(TuneSimulation, HalvingFindsNearlyTheRecordedBest) {
  TempDir dir;
  const TuneOptions o = simulated(dir, "halving");
  ASSERT_EQ(run(o), 0);
  const auto rec = recorded_medians();
  const auto best = best_of(o.db_path);
  ASSERT_EQ(best.size(), 21u);
  double worst_small = 0, worst_large = 0;
  for (const auto& [n, b] : best) {
    const auto& m = rec.at(n);
    const bool large = n >= (1u << 19);
    std::vector<double> fastest;
    for (const auto& [_, ns] : m)
      fastest.push_back(ns);
    std::sort(fastest.begin(), fastest.end());
    ASSERT_GE(fastest.size(), 3u);
    ASSERT_TRUE(m.count(b.policy)) << b.policy;
    const double ratio = m.at(b.policy) / fastest[large ? 0 : 2];
    (large ? worst_large : worst_small) = std::max(large ? worst_large : worst_small, ratio);
    EXPECT_LE(ratio, large ? 1.02 : 1.25) << "n = " << n << ": " << b.policy;
  }
  std::printf("halving (simulated): worst ratio to the third fastest recorded %.3f below 2^19, to "
              "the fastest %.3f from 2^19\n",
              worst_small, worst_large);
  auto db = db::TuningDb::open(o.db_path);
  // A fraction of the exhaustive search's measurements.
  EXPECT_LT(db.counts().measurements, 95122 / 20);
  EXPECT_EQ(db.list_runs().at(0).status, db::RunStatus::Complete);
  // The recording's baselines come along: memcpy and CUB at every size.
  EXPECT_EQ(db.counts().baselines, 42);
}

TEST(TuneSimulation, ExhaustiveStoresTheRecordedBestOrAnIncumbentWithinNoise) {
  TempDir dir;
  TuneOptions o = simulated(dir, "exhaustive");
  o.sizes = {1 << 12, 1 << 20, 1 << 28};
  ASSERT_EQ(run(o), 0);
  const auto rec = recorded_medians();
  for (const auto& [n, b] : best_of(o.db_path)) {
    double lo = 1e300;
    for (const auto& [_, ns] : rec.at(n))
      lo = std::min(lo, ns);
    EXPECT_LE(rec.at(n).at(b.policy), lo * 1.05) << n;
  }
}

// Ctrl-C (here the test hook) stores what was measured and marks the run
// interrupted; --resume replays it and continues, and ends exactly where an
// uninterrupted run ends (the replay is deterministic).
TEST(TuneSimulation, InterruptAndResumeEndLikeAnUninterruptedRun) {
  TempDir dir;
  TuneOptions full = simulated(dir, "halving");
  full.sizes = {1 << 10, 1 << 14, 1 << 18, 1 << 22, 1 << 26, 1 << 30};
  ASSERT_EQ(run(full), 0);

  TuneOptions cut = full;
  cut.db_path = (dir / "cut.db").string();
  {
    EnvGuard hook("SCANTUNE_TEST_INTERRUPT_AFTER", "300");
    ASSERT_EQ(run(cut), 130);
  }
  clear_interrupt();
  {
    auto db = db::TuningDb::open(cut.db_path);
    EXPECT_EQ(db.list_runs().at(0).status, db::RunStatus::Interrupted);
    EXPECT_EQ(db.counts().measurements, 300);
    EXPECT_EQ(db.counts().best, 0);
  }
  // A second interrupt during the resumed run, then a final resume.
  cut.resume = true;
  {
    EnvGuard hook("SCANTUNE_TEST_INTERRUPT_AFTER", "100");
    ASSERT_EQ(run(cut), 130);
  }
  clear_interrupt();
  ASSERT_EQ(run(cut), 0);
  auto db = db::TuningDb::open(cut.db_path);
  ASSERT_EQ(db.list_runs().size(), 1u);
  EXPECT_EQ(db.list_runs()[0].status, db::RunStatus::Complete);
  auto whole = db::TuningDb::open(full.db_path);
  EXPECT_EQ(db.counts().measurements, whole.counts().measurements);
  const auto a = best_of(full.db_path), b = best_of(cut.db_path);
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [n, e] : a) {
    EXPECT_EQ(e.policy, b.at(n).policy) << n;
    EXPECT_DOUBLE_EQ(e.ns, b.at(n).ns) << n;
  }
}

// Resume is by GPU model: the interrupted run of another card of the same model
// (a cloud machine's next instance) continues; another model's run does not.
TEST(TuneSimulation, ResumeContinuesTheModelsRunFromAnotherCardNotAnotherModels) {
  TempDir dir;
  TuneOptions o = simulated(dir, "halving");
  o.sizes = {1 << 10, 1 << 20};
  auto interrupt = [&](const std::string& sql) {
    EnvGuard hook("SCANTUNE_TEST_INTERRUPT_AFTER", "50");
    ASSERT_EQ(run(o), 130);
    clear_interrupt();
    db::testing::raw_exec(o.db_path, sql);
  };
  interrupt("UPDATE devices SET uuid = 'GPU-another-card-of-this-model'");
  o.resume = true;
  ASSERT_EQ(run(o), 0);
  {
    auto db = db::TuningDb::open(o.db_path);
    ASSERT_EQ(db.list_runs().size(), 1u);
    EXPECT_EQ(db.list_runs()[0].status, db::RunStatus::Complete);
    EXPECT_EQ(db.list_devices().size(), 2u);
  }

  o.db_path = (dir / "other-model.db").string();
  o.resume = false;
  interrupt("UPDATE devices SET uuid = 'GPU-another-model', name = 'Another GPU', "
            "model = 'Another GPU (sm_90, 132 SMs)'");
  o.resume = true;
  ASSERT_EQ(run(o), 0);
  auto db = db::TuningDb::open(o.db_path);
  ASSERT_EQ(db.list_runs().size(), 2u);
  EXPECT_EQ(db.list_runs()[0].status, db::RunStatus::Interrupted);
}

TEST(TuneSimulation, ResumeWithoutAnInterruptedRunStartsANewOne) {
  TempDir dir;
  TuneOptions o = simulated(dir, "halving");
  o.sizes = {1 << 16};
  o.resume = true;
  ASSERT_EQ(run(o), 0);
  ASSERT_EQ(run(o), 0);
  auto db = db::TuningDb::open(o.db_path);
  EXPECT_EQ(db.list_runs().size(), 2u);
}

TEST(TuneSimulation, AgainstAnotherDatabase) {
  TempDir dir;
  TuneOptions first = simulated(dir, "halving");
  first.sizes = {1 << 12, 1 << 24};
  ASSERT_EQ(run(first), 0);
  TuneOptions second = first;
  second.db_path = (dir / "second.db").string();
  second.against_db = first.db_path;
  const std::string text = run_text(second);
  EXPECT_NE(text.find("against " + first.db_path), std::string::npos) << text;
  EXPECT_NE(text.find("worst ratio: 1.000"), std::string::npos) << text;
}

TEST(TuneSimulation, NoValidProblemIsAUsageError) {
  TempDir dir;
  TuneOptions o = simulated(dir, "halving");
  o.types = {ScanTypes{DataType::Float32, DataType::Float32, DataType::Float32}};
  o.ops = {Op::BitAnd};
  EXPECT_THROW(run(o), UsageError);
}

// Each problem's summary says where its winners replaced what dispatch ran before
// (the duel's incumbent): a second run over the first's winners replays the same
// times and keeps them all.
TEST(TuneSimulation, TheSummarySaysWhereWinnersReplacedWhatDispatchRan) {
  TempDir dir;
  TuneOptions o = simulated(dir, "halving");
  o.sizes = {1 << 12, 1 << 24};
  const std::string first = run_text(o);
  EXPECT_NE(first.find("what dispatch ran at"), std::string::npos) << first;
  const std::string second = run_text(o);
  EXPECT_NE(second.find("kept what dispatch ran at all 2 sizes"), std::string::npos) << second;
}

// A bucket whose fastest shape changes inside it, recorded as the H100 timed 64-bit
// sums in the bucket 1.5 x 2^21 (2.25, 2.75 and 3 x 2^20): a one-wave shape wins the
// lowest size by 10% and loses the other two by 17%. The tune stores two winners, and
// dispatch runs each on its side of the split.
TEST(TuneSimulation, ABucketWhoseBestShapeChangesGetsTwoWinners) {
  TempDir dir;
  const std::string wave = "lookback_warp.tpb128.ipt20.vec1.warp_scans";
  const std::string pipe = "lookback_pipelined.tpb256.ipt10.vec1.warp_scans";
  const std::vector<std::uint64_t> sizes = {2359296, 2883584, 3145728};
  {
    auto rec = db::TuningDb::open(dir / "rec.db");
    const std::int64_t dev = rec.add_device(db::testing::h100());
    const std::int64_t run = rec.begin_run(db::testing::sample_run(dev));
    const std::map<std::string, std::vector<double>> ns = {{wave, {16500, 23800, 25500}},
                                                           {pipe, {18200, 20400, 21800}}};
    for (const auto& [policy, times] : ns)
      for (std::size_t i = 0; i < sizes.size(); ++i)
        rec.add_measurement(
            db::testing::ok_measurement(run, dev, policy, times[i], sizes[i], "int64"));
  }
  TuneOptions o;
  o.simulate_db = (dir / "rec.db").string();
  o.db_path = (dir / "out.db").string();
  o.strategy = "exhaustive";
  o.progress = Progress::Mode::Quiet;
  o.types = {ScanTypes{DataType::Int64, DataType::Int64, DataType::Int64}};
  o.sizes = {3145728};
  const std::string text = run_text(o);
  EXPECT_NE(text.find("1 buckets split between two winners"), std::string::npos) << text;
  const db::BestEntry b = best_of(o.db_path).at(3145728);
  EXPECT_EQ(b.policy, pipe);
  EXPECT_EQ(b.lower_policy, wave);
  EXPECT_EQ(b.lower_upto, 2621440u); // halfway between 2.25 and 2.75 x 2^20
  EXPECT_DOUBLE_EQ(b.ns, 21800);

  const auto entries = detail::read_tuned_entries(o.db_path);
  ASSERT_TRUE(entries);
  const detail::DispatchTable table(90, b.model, *entries, o.db_path, detail::BuiltinTable{});
  const auto problem = detail::ProblemName::of(DataType::Int64, Op::Sum, ScanKind::Inclusive);
  for (std::uint64_t n : {std::uint64_t{2097153}, std::uint64_t{2621440}})
    EXPECT_EQ(table.resolve(problem, n).policy.key(), wave) << n;
  for (std::uint64_t n : {std::uint64_t{2621441}, std::uint64_t{3145728}})
    EXPECT_EQ(table.resolve(problem, n).policy.key(), pipe) << n;
  EXPECT_EQ(table.resolve(problem, 3145728).split_upto, 2621440u);
  EXPECT_EQ(table.resolve(problem, std::uint64_t{1} << 22).policy.key(), pipe); // nearest bucket
  EXPECT_EQ(table.resolve(problem, std::uint64_t{1} << 22).split_upto, 0u);
}

} // namespace
} // namespace scantune::tuner
