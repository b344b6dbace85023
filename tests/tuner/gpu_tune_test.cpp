// GPU tests of the tuner: the GPU evaluator (verification, timing, rotation, time
// limit, baselines) and whole `run_tune` runs, with an interrupt and a resume.
#include <cstdio>

#include <gtest/gtest.h>

#include "cache/tuning_db.hpp"
#include "cache/tuning_db_test_util.hpp"
#include "common/gpu.hpp"
#include "default_policies.hpp"
#include "dispatch.hpp"
#include "scan_request.hpp"
#include "tuner/gpu/gpu_evaluator.hpp"
#include "tuner/gpu/gpu_support.hpp"
#include "tuner/run/bench_run.hpp"
#include "tuner/run/tune.hpp"
#include "tuner_test_util.hpp"

namespace scantune::tuner {
namespace {

using db::MeasurementStatus;
using db::testing::EnvGuard;
using db::testing::TempDir;
using test::GpuTest;

class GpuEvaluatorTest : public GpuTest {};

TEST_F(GpuEvaluatorTest, MeasuresVerifiesAndRotates) {
  Scanner scanner;
  GpuEvaluator eval(scanner, nullptr, int32_sum_inclusive(), std::uint64_t{1} << 26, {});
  const Policy def = detail::default_policy(DataType::Int32, 1 << 20);
  const Result r = eval.measure(def, 1 << 20, Effort::Confirm, 0);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_GE(r.samples, 7);
  EXPECT_GT(r.median_ns, 1000.0);
  EXPECT_LE(r.min_ns, r.median_ns);
  EXPECT_GE(r.max_ns, r.median_ns);
  ASSERT_TRUE(r.registers);
  EXPECT_GT(*r.registers, 0);
  EXPECT_EQ(r.spill_bytes.value_or(-1), 0);
  // Small inputs rotate through many buffer pairs (L2 not hot); the largest does not.
  EXPECT_GT(eval.rotation_slots(1 << 10), 100u);
  EXPECT_EQ(eval.rotation_slots(std::uint64_t{1} << 26), 1u);
  const Result s = eval.measure(def, 1 << 10, Effort::Screen, 0);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_GE(s.samples, 3);
  EXPECT_LE(s.samples, 7);
}

TEST_F(GpuEvaluatorTest, EveryTypeOpAndKindVerifies) {
  Scanner scanner;
  for (DataType t : {DataType::Int32, DataType::UInt64, DataType::Float32, DataType::Float64})
    for (Op op : {Op::Sum, Op::Product, Op::Max, Op::BitXor})
      for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
        if (op == Op::BitXor && (t == DataType::Float32 || t == DataType::Float64)) continue;
        const Problem p{t, detail::OpSpec::from(op), k};
        GpuEvaluator eval(scanner, nullptr, p, 100003, {});
        // The first of these policies whose kernel does not spill (some look-back
        // kernels spill 8 bytes for the exclusive uint64 product and are rejected).
        Result r;
        for (const char* key : {"lookback_warp.tpb256.ipt8.vec2.warp_scans",
                                "reduce_then_scan.tpb256.ipt8.vec2.warp_scans"}) {
          r = eval.measure(Policy::parse(key), 100003, Effort::Screen, 0);
          if (r.status != MeasurementStatus::Rejected) break;
        }
        EXPECT_TRUE(r.ok()) << p.label() << ": " << r.message;
        const BaselineResult cub = eval.time_cub(100003);
        EXPECT_TRUE(cub.ok) << p.label() << ": " << cub.error;
      }
}

TEST_F(GpuEvaluatorTest, CustomOperatorAgainstTheSequentialDefinition) {
  Scanner scanner;
  const CustomOp absmax{"absmax", "return fabs(a) > fabs(b) ? a : b;", "0.0"};
  const Problem p{DataType::Float64, detail::OpSpec::from(absmax), ScanKind::Inclusive};
  GpuEvaluator eval(scanner, nullptr, p, 1 << 18, {});
  const Result r = eval.measure(Policy::parse("lookback_thread.tpb128.ipt8.vec2.blelloch"), 1 << 18,
                                Effort::Screen, 0);
  EXPECT_TRUE(r.ok()) << r.message;
  EXPECT_FALSE(eval.time_cub(1 << 18).ok);
}

TEST_F(GpuEvaluatorTest, SlowCandidateStopsAtTheTimeLimit) {
  Scanner scanner;
  GpuEvaluator eval(scanner, nullptr, int32_sum_inclusive(), 1 << 20, {});
  const Result fast =
      eval.measure(detail::default_policy(DataType::Int32, 1 << 20), 1 << 20, Effort::Confirm, 0);
  ASSERT_TRUE(fast.ok());
  // One block walking 2^20 elements is far slower than the look-back.
  const Result slow = eval.measure(Policy::parse("single_block.tpb256.ipt4.vec4.warp_scans"),
                                   1 << 20, Effort::Confirm, 2 * fast.median_ns);
  EXPECT_EQ(slow.status, MeasurementStatus::Timeout) << slow.message;
  EXPECT_LE(slow.samples, 2);
  EXPECT_GT(slow.min_ns, 2 * fast.median_ns);
}

// Segmented problems: the dispatch and CUB's scan by key verify against the
// segmented host reference and time, for random head flags and for rows.
TEST_F(GpuEvaluatorTest, SegmentedDispatchAndCubByKey) {
  Scanner scanner;
  constexpr std::uint64_t n = 1 << 20;
  for (const char* spec : {"flags:random", "rows:1000"})
    for (ScanKind kind : {ScanKind::Inclusive, ScanKind::Exclusive}) {
      const Problem p{DataType::Int32, detail::OpSpec::from(Op::Sum), kind, parse_segments(spec)};
      GpuEvaluator eval(scanner, nullptr, p, n);
      const BaselineResult d = eval.time_dispatch(n);
      EXPECT_TRUE(d.ok) << spec << " " << p.label() << ": " << d.error;
      const BaselineResult c = eval.time_cub(n);
      EXPECT_TRUE(c.ok) << spec << " " << p.label() << ": " << c.error;
      EXPECT_TRUE(eval.time_dispatch(4099).ok) << spec; // a prefix of the reference
    }
}

// Keys, offsets and axis scans: the dispatch and an explicit candidate verify against
// the host reference (offsets at a smaller size too: its own end offset); CUB by key
// for keys (reading the problem's own 32- or 64-bit keys) and offsets, none for axis
// scans.
TEST_F(GpuEvaluatorTest, KeysOffsetsAndAxisScansVerify) {
  Scanner scanner;
  constexpr std::uint64_t n = 1 << 18;
  const Policy warp = Policy::parse("lookback_warp.tpb256.ipt8.vec4.warp_scans");
  for (const char* spec : {"keys:random", "keys64:random", "offsets:300", "axis:5x96"})
    for (ScanKind kind : {ScanKind::Inclusive, ScanKind::Exclusive}) {
      const Segmentation s = parse_segments(spec);
      const Problem p{DataType::Int32, detail::OpSpec::from(Op::Sum), kind, s};
      GpuEvaluator eval(scanner, nullptr, p, n);
      EXPECT_TRUE(eval.time_dispatch(n).ok) << p.label();
      EXPECT_TRUE(eval.time_dispatch(n / 2 + 480).ok) << p.label();
      const Policy candidate = s.axis() ? detail::default_axis_policy(p.type, {5, 96}) : warp;
      const Result r = eval.measure(candidate, n, Effort::Screen, 0);
      EXPECT_TRUE(r.ok()) << p.label() << ": " << r.message;
      const BaselineResult c = eval.time_cub(n);
      EXPECT_EQ(c.ok, !s.axis()) << p.label() << ": " << c.error;
    }
}

TEST_F(GpuEvaluatorTest, Baselines) {
  Scanner scanner;
  GpuEvaluator eval(scanner, nullptr, int32_sum_inclusive(), 1 << 24, {});
  const BaselineResult m = eval.time_memcpy(1 << 24);
  ASSERT_TRUE(m.ok);
  const BaselineResult c = eval.time_cub(1 << 24);
  ASSERT_TRUE(c.ok) << c.error;
  EXPECT_GT(c.stats.median_ns, 0.5 * m.stats.median_ns); // a scan moves at least what memcpy does
}

// Converting problems: narrow inputs filled on the device, the host reference
// converting in -> acc -> out, verification at the output type, memcpy over the
// bytes of both sides, and CUB for the inclusive sums it is compiled for.
TEST_F(GpuEvaluatorTest, ConvertingProblemsVerify) {
  Scanner scanner;
  const std::uint64_t n = 100003;
  for (const char* types : {"uint8:int32", "int8", "int16:int32:int16", "uint16:uint64",
                            "float16:float32:float16", "bfloat16", "float16:float32"})
    for (Op op : {Op::Sum, Op::Max})
      for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
        const Problem p = Problem::of(parse_scan_types(types), detail::OpSpec::from(op), k);
        GpuEvaluator eval(scanner, nullptr, p, n, {});
        for (const char* key : {"lookback_warp.tpb256.ipt16.vec4.warp_scans",
                                "reduce_then_scan.tpb128.ipt8.vec1.warp_scans",
                                "lookback_pipelined.tpb384.ipt16.vec4.warp_scans"}) {
          const Policy policy = Policy::parse(key);
          if (policy.invalid_reason(p.types())) continue;
          const Result r = eval.measure(policy, n, Effort::Screen, 0);
          EXPECT_TRUE(r.ok()) << p.label() << " " << key << ": " << r.message;
        }
        const BaselineResult d = eval.time_dispatch(n);
        EXPECT_TRUE(d.ok) << p.label() << ": " << d.error;
        EXPECT_TRUE(eval.time_memcpy(n).ok) << p.label();
        const BaselineResult cub = eval.time_cub(n);
        const bool with_cub = gpu::cub_convert_supports(p.types(), op, k);
        EXPECT_EQ(cub.ok, with_cub) << p.label() << ": " << cub.error;
        EXPECT_EQ(with_cub, op == Op::Sum && k == ScanKind::Inclusive &&
                                std::string(types) != "uint16:uint64")
            << p.label();
        if (!with_cub) {
          EXPECT_NE(cub.error.find("converting types only"), std::string::npos) << cub.error;
        }
      }
}

class GpuTuneTest : public GpuTest {};

TuneOptions small_run(const TempDir& dir) {
  TuneOptions o;
  o.sizes = {1 << 10, 1 << 13, 1 << 16, 1 << 19};
  o.db_path = (dir / "tuning.db").string();
  o.progress = Progress::Mode::Quiet;
  o.space.block_threads = {128, 256};
  o.space.items_per_thread = {4, 8, 16};
  return o;
}

TEST_F(GpuTuneTest, StoresAVerifiedWinnerAndBaselinesPerBucket) {
  TempDir dir;
  const TuneOptions o = small_run(dir);
  ASSERT_EQ(run_tune_quietly(o), 0);
  auto db = db::TuningDb::open(o.db_path);
  const auto best = db.list_best();
  ASSERT_EQ(best.size(), o.sizes.size());
  const auto dev = db.list_devices().at(0);
  for (const auto& b : best) {
    EXPECT_GT(b.ns, 0);
    EXPECT_TRUE(db.baseline_for(dev.id, db::BaselineKind::Memcpy, "int32", "", "", "", b.size));
    EXPECT_TRUE(
        db.baseline_for(dev.id, db::BaselineKind::Cub, "int32", "sum", "", "inclusive", b.size));
    db::MeasurementFilter f;
    f.policy = b.policy;
    bool seen_ok = false;
    for (const auto& m : db.list_measurements(f))
      seen_ok |= m.size == b.size && m.status == MeasurementStatus::Ok;
    EXPECT_TRUE(seen_ok) << b.policy;
  }
  EXPECT_EQ(db.list_runs().at(0).status, db::RunStatus::Complete);
}

TEST_F(GpuTuneTest, ConvertingWinnersAreStoredAndDispatched) {
  TempDir dir;
  TuneOptions o = small_run(dir);
  o.types = {parse_scan_types("uint8:int32")};
  o.sizes = {1 << 16, 1 << 20};
  ASSERT_EQ(run_tune_quietly(o), 0);
  auto db = db::TuningDb::open(o.db_path);
  const auto best = db.list_best();
  ASSERT_EQ(best.size(), o.sizes.size());
  const auto dev = db.list_devices().at(0);
  for (const auto& b : best) {
    EXPECT_EQ(b.type, "int32");
    EXPECT_EQ(b.problem, "@uint8:int32");
    // Its memcpy (of 5 bytes an element) is printed, not stored as int32's.
    EXPECT_FALSE(db.baseline_for(dev.id, db::BaselineKind::Memcpy, "int32", "", "", "", b.size));
  }
  // A scanner on this database dispatches the stored winners.
  Scanner scanner(ScannerOptions{-1, o.db_path, {}});
  for (const auto& b : best) {
    const detail::Choice& c = detail::ScannerAccess::choice(
        scanner, parse_scan_types("uint8:int32"), Op::Sum, ScanKind::Inclusive, b.size);
    EXPECT_EQ(c.match, Match::Exact) << b.size;
    EXPECT_EQ(c.policy.key(), b.policy) << b.size;
  }
}

TEST_F(GpuTuneTest, InterruptThenResume) {
  TempDir dir;
  const TuneOptions o = small_run(dir);
  {
    EnvGuard hook("SCANTUNE_TEST_INTERRUPT_AFTER", "25");
    EXPECT_EQ(run_tune_quietly(o), 130);
  }
  std::size_t first = 0;
  {
    auto db = db::TuningDb::open(o.db_path);
    ASSERT_EQ(db.list_runs().size(), 1u);
    EXPECT_EQ(db.list_runs()[0].status, db::RunStatus::Interrupted);
    first = db.list_measurements().size();
    EXPECT_GE(first, 25u);
    EXPECT_TRUE(db.list_best().empty());
  }
  clear_interrupt();
  TuneOptions again = o;
  again.resume = true;
  ASSERT_EQ(run_tune_quietly(again), 0);
  auto db = db::TuningDb::open(o.db_path);
  ASSERT_EQ(db.list_runs().size(), 1u); // the same run, continued
  EXPECT_EQ(db.list_runs()[0].status, db::RunStatus::Complete);
  EXPECT_EQ(db.list_best().size(), o.sizes.size());
  EXPECT_GT(db.list_measurements().size(), first);
}

} // namespace
} // namespace scantune::tuner
