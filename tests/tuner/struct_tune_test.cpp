// Struct-valued custom operators in the tuner: their problems' names and sizes on the
// CPU, and on the GPU (GpuStruct* suites, skipped without one) the evaluator's checks
// and a tuning run whose winners the dispatch then reads.
#include <cstdio>

#include <gtest/gtest.h>

#include "cache/tuning_db.hpp"
#include "cache/tuning_db_test_util.hpp"
#include "common/gpu.hpp"
#include "dispatch.hpp"
#include "scan_request.hpp"
#include "struct_values.hpp"
#include "tuner/gpu/gpu_evaluator.hpp"
#include "tuner/run/tune.hpp"
#include "tuner_test_util.hpp"

namespace scantune::tuner {
namespace {

using db::testing::TempDir;

Problem recurrence(ScanKind kind = ScanKind::Inclusive) {
  return Problem{detail::kStructStandIn, detail::OpSpec::from(linear_recurrence_op()), kind};
}

TEST(StructProblem, NamesAndSizes) {
  const Problem p = recurrence(ScanKind::Exclusive);
  EXPECT_EQ(p.struct_bytes(), 8u);
  EXPECT_EQ(p.label(), "struct8 linear_recurrence exclusive");
  EXPECT_EQ(p.problem(), "@struct8");
  EXPECT_TRUE(is_converting_problem(p.problem())); // a memcpy of its own width
  EXPECT_EQ(p.type, detail::kStructStandIn);
  EXPECT_EQ(p.size_types().acc, DataType::UInt64);
  EXPECT_DOUBLE_EQ(p.bytes(1000), 16000.0);
  EXPECT_EQ(p.op_hash().size(), 16u);
  EXPECT_EQ(p.extra_struct_bytes(), 0u); // 8 bytes: uint64's estimate
  const Problem wide{detail::kStructStandIn,
                     detail::OpSpec::from(CustomOp{"w", "return a;", "w_t{}",
                                                   "struct w_t { int v[4]; };", "w_t", 16}),
                     ScanKind::Inclusive};
  EXPECT_EQ(wide.extra_struct_bytes(), 24u);
  // Other problems add nothing, a converting one's narrow input included.
  EXPECT_EQ(Problem::of(parse_scan_types("uint8:int32"), detail::OpSpec::from(Op::Sum),
                        ScanKind::Inclusive)
                .extra_struct_bytes(),
            0u);
  // The runtime's name of the same problem: what dispatch looks up.
  const detail::ProblemName name = detail::ProblemName::of(p.type, p.op.ref(), ScanKind::Exclusive);
  EXPECT_EQ(name.problem_text(), p.problem());
  EXPECT_EQ(name.op_hash, p.op_hash());
}

class GpuStructTune : public test::GpuTest {};

TEST_F(GpuStructTune, EvaluatorVerifiesStructShapes) {
  Scanner scanner;
  for (const CustomOp* op : {&linear_recurrence_op(), &argmax_op()})
    for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
      const Problem p{detail::kStructStandIn, detail::OpSpec::from(*op), k};
      GpuEvaluator eval(scanner, nullptr, p, 100003, {});
      for (const char* key : {"lookback_warp.tpb256.ipt12.vec2.warp_scans",
                              "lookback_thread.tpb128.ipt8.vec1.warp_scans",
                              "reduce_then_scan.tpb256.ipt8.vec2.blelloch"}) {
        const Result r = eval.measure(Policy::parse(key), 100003, Effort::Screen, 0);
        EXPECT_TRUE(r.ok()) << p.label() << " " << key << ": " << r.message;
      }
      EXPECT_TRUE(eval.time_dispatch(100003).ok) << p.label();
      EXPECT_TRUE(eval.time_memcpy(100003).ok) << p.label();
      const BaselineResult cub = eval.time_cub(100003);
      EXPECT_FALSE(cub.ok);
      EXPECT_NE(cub.error.find("bench/struct_bench.cu"), std::string::npos) << cub.error;
    }
}

TEST_F(GpuStructTune, WinnersAreStoredPerBucketAndDispatched) {
  TempDir dir;
  TuneOptions o;
  o.sizes = {1 << 16, 1 << 20};
  o.db_path = (dir / "tuning.db").string();
  o.progress = Progress::Mode::Quiet;
  o.space.block_threads = {128, 256};
  o.space.items_per_thread = {8, 12};
  o.ops.clear();
  o.custom_ops = {linear_recurrence_op()};
  ASSERT_EQ(run_tune_quietly(o), 0);
  auto db = db::TuningDb::open(o.db_path);
  const auto best = db.list_best();
  ASSERT_EQ(best.size(), o.sizes.size());
  for (const auto& b : best) {
    EXPECT_EQ(b.type, "uint32");
    EXPECT_EQ(b.problem, "@struct8");
    EXPECT_FALSE(detail::struct_invalid_reason(Policy::parse(b.policy), 8)) << b.policy;
  }
  Scanner scanner(ScannerOptions{-1, o.db_path, {}});
  for (const auto& b : best) {
    const Plan plan = scanner.plan_struct(linear_recurrence_op(), ScanKind::Inclusive, b.size);
    EXPECT_EQ(plan.match, Match::Exact) << b.size;
    EXPECT_EQ(plan.policy, b.policy) << b.size;
  }
}

} // namespace
} // namespace scantune::tuner
