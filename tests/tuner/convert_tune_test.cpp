// Converting problems (uint8:int32, int8 = int8:int32:int8) in the tuner: their label
// and DB text, their search space, and a simulated tune whose winners the runtime's
// dispatch reads back. No GPU needed.
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>

#include <gtest/gtest.h>

#include "cache/tuning_db.hpp"
#include "cache/tuning_db_test_util.hpp"
#include "dispatch.hpp"
#include "nvrtc_compiler.hpp"
#include "route_cache.hpp"
#include "tuner/gpu/reference.hpp"
#include "tuner/run/bench_run.hpp"
#include "tuner/run/tune.hpp"
#include "tuner/search/problem.hpp"
#include "tuner/search/search_space.hpp"
#include "tuner_test_util.hpp"

namespace scantune::tuner {
namespace {

using db::testing::TempDir;

Problem converting(const char* types, ScanKind kind = ScanKind::Inclusive) {
  return Problem::of(parse_scan_types(types), detail::OpSpec::from(Op::Sum), kind);
}

TEST(ConvertProblem, LabelAndDbText) {
  const Problem p = converting("uint8:int32");
  EXPECT_EQ(p.type, DataType::Int32);
  EXPECT_EQ(p.label(), "uint8:int32 sum inclusive");
  EXPECT_EQ(p.problem(), "@uint8:int32");
  EXPECT_DOUBLE_EQ(p.bytes(1000), 5000.0);
  const Policy w = Policy::parse("lookback_warp.tpb256.ipt16.vec4.warp_scans");
  EXPECT_EQ(p.spec(w).converts, parse_scan_types("uint8:int32"));

  const Problem narrow = converting("int8");
  EXPECT_EQ(narrow.label(), "int8:int32:int8 sum inclusive");
  EXPECT_EQ(narrow.problem(), "@int8:int32:int8");
  EXPECT_DOUBLE_EQ(narrow.bytes(1000), 2000.0);

  // A uniform one is the flat problem it always was.
  const Problem flat = converting("int32");
  EXPECT_FALSE(flat.converts);
  EXPECT_EQ(flat.problem(), "");
  EXPECT_FALSE(flat.spec(w).converts);
}

TEST(ConvertProblem, DbTextIsTheRuntimes) {
  for (const char* text : {"uint8:int32", "int8", "float16:float32:float16", "int16:int64"}) {
    const Problem p = converting(text);
    detail::ProblemName name;
    name.type = p.type;
    ASSERT_TRUE(name.set_problem_text(p.problem())) << text;
    EXPECT_EQ(name.converts, p.converts) << text;
  }
}

TEST(ConvertSpace, ValidForTheTypesWithWideVectorsOfBytes) {
  const ScanTypes int8 = scan_types(DataType::Int8);
  const std::vector<Policy> space = enumerate(int8, default_space());
  ASSERT_FALSE(space.empty());
  bool vec16 = false, pipelined = false, bulk = false;
  for (const Policy& p : space) {
    EXPECT_FALSE(p.invalid_reason(int8)) << p.key() << ": " << *p.invalid_reason(int8);
    if (p.algorithm == Algorithm::LookbackBulk) { // rows of 16 bytes of the input
      bulk = true;
      EXPECT_EQ(p.vector_width, 16) << p.key();
    }
    vec16 = vec16 || p.vector_width == 16;
    pipelined = pipelined || p.algorithm == Algorithm::LookbackPipelined;
  }
  EXPECT_TRUE(vec16);
  EXPECT_TRUE(bulk);
  EXPECT_TRUE(pipelined); // with 4-byte input vectors and no warp transpose only

  const ScanTypes widening = parse_scan_types("uint8:int32");
  const std::vector<Policy> wide = enumerate(widening, default_space());
  ASSERT_FALSE(wide.empty());
  for (const Policy& p : wide) {
    EXPECT_FALSE(p.invalid_reason(widening)) << p.key();
    EXPECT_LE(p.vector_width, 4) << p.key(); // vectors of the int32 output
  }
  for (const Policy& q : neighbours(space.back(), int8, default_space()))
    EXPECT_FALSE(q.invalid_reason(int8)) << q.key();
}

// The tuner's kernel specs of converting candidates compile (NVRTC, no GPU needed):
// one candidate of each algorithm, and the widest vectors.
TEST(ConvertSpace, CandidatesCompile) {
  for (const char* types : {"int8", "uint8:int32", "float16:float32:float16"}) {
    const Problem p = converting(types, ScanKind::Exclusive);
    std::map<Algorithm, Policy> first;
    Policy widest = Policy::sequential();
    for (const Policy& q : enumerate(p.types(), default_space())) {
      first.emplace(q.algorithm, q);
      if (q.vector_width > widest.vector_width) widest = q;
    }
    first.emplace(Algorithm::Sequential, widest); // the sequential slot holds the widest
    for (const auto& [algorithm, policy] : first) {
      const detail::GeneratedSource g = detail::generate({p.spec(policy)});
      EXPECT_NE(p.spec(policy).id().find(to_string(p.types())), std::string::npos);
      const auto prog = detail::nvrtc_compile(g.name, g.source, g.name_expressions.front(), 90);
      EXPECT_FALSE(prog.cubin.empty()) << types << " " << policy.key();
    }
  }
}

template <class T>
std::vector<T> as_vector(const std::vector<unsigned char>& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

TEST(ConvertReference, ConvertsInAccumulatesAndStoresOut) {
  const std::size_t n = 5000;
  const std::uint64_t seed = 7;
  // uint8 in, int32 sums: every byte zero-extended.
  const auto widened = as_vector<std::int32_t>(reference_scan(
      parse_scan_types("uint8:int32"), Op::Sum, ScanKind::Inclusive, ValueSet::Walk, seed, n, 0));
  std::int32_t sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sum += input_value<std::uint8_t>(ValueSet::Walk, seed, i);
    ASSERT_EQ(widened[i], sum) << i;
  }
  // int8 in and out, int32 sums: sign-extended, the low byte stored; exclusive from init.
  const std::uint64_t init = 3;
  const auto narrow = as_vector<std::int8_t>(reference_scan(
      scan_types(DataType::Int8), Op::Sum, ScanKind::Exclusive, ValueSet::Walk, seed, n, init));
  std::uint32_t acc = 3;
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(narrow[i], static_cast<std::int8_t>(acc & 0xFF)) << i;
    acc += static_cast<std::uint32_t>(
        static_cast<std::int32_t>(input_value<std::int8_t>(ValueSet::Walk, seed, i)));
  }
  // half in and out, float sums: small integers, rounded to nearest even on store.
  const auto half =
      as_vector<__half>(reference_scan(parse_scan_types("float16:float32:float16"), Op::Sum,
                                       ScanKind::Inclusive, ValueSet::Walk, seed, n, 0));
  float f = 0;
  for (std::size_t i = 0; i < n; ++i) {
    f += narrow_float_value(ValueSet::Walk, seed, i);
    ASSERT_EQ(__half2float(half[i]), __half2float(__float2half_rn(f))) << i;
  }
  // The Wide set of half inputs stays exact in half: integers within +-128.
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const float v = narrow_float_value(ValueSet::Wide, seed, i);
    EXPECT_TRUE(v != 0 && v >= -128 && v <= 128 && v == static_cast<float>(static_cast<int>(v)));
    EXPECT_EQ(__half2float(__float2half_rn(v)), v);
  }
}

// A recording of inclusive sums of `types` at 2^20: three policies, one clearly fastest.
void record(const std::string& path, const ScanTypes& types) {
  auto db = db::TuningDb::open(path);
  db::DeviceInfo d;
  d.name = "NVIDIA Test GPU";
  d.cc_major = 9;
  d.sm_count = 132;
  d.uuid = "GPU-converting";
  db::RunInfo run;
  run.device_id = db.add_device(d);
  run.library_version = "test";
  const std::int64_t run_id = db.begin_run(run);
  // Vectors of 16 bytes of the wider side: wider than 16 bytes of accumulators for
  // int8 and half, which the dispatcher must not take for invalid.
  const std::string vec =
      ".vec" + std::to_string(16 / std::max(size_of(types.in), size_of(types.out)));
  const std::pair<std::string, double> times[] = {
      {"lookback_warp.tpb256.ipt16" + vec + ".warp_scans", 9000},
      {"lookback_warp.tpb128.ipt16" + vec + ".warp_scans", 7000},
      {"reduce_then_scan.tpb256.ipt16" + vec + ".warp_scans", 12000}};
  for (const auto& [key, ns] : times) {
    db::Measurement m;
    m.run_id = run_id;
    m.device_id = *run.device_id;
    m.type = std::string(to_string(types.acc));
    m.op = "sum";
    m.kind = "inclusive";
    m.problem = converting_problem(types);
    m.size = std::uint64_t{1} << 20;
    m.policy = Policy::parse(key).key();
    m.status = db::MeasurementStatus::Ok;
    m.median_ns = m.min_ns = m.max_ns = ns;
    m.gbs = 5.0 * static_cast<double>(m.size) / ns;
    m.samples = 10;
    db.add_measurement(m);
  }
  db.end_run(run_id, db::RunStatus::Complete);
}

// Widening, narrow (int8 through int32) and half through float alike.
class ConvertTuneTypes : public ::testing::TestWithParam<const char*> {};

TEST_P(ConvertTuneTypes, SimulatedWinnersDispatchExactly) {
  const ScanTypes types = parse_scan_types(GetParam());
  TempDir dir;
  const std::string recorded = (dir / "recorded.db").string();
  record(recorded, types);
  TuneOptions o;
  o.types = {types};
  o.sizes = {std::uint64_t{1} << 20};
  o.simulate_db = recorded;
  o.db_path = (dir / "tuned.db").string();
  o.strategy = "exhaustive";
  o.progress = Progress::Mode::Quiet;
  o.space.algorithms = {Algorithm::ReduceThenScan, Algorithm::LookbackWarp};
  ASSERT_EQ(run_tune_quietly(o), 0);

  auto db = db::TuningDb::open(o.db_path);
  const auto best = db.list_best();
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0].type, to_string(types.acc));
  EXPECT_EQ(best[0].problem, converting_problem(types));
  const std::string winner =
      Policy::parse("lookback_warp.tpb128.ipt16.vec" +
                    std::to_string(16 / std::max(size_of(types.in), size_of(types.out))) +
                    ".warp_scans")
          .key();
  EXPECT_EQ(best[0].policy, winner);
  for (const db::Measurement& m : db.list_measurements()) {
    EXPECT_EQ(m.type, to_string(types.acc));
    EXPECT_EQ(m.problem, converting_problem(types));
  }

  const auto entries = detail::read_tuned_entries(o.db_path);
  ASSERT_TRUE(entries);
  ASSERT_EQ(entries->size(), 1u);
  const detail::DispatchTable table(90, (*entries)[0].model, *entries, o.db_path);
  const auto problem = detail::ProblemName::of(types, Op::Sum, ScanKind::Inclusive);
  const detail::Choice c = table.resolve(problem, std::uint64_t{1} << 20);
  EXPECT_EQ(c.match, Match::Exact);
  EXPECT_EQ(c.policy.key(), winner);
  // What a call's route holds.
  detail::RouteCache routes(std::make_shared<const detail::DispatchTable>(table));
  EXPECT_EQ(routes
                .route(types.acc, Op::Sum, ScanKind::Inclusive, std::uint64_t{1} << 20,
                       detail::Heads::None, false, &types)
                .plan.policy.key(),
            winner);
  // The uniform int32 problem has no winner of its own.
  EXPECT_NE(table
                .resolve(detail::ProblemName::of(types.acc, Op::Sum, ScanKind::Inclusive),
                         std::uint64_t{1} << 20)
                .match,
            Match::Exact);
}
INSTANTIATE_TEST_SUITE_P(Types, ConvertTuneTypes,
                         ::testing::Values("uint8:int32", "int8", "float16:float32:float16"));

TEST(ConvertTune, SegmentedOrCustomConvertingIsAUsageError) {
  TuneOptions o;
  o.types = {parse_scan_types("uint8:int32")};
  o.dry_run = true;
  o.progress = Progress::Mode::Quiet;
  o.segments = {parse_segments("rows:1024")};
  EXPECT_THROW(run_tune(o, std::tmpfile()), UsageError);
  o.segments = {};
  o.ops.clear();
  o.custom_ops = {CustomOp{"absmax", "return a > b ? a : b;", "0"}};
  EXPECT_THROW(run_tune(o, std::tmpfile()), UsageError);
}

TEST(ConvertTune, DryRunListsTheConvertingProblem) {
  TuneOptions o;
  o.types = {scan_types(DataType::Int8)};
  o.sizes = {std::uint64_t{1} << 20};
  o.dry_run = true;
  o.progress = Progress::Mode::Quiet;
  std::FILE* out = std::tmpfile();
  ASSERT_EQ(run_tune(o, out), 0);
  std::rewind(out);
  char buf[4096] = {};
  const std::size_t got = std::fread(buf, 1, sizeof buf - 1, out);
  std::fclose(out);
  EXPECT_NE(std::string(buf, got).find("int8:int32:int8 sum inclusive:"), std::string::npos) << buf;
}

} // namespace
} // namespace scantune::tuner
