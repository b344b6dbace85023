// Search strategies, run in simulation over a recorded database made from a
// synthetic cost model, and the simulated evaluator itself.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "policy.hpp"
#include "scantune/scantune.hpp"
#include "tests/cache/tuning_db_test_util.hpp"
#include "tuner/search/simulated_evaluator.hpp"
#include "tuner/search/strategy.hpp"
#include "tuner_test_util.hpp"

namespace scantune::tuner {
namespace {

using db::MeasurementStatus;
using db::testing::TempDir;

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s)
    h = (h ^ c) * 1099511628211ull;
  return h;
}

// A deterministic stand-in for an H100 timing int32 scans, with the structure of
// real results: launch overheads, bandwidth depending on vector width, tile size,
// tile I/O, block scan and occupancy, a per-tile look-back cost, and ±1% jitter.
// Direct I/O with full vectors and the padded Blelloch scan at 512 threads edge
// out the core choices, so the halving strategy has to find them by refinement.
double cost_ns(const Policy& p, std::uint64_t n) {
  const double bytes = 8.0 * static_cast<double>(n);
  const double tile = static_cast<double>(p.tile_items());
  const double tiles = std::ceil(static_cast<double>(n) / tile);
  double eff = p.vector_width == 4 ? 1.0 : p.vector_width == 2 ? 0.94 : 0.86;
  if (p.io == TileIO::Direct) eff *= p.vector_width == 4 ? 1.012 : 0.9;
  switch (p.block_scan) {
  case BlockScan::WarpScans:
    break;
  case BlockScan::Blelloch:
    eff *= 0.96;
    break;
  case BlockScan::BlellochPadded:
    eff *= p.block_threads == 512 ? 1.008 : 0.975;
    break;
  case BlockScan::HillisSteele:
    eff *= 0.93;
    break;
  }
  eff *= std::max(0.5, 1 - 0.06 * std::abs(std::log2(tile / 4096)));
  eff *= p.block_threads == 256 ? 1.0 : p.block_threads == 128 ? 0.97 : 0.98;
  const double tile_latency = tile * 0.03; // one block's pass over its tile
  double ns = 0;
  switch (p.algorithm) {
  case Algorithm::SingleBlock:
    ns = 1800 + bytes / (60 * eff); // one SM's bandwidth (bytes/ns = GB/s)
    break;
  case Algorithm::ReduceThenScan:
    ns = 4500 + 1.5 * bytes / (3000 * eff) + 2 * tile_latency;
    break;
  case Algorithm::LookbackThread:
  case Algorithm::LookbackWarp: {
    const bool warp = p.algorithm == Algorithm::LookbackWarp;
    double per_tile = warp ? 0.35 : 0.9;
    if (p.backoff_ns > 0) per_tile *= warp ? 1.1 : 0.8; // polls less often, contends less
    ns = 2000 + (p.backoff_ns > 0 ? 300 : 0) + bytes / (3000 * eff) + tile_latency +
         tiles * per_tile;
    break;
  }
  default:
    ns = 1e9;
  }
  const double jitter = static_cast<double>(fnv1a(p.key() + std::to_string(n)) % 2001) / 1000 - 1;
  return ns * (1 + 0.01 * jitter);
}

constexpr const char* kWrong = "lookback_warp.tpb256.ipt12.vec4.warp_scans";

SpaceOptions test_space() {
  SpaceOptions s = default_space();
  s.block_threads = {128, 256, 512};
  s.items_per_thread = {2, 4, 8, 12, 16};
  return s;
}

db::Measurement row(std::int64_t run, std::int64_t dev, const Policy& p, std::uint64_t n) {
  db::Measurement m;
  m.run_id = run;
  m.device_id = dev;
  m.type = "int32";
  m.op = "sum";
  m.kind = "inclusive";
  m.size = n;
  m.policy = p.key();
  m.samples = 25;
  return m;
}

// One recorded GPU run over test_space() x 2^10..2^30 (step 2), with failures:
// kWrong and a few others are wrong results (with tempting timings), one corner
// fails to compile, and some pairs were never measured.
class StrategySimulation : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    auto tdb = db::TuningDb::open(*dir_ / "recorded.db", db::testing::rw());
    const std::int64_t dev = tdb.add_device(db::testing::h100());
    const std::int64_t run = tdb.begin_run(db::testing::sample_run(dev));
    wrong_ = new std::set<std::string>{kWrong};
    auto tx = tdb.transaction();
    for (std::uint64_t n : sizes())
      for (const Policy& p : enumerate(DataType::Int32, test_space())) {
        if (!applies_at(p, n, test_space())) continue;
        const std::uint64_t h = fnv1a(p.key() + "/" + std::to_string(n));
        if (h % 29 == 1) continue; // never measured
        db::Measurement m = row(run, dev, p, n);
        if (p.key() == kWrong || fnv1a(p.key()) % 53 == 0) {
          wrong_->insert(p.key());
          m.status = MeasurementStatus::WrongResult;
          m.median_ns = m.min_ns = m.max_ns = 10.0; // timed, then failed verification
          m.message = "mismatch at index 4097";
        } else if (p.block_scan == BlockScan::BlellochPadded && p.block_threads == 512 &&
                   p.items_per_thread == 16) {
          m.status = MeasurementStatus::CompileError;
          m.samples = 0;
          m.message = "ptxas error: too much shared data";
        } else {
          const double ns = cost_ns(p, n);
          m.median_ns = ns;
          m.min_ns = ns * 0.99;
          m.max_ns = ns * 1.03;
          m.gbs = 8.0 * static_cast<double>(n) / ns;
          m.registers = 32;
          m.spill_bytes = 0;
        }
        tdb.add_measurement(m);
      }
    tx.commit();
    tdb.end_run(run, db::RunStatus::Complete);
  }
  static void TearDownTestSuite() {
    delete wrong_;
    delete dir_;
  }

  static std::vector<std::uint64_t> sizes() { return parse_sizes("2^10:2^30:2"); }

  SearchContext context(Evaluator& evaluator) const {
    SearchContext ctx;
    ctx.problem = int32_sum_inclusive();
    ctx.space = test_space();
    ctx.candidates = enumerate(DataType::Int32, ctx.space);
    ctx.sizes = sizes();
    ctx.evaluator = &evaluator;
    return ctx;
  }

  db::TuningDb open() const { return db::TuningDb::open(*dir_ / "recorded.db", db::testing::ro()); }

  static TempDir* dir_;
  static std::set<std::string>* wrong_;
};
TempDir* StrategySimulation::dir_ = nullptr;
std::set<std::string>* StrategySimulation::wrong_ = nullptr;

// Passes measurements through, checking that each policy was prefetched first and
// remembering which (policy, size) pairs were measured at Confirm effort.
class Checking : public Evaluator {
public:
  explicit Checking(Evaluator& inner) : inner_(inner) {}
  Result measure(const Policy& p, std::uint64_t n, Effort effort, double limit_ns) override {
    EXPECT_TRUE(prefetched_.count(p.key())) << p.key() << " measured without a prefetch";
    if (effort == Effort::Confirm) confirmed_.insert(p.key() + "@" + std::to_string(n));
    return inner_.measure(p, n, effort, limit_ns);
  }
  void prefetch(const std::vector<Policy>& ps) override {
    for (const Policy& p : ps)
      prefetched_.insert(p.key());
  }
  bool confirmed(const Result& r) const {
    return confirmed_.count(r.policy.key() + "@" + std::to_string(r.size)) > 0;
  }

private:
  Evaluator& inner_;
  std::set<std::string> prefetched_, confirmed_;
};

TEST_F(StrategySimulation, ExhaustiveFindsTheRecordedBestEverywhere) {
  const auto recorded = open();
  SimulatedEvaluator sim(recorded, int32_sum_inclusive());
  Checking checking(sim);
  SearchContext ctx = context(checking);
  auto strategy = make_strategy("exhaustive");
  const std::size_t planned = strategy->planned_measurements(ctx);
  const auto outcomes = strategy->run(ctx);
  EXPECT_EQ(sim.calls(), planned);
  ASSERT_EQ(outcomes.size(), ctx.sizes.size());
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const std::uint64_t n = ctx.sizes[i];
    EXPECT_EQ(outcomes[i].size, n);
    const Result* winner = fastest(outcomes[i].finalists);
    const auto best = sim.best_recorded(n);
    ASSERT_TRUE(winner && best) << size_label(n);
    EXPECT_EQ(winner->policy.key(), best->policy.key()) << size_label(n);
    EXPECT_EQ(winner->median_ns, best->median_ns);
    EXPECT_FALSE(wrong_->count(winner->policy.key()));
    for (const Result& r : outcomes[i].finalists)
      EXPECT_TRUE(checking.confirmed(r));
  }
  std::printf("exhaustive: %zu measurements (planned %zu)\n", sim.calls(), planned);
}

TEST_F(StrategySimulation, HalvingComesCloseWithFarFewerMeasurements) {
  const auto recorded = open();
  SimulatedEvaluator exhaustive_sim(recorded, int32_sum_inclusive());
  SearchContext exhaustive_ctx = context(exhaustive_sim);
  make_strategy("exhaustive")->run(exhaustive_ctx);

  SimulatedEvaluator sim(recorded, int32_sum_inclusive());
  Checking checking(sim);
  SearchContext ctx = context(checking);
  auto strategy = make_strategy("halving");
  EXPECT_EQ(strategy->name(), "halving");
  const std::size_t planned = strategy->planned_measurements(ctx);
  const auto outcomes = strategy->run(ctx);
  ASSERT_EQ(outcomes.size(), ctx.sizes.size());
  double worst = 1;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const std::uint64_t n = ctx.sizes[i];
    EXPECT_EQ(outcomes[i].size, n);
    const Result* winner = fastest(outcomes[i].finalists);
    const auto best = sim.best_recorded(n);
    ASSERT_TRUE(winner && best) << size_label(n);
    const double ratio = winner->median_ns / best->median_ns;
    worst = std::max(worst, ratio);
    EXPECT_LE(ratio, 1.03) << size_label(n) << ": " << winner->policy.key() << " vs "
                           << best->policy.key();
    EXPECT_FALSE(wrong_->count(winner->policy.key()));
    EXPECT_LE(outcomes[i].finalists.size(), 12u); // eight of its region, two of each neighbour
    for (const Result& r : outcomes[i].finalists) {
      EXPECT_TRUE(checking.confirmed(r)) << r.policy.key();
      EXPECT_EQ(r.size, n);
    }
  }
  EXPECT_LT(sim.calls() * 8, exhaustive_sim.calls());
  // The estimate feeds a progress bar: it should be in the right ballpark.
  EXPECT_GT(static_cast<double>(planned), 0.6 * static_cast<double>(sim.calls()));
  EXPECT_LT(static_cast<double>(planned), 1.5 * static_cast<double>(sim.calls()));
  std::printf("halving: %zu measurements (planned %zu) vs exhaustive %zu; worst winner %.4f x "
              "the recorded best\n",
              sim.calls(), planned, exhaustive_sim.calls(), worst);
}

// Above 4 GiB read and written per call (int32 at 2^30 moves 8 GiB) the top region
// screens at the largest size within it; its finalists are still confirmed at 2^30.
TEST_F(StrategySimulation, HalvingScreensTheLargestRegionWithinFourGiB) {
  const auto recorded = open();
  SimulatedEvaluator sim(recorded, int32_sum_inclusive());
  struct Sizes : Evaluator {
    Evaluator& inner;
    std::map<Effort, std::set<std::uint64_t>> seen;
    explicit Sizes(Evaluator& e) : inner(e) {}
    Result measure(const Policy& p, std::uint64_t n, Effort effort, double limit_ns) override {
      seen[effort].insert(n);
      return inner.measure(p, n, effort, limit_ns);
    }
  } sizes_of(sim);
  SearchContext ctx = context(sizes_of);
  const auto outcomes = make_strategy("halving")->run(ctx);
  const auto& screened = sizes_of.seen[Effort::Screen];
  EXPECT_EQ(screened.count(std::uint64_t{1} << 30), 0u);
  EXPECT_EQ(screened.count(std::uint64_t{1} << 28), 1u); // 2 GiB: the top region's screen
  EXPECT_EQ(*screened.rbegin(), std::uint64_t{1} << 28);
  EXPECT_EQ(sizes_of.seen[Effort::Confirm].count(std::uint64_t{1} << 30), 1u);
  ASSERT_EQ(outcomes.back().size, std::uint64_t{1} << 30);
  const Result* winner = fastest(outcomes.back().finalists);
  ASSERT_NE(winner, nullptr);
  EXPECT_LE(winner->median_ns / sim.best_recorded(std::uint64_t{1} << 30)->median_ns, 1.03);
}

TEST_F(StrategySimulation, WrongResultsNeverWinButStayFinalists) {
  const auto recorded = open();
  SimulatedEvaluator sim(recorded, int32_sum_inclusive());
  SearchContext ctx = context(sim);
  const auto outcomes = make_strategy("exhaustive")->run(ctx);
  bool saw_wrong = false;
  for (const SizeOutcome& o : outcomes) {
    for (const Result& r : o.finalists)
      saw_wrong |= r.status == MeasurementStatus::WrongResult;
    ASSERT_TRUE(fastest(o.finalists));
    EXPECT_EQ(fastest(o.finalists)->status, MeasurementStatus::Ok);
  }
  EXPECT_TRUE(saw_wrong); // failures come back as finalists, marked
}

TEST_F(StrategySimulation, OutOfTimeStillConcludesEverySize) {
  const auto recorded = open();
  for (std::string_view name : strategy_names()) {
    SimulatedEvaluator sim(recorded, int32_sum_inclusive());
    SearchContext ctx = context(sim);
    ctx.out_of_time = [&] { return sim.calls() >= 40; };
    const auto outcomes = make_strategy(name)->run(ctx);
    ASSERT_EQ(outcomes.size(), ctx.sizes.size()) << name;
    for (std::size_t i = 0; i < outcomes.size(); ++i)
      EXPECT_EQ(outcomes[i].size, ctx.sizes[i]) << name;
    EXPECT_TRUE(fastest(outcomes.front().finalists)) << name;
    if (name == "exhaustive") {
      EXPECT_EQ(sim.calls(), 40u);
      EXPECT_TRUE(outcomes.back().finalists.empty());
    } else {
      // Straight to confirming the two leaders found so far, where they apply.
      EXPECT_LE(sim.calls(), 40u + 2 * ctx.sizes.size());
    }
  }
}

TEST_F(StrategySimulation, HalvingOutOfTimeAfterTheFirstRepresentative) {
  const auto recorded = open();
  SimulatedEvaluator sim(recorded, int32_sum_inclusive());
  SearchContext ctx = context(sim);
  ctx.out_of_time = [&] { return sim.calls() >= 500; };
  const auto outcomes = make_strategy("halving")->run(ctx);
  ASSERT_EQ(outcomes.size(), ctx.sizes.size());
  for (const SizeOutcome& o : outcomes) {
    EXPECT_TRUE(fastest(o.finalists)) << size_label(o.size);
    EXPECT_LE(o.finalists.size(), 6u) << size_label(o.size); // K = 2 per region
  }
  EXPECT_LE(sim.calls(), 500u + 6 * ctx.sizes.size());
}

TEST_F(StrategySimulation, NoTimeAtAllGivesEmptyOutcomes) {
  const auto recorded = open();
  for (std::string_view name : strategy_names()) {
    SimulatedEvaluator sim(recorded, int32_sum_inclusive());
    SearchContext ctx = context(sim);
    ctx.out_of_time = [] { return true; };
    const auto outcomes = make_strategy(name)->run(ctx);
    ASSERT_EQ(outcomes.size(), ctx.sizes.size()) << name;
    for (const SizeOutcome& o : outcomes)
      EXPECT_TRUE(o.finalists.empty()) << name;
    EXPECT_EQ(sim.calls(), 0u) << name;
  }
}

TEST_F(StrategySimulation, HalvingWithFewSizesAndASmallSpace) {
  const auto recorded = open();
  SimulatedEvaluator sim(recorded, int32_sum_inclusive());
  SearchContext ctx = context(sim);
  ctx.sizes = {1u << 20};
  apply_algorithms(ctx.space, "reduce_then_scan,blelloch");
  ctx.candidates = enumerate(DataType::Int32, ctx.space); // no core: falls back to all
  const auto outcomes = make_strategy("halving")->run(ctx);
  ASSERT_EQ(outcomes.size(), 1u);
  const Result* winner = fastest(outcomes[0].finalists);
  ASSERT_TRUE(winner);
  EXPECT_EQ(winner->policy.algorithm, Algorithm::ReduceThenScan);
  EXPECT_EQ(winner->policy.block_scan, BlockScan::Blelloch);
}

TEST(Strategy, Registry) {
  EXPECT_EQ(strategy_names().front(), "halving"); // the default comes first
  for (std::string_view name : strategy_names())
    EXPECT_EQ(make_strategy(name)->name(), name);
  try {
    make_strategy("annealing");
    ADD_FAILURE() << "expected scantune::Error";
  } catch (const scantune::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'annealing'"), std::string::npos) << what;
    EXPECT_NE(what.find("halving, exhaustive"), std::string::npos) << what;
  }
}

// The halving core holds every algorithm of the default space, lookback_bulk included
// (at 7 stages: its rows' stage count; no warp-transposed I/O), for narrow, converting
// and wide types alike: a tune without a table to duel reaches bulk shapes by screening.
TEST(Strategy, HalvingCoreHoldsEveryAlgorithm) {
  for (const char* types : {"int32", "int64", "float16", "uint8:int32", "int8", "float64"}) {
    const ScanTypes t = parse_scan_types(types);
    const std::vector<Policy> candidates = enumerate(t, default_space());
    std::set<Algorithm> all, core;
    for (const Policy& p : candidates)
      all.insert(p.algorithm);
    for (const Policy& p : halving_core(candidates)) {
      core.insert(p.algorithm);
      EXPECT_EQ(p.block_scan, BlockScan::WarpScans) << types << " " << p.key();
      EXPECT_EQ(p.backoff_ns, 0) << types << " " << p.key();
      EXPECT_FALSE(p.tile_loop) << types << " " << p.key();
      if (p.algorithm == Algorithm::LookbackBulk) {
        EXPECT_EQ(p.stages, 7) << types << " " << p.key();
      } else if (p.algorithm == Algorithm::LookbackWarp) {
        EXPECT_EQ(p.io, TileIO::WarpTranspose) << types << " " << p.key();
      }
    }
    EXPECT_EQ(core, all) << types;
  }
  // A --stages list without 7 screens bulk at the smallest listed.
  SpaceOptions space = default_space();
  space.bulk_stages = {4, 6};
  std::size_t bulk = 0;
  for (const Policy& p : halving_core(enumerate(scan_types(DataType::Int32), space)))
    if (p.algorithm == Algorithm::LookbackBulk) {
      EXPECT_EQ(p.stages, 4) << p.key();
      ++bulk;
    }
  EXPECT_GT(bulk, 0u);
}

TEST(Strategy, FastestIgnoresFailures) {
  std::vector<Result> rs(3);
  rs[0].median_ns = 50;
  rs[0].status = MeasurementStatus::Timeout;
  rs[1].median_ns = 10;
  rs[1].status = MeasurementStatus::WrongResult;
  rs[2].median_ns = 80;
  EXPECT_EQ(fastest(rs), &rs[2]);
  rs[2].status = MeasurementStatus::CompileError;
  EXPECT_EQ(fastest(rs), nullptr);
  EXPECT_EQ(fastest({}), nullptr);
}

// The evaluator on a small hand-made database.
class SimulatedEvaluatorTest : public ::testing::Test {
protected:
  void SetUp() override {
    dev_ = db_.add_device(db::testing::h100());
    run_ = db_.begin_run(db::testing::sample_run(dev_));
  }
  void add(const std::string& policy, std::uint64_t n, double ns, int samples = 20,
           std::int64_t dev = 0) {
    db::Measurement m = db::testing::ok_measurement(run_, dev ? dev : dev_, policy, ns, n);
    m.samples = samples;
    db_.add_measurement(m);
  }

  TempDir dir_;
  db::TuningDb db_ = db::TuningDb::open(dir_ / "sim.db", db::testing::rw());
  std::int64_t dev_ = 0, run_ = 0;
  const std::string a_ = "lookback_warp.tpb256.ipt12.vec4.warp_scans";
  const std::string b_ = "reduce_then_scan.tpb512.ipt8.vec4.blelloch.direct";
};

TEST_F(SimulatedEvaluatorTest, ReplaysTheMostSampledThenLatestResult) {
  add(a_, 1024, 120, 30);
  add(a_, 1024, 100, 10); // later but fewer samples
  add(a_, 4096, 300, 20);
  add(a_, 4096, 310, 20); // as many samples, later
  SimulatedEvaluator sim(db_, int32_sum_inclusive());
  const Policy a = Policy::parse(a_);
  const Result r = sim.measure(a, 1024, Effort::Screen, 0);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.policy.key(), a_);
  EXPECT_EQ(r.size, 1024u);
  EXPECT_DOUBLE_EQ(r.median_ns, 120);
  EXPECT_DOUBLE_EQ(r.min_ns, 120 * 0.98);
  EXPECT_DOUBLE_EQ(r.max_ns, 120 * 1.05);
  EXPECT_EQ(r.samples, 30);
  EXPECT_EQ(r.registers, 40);
  EXPECT_EQ(r.spill_bytes, 0);
  EXPECT_NEAR(r.noise, 0.07 / 4, 1e-9);
  EXPECT_DOUBLE_EQ(sim.measure(a, 4096, Effort::Confirm, 0).median_ns, 310);
  EXPECT_EQ(sim.calls(), 2u);
  EXPECT_DOUBLE_EQ(sim.simulated_ns(), 120 * 30 + 310 * 20);
  EXPECT_EQ(sim.recorded_sizes(), (std::vector<std::uint64_t>{1024, 4096}));
  EXPECT_EQ(sim.device().model(), db::testing::h100().model());
}

TEST_F(SimulatedEvaluatorTest, UnrecordedPairsAndTimeLimits) {
  add(a_, 1024, 120);
  SimulatedEvaluator sim(db_, int32_sum_inclusive());
  const Policy a = Policy::parse(a_);
  const Result missing = sim.measure(a, 2048, Effort::Screen, 0);
  EXPECT_EQ(missing.status, MeasurementStatus::Rejected);
  EXPECT_EQ(missing.message, "not recorded");
  EXPECT_EQ(missing.size, 2048u);
  const Result other = sim.measure(Policy::parse(b_), 1024, Effort::Screen, 0);
  EXPECT_EQ(other.status, MeasurementStatus::Rejected);
  EXPECT_EQ(other.policy.key(), b_);

  EXPECT_EQ(sim.measure(a, 1024, Effort::Screen, 100).status, MeasurementStatus::Timeout);
  EXPECT_EQ(sim.measure(a, 1024, Effort::Screen, 120).status, MeasurementStatus::Ok);
  EXPECT_EQ(sim.measure(a, 1024, Effort::Screen, 500).status, MeasurementStatus::Ok);
  EXPECT_EQ(sim.calls(), 5u);
}

TEST_F(SimulatedEvaluatorTest, FailuresAndBestRecorded) {
  add(a_, 1024, 120);
  add(b_, 1024, 150);
  db::Measurement bad = db::testing::ok_measurement(run_, dev_, b_, 0, 4096);
  bad.status = MeasurementStatus::CompileError;
  bad.median_ns = bad.min_ns = bad.max_ns = bad.gbs = std::nullopt;
  bad.samples = 0;
  bad.message = "ptxas: out of registers";
  db_.add_measurement(bad);
  db::Measurement wrong = db::testing::ok_measurement(run_, dev_, a_, 5, 4096);
  wrong.status = MeasurementStatus::WrongResult;
  db_.add_measurement(wrong);

  SimulatedEvaluator sim(db_, int32_sum_inclusive());
  const Result r = sim.measure(Policy::parse(b_), 4096, Effort::Confirm, 1000);
  EXPECT_EQ(r.status, MeasurementStatus::CompileError);
  EXPECT_EQ(r.message, "ptxas: out of registers");
  EXPECT_EQ(sim.measure(Policy::parse(a_), 4096, Effort::Confirm, 1).status,
            MeasurementStatus::WrongResult); // a failure stays a failure under a limit
  ASSERT_TRUE(sim.best_recorded(1024));
  EXPECT_EQ(sim.best_recorded(1024)->policy.key(), a_);
  EXPECT_FALSE(sim.best_recorded(4096)); // nothing Ok there
  EXPECT_FALSE(sim.best_recorded(8192));
}

TEST_F(SimulatedEvaluatorTest, OnlyTheProblemsOwnRows) {
  add(a_, 1024, 120);
  db::Measurement other_type = db::testing::ok_measurement(run_, dev_, b_, 50, 1024, "int64");
  db_.add_measurement(other_type);
  db::Measurement custom = db::testing::ok_measurement(run_, dev_, b_, 50, 1024);
  custom.op_hash = "0123456789abcdef"; // a custom operator that happens to be named "sum"
  db_.add_measurement(custom);
  db::Measurement exclusive = db::testing::ok_measurement(run_, dev_, b_, 50, 1024);
  exclusive.kind = "exclusive";
  db_.add_measurement(exclusive);

  SimulatedEvaluator sim(db_, int32_sum_inclusive());
  EXPECT_EQ(sim.measure(Policy::parse(b_), 1024, Effort::Screen, 0).status,
            MeasurementStatus::Rejected);
  EXPECT_EQ(sim.best_recorded(1024)->policy.key(), a_);

  Problem int64 = int32_sum_inclusive();
  int64.type = DataType::Int64;
  EXPECT_TRUE(
      SimulatedEvaluator(db_, int64).measure(Policy::parse(b_), 1024, Effort::Screen, 0).ok());
  Problem product = int32_sum_inclusive();
  product.op.op = Op::Product;
  EXPECT_DB_ERROR(SimulatedEvaluator(db_, product), "no recorded measurements",
                  "int32 product inclusive");
}

TEST_F(SimulatedEvaluatorTest, ChoosesAmongDeviceModels) {
  add(a_, 1024, 120);
  const std::int64_t a100 = db_.add_device(db::testing::a100());
  add(a_, 1024, 250, 20, a100);
  const std::string h100_model = db::testing::h100().model();
  const std::string a100_model = db::testing::a100().model();
  EXPECT_DB_ERROR(SimulatedEvaluator(db_, int32_sum_inclusive()), "several device models",
                  h100_model, a100_model);
  EXPECT_DB_ERROR(SimulatedEvaluator(db_, int32_sum_inclusive(), "NVIDIA B200"), "'NVIDIA B200'",
                  h100_model, a100_model);

  SimulatedEvaluator on_a100(db_, int32_sum_inclusive(), a100_model);
  EXPECT_EQ(on_a100.device().model(), a100_model);
  EXPECT_DOUBLE_EQ(on_a100.measure(Policy::parse(a_), 1024, Effort::Screen, 0).median_ns, 250);
  SimulatedEvaluator on_h100(db_, int32_sum_inclusive(), h100_model);
  EXPECT_DOUBLE_EQ(on_h100.measure(Policy::parse(a_), 1024, Effort::Screen, 0).median_ns, 120);
}

} // namespace
} // namespace scantune::tuner
