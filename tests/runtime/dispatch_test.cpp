// The dispatcher's fallback chain (Exact, NearestSize, SameArch, BuiltIn), the
// nearest-bucket rule and the built-in table, on tuning databases built here.
#include <fstream>
#include <memory>

#include <tuple>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "algorithms.hpp"
#include "builtin_table.hpp"
#include "cache/tuning_db_test_util.hpp"
#include "default_policies.hpp"
#include "dispatch.hpp"
#include "route_cache.hpp"

namespace scantune::detail {
namespace {

using db::testing::TempDir;

constexpr const char* kLw = "lookback_warp.tpb256.ipt12.vec4.warp_scans";
constexpr const char* kLt = "lookback_thread.tpb128.ipt8.vec4.warp_scans";
constexpr const char* kSb = "single_block.tpb512.ipt4.vec4.warp_scans";
constexpr const char* kRts = "reduce_then_scan.tpb256.ipt8.vec4.blelloch";

db::DeviceInfo h200() {
  db::DeviceInfo d = db::testing::h100("GPU-22222222-0000-0000-0000-000000000000");
  d.name = "NVIDIA H200";
  return d;
}

db::BestEntry best(std::int64_t dev, const char* type, const char* op, const char* kind,
                   std::uint64_t size, const char* policy) {
  db::BestEntry e = db::testing::make_best(dev, std::nullopt, type, size, 1000.0, policy);
  e.op = op;
  e.kind = kind;
  return e;
}

class Dispatch : public ::testing::Test {
protected:
  void SetUp() override {
    auto tdb = db::TuningDb::open(dir_ / "tuning.db");
    const auto h = tdb.add_device(db::testing::h100());
    const auto h2 = tdb.add_device(h200());
    const auto a = tdb.add_device(db::testing::a100());
    tdb.set_best(best(h, "int32", "sum", "inclusive", 1u << 10, kSb));
    tdb.set_best(best(h, "int32", "sum", "inclusive", 1u << 20, kLw));
    tdb.set_best(best(h, "int32", "sum", "inclusive", 1u << 28, kLt));
    tdb.set_best(best(h2, "int32", "sum", "exclusive", 1u << 16, kRts));
    tdb.set_best(best(a, "int32", "max", "inclusive", 1u << 16, kRts));
    tdb.set_best(best(a, "int32", "sum", "inclusive", 1u << 20, kRts));
    auto entries = read_tuned_entries(dir_ / "tuning.db");
    ASSERT_TRUE(entries.has_value());
    entries_ = *entries;
  }
  DispatchTable table(const db::DeviceInfo& d) const {
    return DispatchTable(d.cc_major * 10 + d.cc_minor, d.model(), entries_,
                         (dir_ / "tuning.db").string());
  }
  static ProblemName problem(const char* type, Op op, const char* kind) {
    return ProblemName::of(parse_data_type(type), op, parse_scan_kind(kind));
  }

  TempDir dir_;
  std::vector<TunedEntry> entries_;
};

TEST_F(Dispatch, ExactBucketOfThisModel) {
  const DispatchTable t = table(db::testing::h100());
  const auto p = t.resolve(problem("int32", Op::Sum, "inclusive"), 1u << 20);
  EXPECT_EQ(p.match, Match::Exact);
  EXPECT_EQ(p.policy.key(), kLw);
  EXPECT_EQ(p.tuned_size, 1u << 20);
  EXPECT_NE(p.source.find("tuning.db"), std::string::npos) << p.source;
  // Every n of the bucket (1.5 x 2^19, 2^20] is an exact match; the half octave
  // below it is its own bucket, served by the nearest one.
  EXPECT_EQ(t.resolve(problem("int32", Op::Sum, "inclusive"), (3u << 18) + 1).match, Match::Exact);
  const auto below = t.resolve(problem("int32", Op::Sum, "inclusive"), 3u << 18);
  EXPECT_EQ(below.match, Match::NearestSize);
  EXPECT_EQ(below.policy.key(), kLw);
}

TEST_F(Dispatch, NearestBucketOnALogScaleSmallerOnATie) {
  const DispatchTable t = table(db::testing::h100());
  const ProblemName p = problem("int32", Op::Sum, "inclusive");
  // Buckets tuned: 10, 20, 28.
  EXPECT_EQ(t.resolve(p, 1u << 18).policy.key(), kLw); // 2 from 20
  EXPECT_EQ(t.resolve(p, 1u << 18).match, Match::NearestSize);
  EXPECT_EQ(t.resolve(p, 1u << 24).policy.key(), kLw);       // tie 4/4: the smaller bucket
  EXPECT_EQ(t.resolve(p, (1u << 24) + 1).policy.key(), kLt); // 1.5 x 2^24: 2.4 from 28
  EXPECT_EQ(t.resolve(p, std::uint64_t{1} << 40).policy.key(), kLt);
  EXPECT_EQ(t.resolve(p, 3000).policy.key(), kLw); // 1.5 x 2^11: 10 is nearer, but one block
}

TEST_F(Dispatch, OneBlockWinnersDoNotServeFarLargerSizes) {
  const DispatchTable t = table(db::testing::h100());
  const ProblemName p = problem("int32", Op::Sum, "inclusive");
  EXPECT_EQ(t.resolve(p, 1000).policy.key(), kSb); // its own bucket
  EXPECT_EQ(t.resolve(p, 100).policy.key(), kSb);  // and smaller ones
  // 1.5 x 2^10 is nearer to 2^10 than to 2^20, but a single block must not scan more
  // than its tuned bucket.
  EXPECT_EQ(t.resolve(p, 1025).policy.key(), kLw);
  EXPECT_EQ(t.resolve(p, 1025).match, Match::NearestSize);
  EXPECT_TRUE(applies_to(Policy::parse(kLw), 1, std::uint64_t{1} << 40));
  EXPECT_TRUE(applies_to(Policy::sequential(), 1000, 1024));
  EXPECT_FALSE(applies_to(Policy::sequential(), 1024, 1025));
}

TEST_F(Dispatch, SameArchitectureOtherModel) {
  const DispatchTable t = table(db::testing::h100());
  const auto p = t.resolve(problem("int32", Op::Sum, "exclusive"), 1u << 20);
  EXPECT_EQ(p.match, Match::SameArch);
  EXPECT_EQ(p.policy.key(), kRts);
  EXPECT_NE(p.source.find("NVIDIA H200"), std::string::npos) << p.source;
}

TEST_F(Dispatch, NeverAnEntryOfAnotherComputeCapability) {
  // The A100 tuned int32 max inclusive; an H100 must not use it.
  const DispatchTable h = table(db::testing::h100());
  const auto p = h.resolve(problem("int32", Op::Max, "inclusive"), 1u << 16);
  EXPECT_EQ(p.match, Match::BuiltIn);
  // And the A100 uses its own entries, never the H100's or H200's.
  const DispatchTable a = table(db::testing::a100());
  EXPECT_EQ(a.resolve(problem("int32", Op::Max, "inclusive"), 1u << 16).match, Match::Exact);
  const auto s = a.resolve(problem("int32", Op::Sum, "exclusive"), 1u << 16);
  EXPECT_EQ(s.match, Match::BuiltIn);
  EXPECT_EQ(s.policy, default_policy(DataType::Int32, 1u << 16)); // no sm_80 built-in table
  EXPECT_NE(s.source.find("heuristic"), std::string::npos) << s.source;
  EXPECT_EQ(a.own_entries(), 2u);
  EXPECT_EQ(a.same_arch_entries(), 0u);
  EXPECT_EQ(h.own_entries(), 3u);
  EXPECT_EQ(h.same_arch_entries(), 1u);
}

TEST_F(Dispatch, OtherProblemsAndCustomOperatorsAreSeparate) {
  const DispatchTable t = table(db::testing::h100());
  // Tuned int32 sum inclusive says nothing about uint32 sum or a custom operator.
  EXPECT_EQ(t.resolve(problem("uint32", Op::Sum, "inclusive"), 1u << 20).match, Match::BuiltIn);
  const CustomOp plus{"plus", "return a + b;", "0"};
  EXPECT_EQ(t.resolve(ProblemName::of(DataType::Int32, plus, ScanKind::Inclusive), 1u << 20).match,
            Match::BuiltIn);
}

TEST_F(Dispatch, CustomOperatorsMatchByNameAndSource) {
  const CustomOp absmax{"absmax", "return fabs(a) > fabs(b) ? a : b;", "0.0"};
  const ProblemName name = ProblemName::of(DataType::Float64, absmax, ScanKind::Inclusive);
  {
    auto tdb = db::TuningDb::open(dir_ / "tuning.db");
    db::BestEntry e = best(1, "float64", "absmax", "inclusive", 1u << 22,
                           "lookback_warp.tpb256.ipt8.vec2.warp_scans");
    e.op_hash = name.op_hash;
    tdb.set_best(e);
  }
  const auto entries = read_tuned_entries(dir_ / "tuning.db");
  const DispatchTable t(90, db::testing::h100().model(), *entries, "x");
  EXPECT_EQ(t.resolve(name, 1u << 22).match, Match::Exact);
  const CustomOp edited{"absmax", "return fabs(a) >= fabs(b) ? a : b;", "0.0"};
  EXPECT_EQ(
      t.resolve(ProblemName::of(DataType::Float64, edited, ScanKind::Inclusive), 1u << 22).match,
      Match::BuiltIn);
}

TEST_F(Dispatch, WinnersThatCannotRunOnTheirTypeAreIgnored) {
  {
    auto tdb = db::TuningDb::open(dir_ / "tuning.db");
    // vec4 of 8-byte elements is 32 bytes: invalid for int64.
    tdb.set_best(best(1, "int64", "sum", "inclusive", 1u << 20, kLw));
  }
  const auto entries = read_tuned_entries(dir_ / "tuning.db");
  const DispatchTable t(90, db::testing::h100().model(), *entries, "x");
  const auto p = t.resolve(problem("int64", Op::Sum, "inclusive"), 1u << 20);
  EXPECT_EQ(p.match, Match::BuiltIn);
  EXPECT_FALSE(p.policy.invalid_reason(DataType::Int64).has_value());
}

// Segmented problems have winners of their own; a flat winner never serves them, and
// theirs never serve flat scans. A winner without a segmented kernel is ignored.
TEST_F(Dispatch, SegmentedProblemsHaveTheirOwnWinners) {
  {
    auto tdb = db::TuningDb::open(dir_ / "tuning.db");
    db::BestEntry rows =
        best(1, "int32", "sum", "inclusive", 1u << 24, "lookback_warp.tpb128.ipt8.vec4.warp_scans");
    rows.problem = "rows";
    tdb.set_best(rows);
    db::BestEntry flags = best(1, "int32", "sum", "inclusive", 1u << 24, kLt);
    flags.problem = "flags"; // lookback_thread has no segmented kernel
    tdb.set_best(flags);
    db::BestEntry future = best(1, "int32", "sum", "inclusive", 1u << 24, kLw);
    future.problem = "a-newer-kind";
    tdb.set_best(future);
  }
  const auto entries = read_tuned_entries(dir_ / "tuning.db");
  ASSERT_TRUE(entries.has_value());
  const DispatchTable t(90, db::testing::h100().model(), *entries, "x");
  auto of = [&](Heads h) {
    return t.resolve(ProblemName::of(DataType::Int32, Op::Sum, ScanKind::Inclusive, h), 1u << 24);
  };
  EXPECT_EQ(of(Heads::Periodic).match, Match::Exact);
  EXPECT_EQ(of(Heads::Periodic).policy.key(), "lookback_warp.tpb128.ipt8.vec4.warp_scans");
  EXPECT_EQ(of(Heads::Flags).match, Match::BuiltIn);
  EXPECT_FALSE(segmented_invalid_reason(of(Heads::Flags).policy, Heads::Flags));
  EXPECT_NE(of(Heads::None).policy.key(), "lookback_warp.tpb128.ipt8.vec4.warp_scans");
  // Axis scans untuned: their own heuristic (8 rows x a 16-byte vector per thread).
  EXPECT_EQ(of(Heads::Axis).policy.key(), "lookback_warp.tpb256.ipt8.vec4.warp_scans");
  // Reductions: the flat scan's tile shape on lookback_warp, which has the kernel.
  const Choice flat = of(Heads::None), reduce = of(Heads::Reduce);
  EXPECT_EQ(reduce.policy.algorithm, Algorithm::LookbackWarp);
  EXPECT_EQ(reduce.policy.block_threads, flat.policy.block_threads);
  EXPECT_EQ(reduce.policy.vector_width, flat.policy.vector_width);
  EXPECT_LE(reduce.policy.items_per_thread / reduce.policy.vector_width, 8);
  EXPECT_FALSE(problem_invalid_reason(reduce.policy, Heads::Reduce, DataType::Int32));
  EXPECT_TRUE(
      problem_invalid_reason(Policy::parse("lookback_bulk.tpb256.ipt16.vec4.warp_scans.st4"),
                             Heads::Reduce, DataType::Int32));
  // Compactions, a problem kind each: select_flags, unique and partition_flags have
  // built-in rows (the table's own winner); the predicate kinds are untuned: their own
  // heuristic on lookback_warp.
  for (Heads h : {Heads::SelectFlags, Heads::SelectIf, Heads::Unique, Heads::PartitionFlags,
                  Heads::PartitionIf}) {
    if (h == Heads::SelectIf || h == Heads::PartitionIf) {
      EXPECT_EQ(of(h).policy.key(), "lookback_warp.tpb256.ipt16.vec4.warp_scans") << to_string(h);
    } else {
      EXPECT_EQ(of(h).match, Match::BuiltIn) << to_string(h);
      EXPECT_NE(of(h).source.find("built-in table"), std::string::npos) << to_string(h);
    }
    EXPECT_FALSE(problem_invalid_reason(of(h).policy, h, DataType::Int32));
    EXPECT_EQ(parse_heads(to_string(h)), h);
  }
  // float64 borrows the nearest tuned problem of its width: int64's row.
  auto unique_of = [&](DataType type) {
    return t.resolve(ProblemName::of(type, Op::Sum, ScanKind::Inclusive, Heads::Unique), 1u << 24)
        .policy.key();
  };
  EXPECT_EQ(unique_of(DataType::Float64), unique_of(DataType::Int64));
  EXPECT_TRUE(
      problem_invalid_reason(Policy::parse("lookback_warp.tpb256.ipt16.vec4.warp_scans.direct"),
                             Heads::SelectFlags, DataType::Int32));
  EXPECT_TRUE(problem_invalid_reason(Policy::parse("chained.tpb256.ipt16.vec4.warp_scans"),
                                     Heads::Unique, DataType::Int32));
  const Policy bulk = Policy::parse("lookback_bulk.tpb128.ipt12.vec4.warp_scans.st6");
  EXPECT_FALSE(problem_invalid_reason(bulk, Heads::SelectFlags, DataType::Int32));
  const auto why = problem_invalid_reason(bulk, Heads::Unique, DataType::Int32);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("lookback_bulk has no unique kernel (it selects and partitions by flags)"),
            std::string::npos)
      << *why;
  // select_bulk_kernel stages a flag byte per element beside the values.
  const ScanTypes i32{DataType::Int32, DataType::Int32, DataType::Int32};
  EXPECT_EQ(dynamic_shared_bytes(bulk, i32, Heads::SelectFlags), 6u * 1536 * 5);
  // A partition's count kernel (its second) runs the block threads without the stages,
  // in as many blocks as the SMs hold at 2048 threads each, at most one a tile.
  const KernelShape count = kernel_shape(bulk, i32, Heads::PartitionFlags, 1);
  EXPECT_EQ(count.threads, 128);
  EXPECT_EQ(count.dynamic_bytes, 0u);
  EXPECT_EQ(kernel_shape(bulk, i32, Heads::PartitionFlags, 0).threads, 128 + 96);
  EXPECT_EQ(partition_count_blocks(std::size_t{1} << 15, 512, 132), 4u * 132);
  EXPECT_EQ(partition_count_blocks(100, 512, 132), 100u);
  EXPECT_EQ(partition_count_blocks(std::size_t{1} << 20, 1024, 132), 2u * 132);
  EXPECT_EQ(partition_count_blocks(0, 256, 132), 1u);
}

// Untuned axis scans: the default follows the columns' length class, the same policy
// for every shape of a class (the route cache keeps one route set per class): columns
// of at most 8 rows get as many rows per thread (whole columns a warp), vectors no wider
// than a row. A tuned unclassed axis winner serves every class.
TEST_F(Dispatch, AxisDefaultsFollowTheShapeUnlessTuned) {
  const ProblemName axis =
      ProblemName::of(DataType::Float32, Op::Sum, ScanKind::Inclusive, Heads::Axis);
  const std::string model = db::testing::h100().model();
  const DispatchTable untuned(90, model, {}, "x", BuiltinTable{nullptr, 0});
  auto classed = [&](std::size_t len, std::size_t inner) {
    ProblemName p = axis;
    p.shape = axis_class(len, inner);
    return p;
  };
  auto key = [&](std::size_t len, std::size_t inner) {
    return untuned.resolve(classed(len, inner), 1u << 24).policy.key();
  };
  EXPECT_EQ(key(16384, 1024), "lookback_warp.tpb256.ipt8.vec4.warp_scans");
  EXPECT_EQ(untuned.resolve(axis, 1u << 24).policy.key(), key(16384, 1024));
  EXPECT_EQ(key(4, 1u << 22), "lookback_warp.tpb256.ipt4.vec4.warp_scans");
  EXPECT_EQ(key(7, 1u << 22), "lookback_warp.tpb256.ipt8.vec4.warp_scans");
  EXPECT_EQ(key(2, 1u << 23), "lookback_warp.tpb256.ipt4.vec4.warp_scans");
  EXPECT_EQ(key(1, 1u << 24), "lookback_warp.tpb256.ipt4.vec4.warp_scans");
  EXPECT_EQ(key(1000, 20), "lookback_warp.tpb256.ipt8.vec4.warp_scans");
  EXPECT_EQ(key(1000, 64), "lookback_warp.tpb256.ipt8.vec4.warp_scans");
  EXPECT_EQ(key(4, 20), "lookback_warp.tpb256.ipt4.vec4.warp_scans");
  for (DataType t : {DataType::Int32, DataType::Float32, DataType::Int64, DataType::Float64})
    for (std::size_t len = 1; len <= 20; ++len)
      for (std::size_t inner : {2, 31, 32, 33, 63, 64, 65, 128, 1000}) {
        const Policy p = default_axis_policy(t, axis_class_shape(axis_class(len, inner)));
        EXPECT_FALSE(p.invalid_reason(t)) << p.key();
        EXPECT_FALSE(problem_invalid_reason(p, Heads::Axis, DataType::Int32)) << p.key();
        const auto rows = static_cast<std::size_t>(p.items_per_thread);
        if (len <= 8) { // each thread holds whole columns, at least a vector's rows
          EXPECT_TRUE(rows >= len && (rows <= 2 * len || rows == std::size_t(p.vector_width)))
              << p.key() << " " << len;
        }
        if (inner <= 64 && len > 1) { // a 1-row tile has a column a lane
          EXPECT_GE(32u * p.vector_width, inner) << p.key();
        } else if (len > 8) {
          EXPECT_EQ(p.vector_width, size_of(t) == 4 ? 4 : 2) << p.key();
        }
      }
  // The route cache: a route per class, the general one shared with shapeless calls.
  auto table = std::make_shared<const DispatchTable>(90, model, std::vector<TunedEntry>{}, "x",
                                                     BuiltinTable{nullptr, 0});
  RouteCache cache(table);
  auto route = [&](std::size_t len, std::size_t inner) -> Route& {
    return cache.route(DataType::Float32, Op::Sum, ScanKind::Inclusive, 1u << 24, Heads::Axis,
                       false, nullptr, axis_class(len, inner));
  };
  EXPECT_EQ(route(4, 1u << 22).plan.policy.key(), key(4, 1u << 22));
  EXPECT_EQ(&route(3, 1u << 22), &route(4, 1u << 20));
  EXPECT_NE(&route(4, 1u << 22), &route(16384, 1024));
  EXPECT_EQ(route(1000, 20).plan.policy.key(), key(1000, 20));
  {
    auto tdb = db::TuningDb::open(dir_ / "tuning.db");
    db::BestEntry tuned = best(1, "float32", "sum", "inclusive", 1u << 24, kLw);
    tuned.problem = "axis";
    tdb.set_best(tuned);
  }
  const auto entries = read_tuned_entries(dir_ / "tuning.db");
  ASSERT_TRUE(entries.has_value());
  const DispatchTable t(90, model, *entries, "x", BuiltinTable{nullptr, 0});
  for (const ProblemName& p : {classed(4, 1u << 22), classed(16384, 1024), classed(1000, 20)}) {
    const Choice c = t.resolve(p, 1u << 24);
    EXPECT_EQ(c.match, Match::Exact);
    EXPECT_EQ(c.policy.key(), kLw);
  }
}

// Length classes: a classed winner serves calls of its class (at its size and, nearest,
// at others); a call of another class takes the unclassed winner, else the heuristic.
TEST_F(Dispatch, LengthClassedWinnersServeTheirClassOnly) {
  constexpr const char* kShortRows = "lookback_warp.tpb128.ipt8.vec4.warp_scans";
  constexpr const char* kLongColumns = "lookback_warp.tpb512.ipt4.vec4.warp_scans";
  {
    auto tdb = db::TuningDb::open(dir_ / "tuning.db");
    db::BestEntry rows = best(1, "int32", "sum", "inclusive", 1u << 24, kLw);
    rows.problem = "rows"; // unclassed, as databases from before length classes hold
    tdb.set_best(rows);
    db::BestEntry short_rows = best(1, "int32", "sum", "inclusive", 1u << 24, kShortRows);
    short_rows.problem = "rows.len_le16";
    tdb.set_best(short_rows);
    db::BestEntry columns = best(1, "int32", "sum", "inclusive", 1u << 24, kLongColumns);
    columns.problem = "axis.len_gt4096.inner_le32";
    tdb.set_best(columns);
  }
  const auto entries = read_tuned_entries(dir_ / "tuning.db");
  ASSERT_TRUE(entries.has_value());
  const auto t = std::make_shared<const DispatchTable>(
      90, db::testing::h100().model(), *entries, "x", BuiltinTable{nullptr, 0}); // the DB alone
  auto rows = [&](std::uint64_t len, std::uint64_t n) {
    return t->resolve(ProblemName::of(DataType::Int32, Op::Sum, ScanKind::Inclusive,
                                      Heads::Periodic, length_class(len)),
                      n);
  };
  EXPECT_EQ(rows(12, 1u << 24).match, Match::Exact);
  EXPECT_EQ(rows(12, 1u << 24).policy.key(), kShortRows);
  EXPECT_EQ(rows(16, 1u << 20).match, Match::NearestSize); // its class, the nearest size
  EXPECT_EQ(rows(16, 1u << 20).policy.key(), kShortRows);
  const Choice longer = rows(17, 1u << 24); // another class: the unclassed winner
  EXPECT_EQ(longer.match, Match::Exact);
  EXPECT_EQ(longer.policy.key(), kLw);
  EXPECT_NE(longer.source.find("(nothing tuned for rows.len_le256)"), std::string::npos)
      << longer.source;
  auto axis = [&](std::uint64_t len, std::uint64_t inner) {
    return t->resolve(ProblemName::of(DataType::Int32, Op::Sum, ScanKind::Inclusive, Heads::Axis,
                                      axis_class(len, inner)),
                      1u << 24);
  };
  EXPECT_EQ(axis(1u << 20, 16).policy.key(), kLongColumns);
  EXPECT_EQ(axis(1u << 20, 16).match, Match::Exact);
  // (2^20, 16) and (4, 2^20) differ: the other shape has no axis winner at all.
  const Choice other = axis(4, 1u << 20);
  EXPECT_EQ(other.policy,
            default_axis_policy(DataType::Int32, axis_class_shape(axis_class(4, 1u << 20))));
  EXPECT_NE(other.source.find("nothing tuned for axis.len_le4.inner_gt64"), std::string::npos)
      << other.source;
  // Routes of different classes are different route sets.
  RouteCache cache(t);
  const auto route = [&](ShapeClass c) -> const Choice& {
    return cache
        .route(DataType::Int32, Op::Sum, ScanKind::Inclusive, 1u << 24, Heads::Periodic, false,
               nullptr, c)
        .plan;
  };
  EXPECT_EQ(route(length_class(12)).policy.key(), kShortRows);
  EXPECT_EQ(route(length_class(1024)).policy.key(), kLw);
  EXPECT_EQ(route({}).policy.key(), kLw);
}

TEST(DispatchDb, MissingDatabaseIsNoneAndABrokenOneThrows) {
  TempDir dir;
  EXPECT_FALSE(read_tuned_entries(dir / "absent.db").has_value());
  db::testing::write_bytes(dir / "broken.db", "this is not an SQLite file, just text");
  EXPECT_ERROR_NAMING(read_tuned_entries(dir / "broken.db"), "broken.db");
  EXPECT_EQ(db::testing::read_bytes(dir / "broken.db"), "this is not an SQLite file, just text");
}

// The built-in table is the committed H100 table, row for row.
TEST(BuiltinTable, MatchesTheCommittedTable) {
  std::ifstream in(SCANTUNE_SOURCE_DIR "/runtime/builtin/h100_sm90.json");
  ASSERT_TRUE(in.good());
  const auto doc = nlohmann::json::parse(in);
  std::vector<
      std::tuple<std::string, std::string, std::string, std::string, std::uint64_t, std::string>>
      want, got;
  for (const auto& e : doc.at("entries"))
    want.emplace_back(e.at("type"), e.at("op"), e.at("kind"), e.value("problem", ""), e.at("size"),
                      e.at("policy"));
  for (const BuiltinEntry& e : builtin_table()) {
    if (e.model != doc.at("gpu").at("model").get<std::string>()) continue; // another GPU's table
    EXPECT_EQ(e.arch, doc.at("gpu").at("arch"));
    got.emplace_back(to_string(e.type), to_string(e.op), to_string(e.kind), e.problem, e.size,
                     e.policy);
  }
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, want);
  EXPECT_GE(got.size(), 100u);
}

TEST(BuiltinTable, ServesSm90WithoutADatabase) {
  const DispatchTable t(90, "NVIDIA H100 PCIe (sm_90, 114 SMs)", {}, "");
  const auto p =
      t.resolve(ProblemName::of(DataType::Float64, Op::Sum, ScanKind::Exclusive), 1u << 26);
  EXPECT_EQ(p.match, Match::BuiltIn);
  EXPECT_EQ(p.tuned_size, 1u << 26);
  EXPECT_NE(p.source.find("built-in table: NVIDIA H100 80GB HBM3"), std::string::npos) << p.source;
  EXPECT_EQ(p.source.find("nearest tuned problem"), std::string::npos) << p.source;
  // Without a table of its own, another model's exact problem comes first (the H100
  // and H200 tables both hold the standard matrix), before any nearest problem.
  const auto x =
      t.resolve(ProblemName::of(DataType::UInt64, Op::Min, ScanKind::Exclusive), 1u << 26);
  EXPECT_EQ(x.match, Match::BuiltIn);
  EXPECT_NE(x.source.find(" (sm_90, 132 SMs), uint64 min exclusive, tuned at"), std::string::npos)
      << x.source;
  // Another architecture: heuristics only.
  const DispatchTable old(75, "Tesla T4 (sm_75, 40 SMs)", {}, "");
  EXPECT_NE(old.resolve(ProblemName::of(DataType::Int32, Op::Sum, ScanKind::Inclusive), 1u << 20)
                .source.find("heuristic"),
            std::string::npos);
}

TEST(BuiltinTable, AModelsOwnTableServesItsUntunedProblemsFromTheNearestTunedOne) {
  // The H100's table holds the standard matrix (6 types x sum, min, max x both kinds);
  // another operator borrows a tuned problem of its type and kind from the model's rows.
  const DispatchTable t(90, "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)", {}, "");
  for (auto [type, op, from] : {std::tuple{DataType::UInt64, Op::Product, "uint64 "},
                                std::tuple{DataType::UInt32, Op::BitXor, "uint32 "},
                                std::tuple{DataType::Int32, Op::BitAnd, "int32 "},
                                std::tuple{DataType::Float64, Op::Product, "float64 "}}) {
    const auto b = t.resolve(ProblemName::of(type, op, ScanKind::Exclusive), 1u << 26);
    EXPECT_EQ(b.match, Match::BuiltIn);
    EXPECT_NE(b.source.find("NVIDIA H100 80GB HBM3 (sm_90, 132 SMs), " + std::string(from)),
              std::string::npos)
        << b.source;
    EXPECT_NE(b.source.find(" exclusive (the nearest tuned problem)"), std::string::npos)
        << b.source;
    EXPECT_FALSE(b.policy.invalid_reason(type).has_value()) << b.source;
  }
  // Its tuned problems serve themselves, min and unsigned included.
  for (DataType type : {DataType::UInt32, DataType::UInt64, DataType::Float32})
    EXPECT_EQ(t.resolve(ProblemName::of(type, Op::Min, ScanKind::Exclusive), 1u << 28)
                  .source.find("nearest tuned problem"),
              std::string::npos);
  // A custom operator borrows max's shapes of its kind: its combine costs more than an
  // add, and sum exclusive's shapes ran 64-bit custom operators below CUB.
  const CustomOp product{"shifted_product", "return a * b + a + b;", "0"};
  const CustomOp absmax{"absmax", "return fabsf(a) > fabsf(b) ? a : b;", "0.0f"};
  for (auto [type, op, from] : {std::tuple{DataType::UInt64, product, "uint64 max"},
                                std::tuple{DataType::UInt32, product, "uint32 max"},
                                std::tuple{DataType::Float32, absmax, "float32 max"},
                                std::tuple{DataType::Float64, absmax, "float64 max"}})
    for (ScanKind kind : {ScanKind::Inclusive, ScanKind::Exclusive}) {
      const auto c = t.resolve(ProblemName::of(type, op, kind), 1u << 26);
      const std::string want =
          std::string(from) + " " + std::string(to_string(kind)) + " (the nearest tuned problem)";
      EXPECT_NE(c.source.find(want), std::string::npos) << c.source;
    }
}

// Built-in rows of segmented and converting problems serve their own problem; a
// converting problem without one takes its accumulator's shape.
TEST(BuiltinTable, RowsOfOtherProblemsServeTheirOwn) {
  const Policy rows_policy = Policy::parse("lookback_warp.tpb128.ipt8.vec4.warp_scans");
  const std::string rows_key = rows_policy.key();
  const BuiltinEntry segmented[] = {
      {90, "m", DataType::Int32, Op::Sum, ScanKind::Inclusive, "", 1u << 20, kLw, 1.0},
      {90, "m", DataType::Int32, Op::Sum, ScanKind::Inclusive, "@uint8:int32", 1u << 20, kLt, 1.0},
      {90, "m", DataType::Int32, Op::Sum, ScanKind::Inclusive, "rows", 1u << 20, rows_key.c_str(),
       1.0}};
  const DispatchTable t(90, "m", {}, "", BuiltinTable{segmented, 3});
  EXPECT_EQ(t.builtin_entries(), 3u);
  const auto flat =
      t.resolve(ProblemName::of(DataType::Int32, Op::Sum, ScanKind::Inclusive), 1u << 20);
  EXPECT_EQ(flat.policy.key(), kLw);
  const auto seg = t.resolve(
      ProblemName::of(DataType::Int32, Op::Sum, ScanKind::Inclusive, Heads::Periodic), 1u << 20);
  EXPECT_EQ(seg.match, Match::BuiltIn);
  EXPECT_EQ(seg.policy, rows_policy);
  EXPECT_NE(seg.source.find("int32 sum inclusive rows, tuned"), std::string::npos) << seg.source;
  const ScanTypes u8{DataType::UInt8, DataType::Int32, DataType::Int32};
  const auto conv = t.resolve(ProblemName::of(u8, Op::Sum, ScanKind::Inclusive), 1u << 20);
  EXPECT_EQ(conv.match, Match::BuiltIn);
  EXPECT_EQ(conv.policy.key(), kLt);
  EXPECT_NE(conv.source.find("uint8:int32 sum inclusive, tuned"), std::string::npos) << conv.source;
  // int8:int32 has no row: the accumulator's (flat) shape, converted.
  const ScanTypes i8{DataType::Int8, DataType::Int32, DataType::Int32};
  const auto other = t.resolve(ProblemName::of(i8, Op::Sum, ScanKind::Inclusive), 1u << 20);
  EXPECT_EQ(other.match, Match::BuiltIn);
  EXPECT_NE(other.source.find("(its shape, for int8:int32)"), std::string::npos) << other.source;
  // A flags problem borrows nothing from rows: no flags row, the segmented heuristic.
  const auto flags = t.resolve(
      ProblemName::of(DataType::Int32, Op::Sum, ScanKind::Inclusive, Heads::Flags), 1u << 20);
  EXPECT_NE(flags.source.find("heuristic"), std::string::npos) << flags.source;
  // A database winner of the problem outranks its built-in row.
  TunedEntry e;
  e.arch = 90;
  e.model = "m";
  e.problem = ProblemName::of(DataType::Int32, Op::Sum, ScanKind::Inclusive, Heads::Periodic);
  e.size = 1u << 20;
  e.bucket = db::size_bucket(e.size);
  e.policy = Policy::parse(kLw);
  const DispatchTable withdb(90, "m", {e}, "t.db", BuiltinTable{segmented, 3});
  const auto tuned = withdb.resolve(e.problem, 1u << 20);
  EXPECT_EQ(tuned.match, Match::Exact);
  EXPECT_EQ(tuned.policy.key(), kLw);
}

// A problem tuned only far from n borrows the rows of its type twin (same size, same
// problem otherwise) where they sit nearer; its own rows win ties and nearer buckets.
TEST(BuiltinTable, TypeTwinsStandInNearerInSize) {
  const char* axis = "axis.len_le256.inner_gt64";
  const BuiltinEntry rows[] = {
      {90, "m", DataType::Float32, Op::Sum, ScanKind::Inclusive, axis, 1u << 20, kLw, 1.0},
      {90, "m", DataType::Int32, Op::Sum, ScanKind::Inclusive, axis, 1u << 28, kLt, 1.0},
      {90, "m", DataType::Int64, Op::Sum, ScanKind::Inclusive, axis, 1u << 26, kLt, 1.0},
      {90, "m", DataType::Int32, Op::Max, ScanKind::Inclusive, axis, 1u << 26, kLt, 1.0}};
  const DispatchTable t(90, "m", {}, "", BuiltinTable{rows, 4});
  auto problem = [&](DataType type, Op op) {
    ProblemName p = ProblemName::of(type, op, ScanKind::Inclusive, Heads::Axis);
    EXPECT_TRUE(p.set_problem_text(axis));
    return p;
  };
  const auto far = t.resolve(problem(DataType::Float32, Op::Sum), 1u << 27);
  EXPECT_EQ(far.policy.key(), kLt);
  EXPECT_NE(far.source.find("int32 sum inclusive " + std::string(axis)), std::string::npos)
      << far.source;
  EXPECT_EQ(t.resolve(problem(DataType::Float32, Op::Sum), 1u << 22).policy.key(), kLw);
  // Not twins: another size (int64), another operator (max).
  const BuiltinEntry others[] = {rows[0], rows[2], rows[3]};
  const DispatchTable u(90, "m", {}, "", BuiltinTable{others, 3});
  EXPECT_EQ(u.resolve(problem(DataType::Float32, Op::Sum), 1u << 26).policy.key(), kLw);
}

// Two built-in tables of one architecture: a GPU model with a table of its own is served
// by its rows even where the other model's sit nearer in size; a problem only the other
// table holds, and a third model, take the architecture's rows.
TEST(BuiltinTable, ThisGpuModelsRowsComeFirst) {
  const char* h200 = "NVIDIA H200 (sm_90, 132 SMs)";
  const char* h100 = "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)";
  const BuiltinEntry rows[] = {
      {90, h100, DataType::Int32, Op::Sum, ScanKind::Inclusive, "", 1u << 20, kLw, 1.0},
      {90, h200, DataType::Int32, Op::Sum, ScanKind::Inclusive, "", 1u << 28, kLt, 1.0},
      {90, h100, DataType::Int32, Op::Max, ScanKind::Inclusive, "", 1u << 20, kLw, 1.0}};
  const auto sum = ProblemName::of(DataType::Int32, Op::Sum, ScanKind::Inclusive);
  const auto max = ProblemName::of(DataType::Int32, Op::Max, ScanKind::Inclusive);
  const DispatchTable on_h200(90, h200, {}, "", BuiltinTable{rows, 3});
  const auto own = on_h200.resolve(sum, 1u << 20);
  EXPECT_EQ(own.match, Match::BuiltIn);
  EXPECT_EQ(own.policy.key(), kLt);
  EXPECT_NE(own.source.find("built-in table: NVIDIA H200"), std::string::npos) << own.source;
  // Its own nearest tuned problem (sum) before another model's exact one: what a GPU
  // model was tuned with at an element size says more than another model's problem.
  const auto borrowed = on_h200.resolve(max, 1u << 20);
  EXPECT_EQ(borrowed.policy.key(), kLt);
  EXPECT_NE(borrowed.source.find("(the nearest tuned problem)"), std::string::npos);
  const DispatchTable on_h100(90, h100, {}, "", BuiltinTable{rows, 3});
  EXPECT_EQ(on_h100.resolve(sum, 1u << 28).policy.key(), kLw);
  const DispatchTable on_other(90, "NVIDIA GH200 (sm_90, 132 SMs)", {}, "", BuiltinTable{rows, 3});
  EXPECT_EQ(on_other.resolve(sum, 1u << 28).policy.key(), kLt); // nearest of both tables
  EXPECT_EQ(on_other.resolve(sum, 1u << 20).policy.key(), kLw);
}

// A bucket with two winners: sizes up to lower_upto take the lower one, from a tuning
// database and from a built-in table alike; routes keep both, and the reduction of a
// split bucket follows the side its size falls on. A lower winner that cannot run is
// dropped, and its bucket keeps the upper one.
TEST(DispatchSplit, SizesUpToTheSplitRunTheLowerWinner) {
  constexpr const char* kWave = "lookback_warp.tpb128.ipt20.vec1.warp_scans";
  constexpr const char* kPipe = "lookback_pipelined.tpb256.ipt10.vec1.warp_scans";
  TempDir dir;
  {
    auto tdb = db::TuningDb::open(dir / "tuning.db");
    const auto h = tdb.add_device(db::testing::h100());
    db::BestEntry e = best(h, "int64", "sum", "inclusive", 3u << 20, kPipe);
    e.lower_policy = kWave;
    e.lower_upto = 2621440;
    tdb.set_best(e);
    e = best(h, "int32", "sum", "inclusive", 3u << 20, kPipe);
    e.lower_policy = kLw; // vec4 of int32 runs; of int64 it would not
    e.lower_upto = 2621440;
    tdb.set_best(e);
    e.type = "int64";
    e.op = "max";
    tdb.set_best(e); // the same split for int64: its lower winner is dropped
  }
  const auto entries = read_tuned_entries(dir / "tuning.db");
  ASSERT_TRUE(entries);
  const std::string model = db::testing::h100().model();
  const auto table = std::make_shared<const DispatchTable>(90, model, *entries, "t.db");
  const ProblemName i64 = ProblemName::of(DataType::Int64, Op::Sum, ScanKind::Inclusive);
  EXPECT_EQ(table->resolve(i64, 2621440).policy.key(), kWave);
  EXPECT_EQ(table->resolve(i64, 2621441).policy.key(), kPipe);
  EXPECT_NE(table->resolve(i64, 2621440).source.find("lower winner"), std::string::npos);
  const ProblemName max64 = ProblemName::of(DataType::Int64, Op::Max, ScanKind::Inclusive);
  EXPECT_EQ(table->resolve(max64, 2359296).policy.key(), kPipe);
  EXPECT_EQ(table->resolve(max64, 2359296).split_upto, 0u);

  RouteCache routes(table);
  const auto key = [&](DataType t, std::uint64_t n, bool reverse = false) {
    return routes.route(t, Op::Sum, ScanKind::Inclusive, n, Heads::None, reverse).plan.policy;
  };
  EXPECT_EQ(key(DataType::Int64, 2359296).key(), kWave);
  EXPECT_EQ(key(DataType::Int64, 3145728).key(), kPipe);
  EXPECT_EQ(key(DataType::Int32, 2097153).key(), kLw);
  EXPECT_EQ(key(DataType::Int32, 2621441).key(), kPipe);
  EXPECT_TRUE(key(DataType::Int64, 2359296, true).reverse);
  EXPECT_EQ(key(DataType::Int64, 2359296, true).block_threads, 128); // the lower shape, reversed
  Policy reduce =
      routes.route(DataType::Int64, Op::Sum, ScanKind::Inclusive, 2359296, Heads::Reduce)
          .plan.policy;
  EXPECT_EQ(reduce, reduce_policy_of(Policy::parse(kWave)));

  // A built-in table's row splits its bucket the same way.
  const BuiltinEntry rows[] = {{90, "m", DataType::Int64, Op::Sum, ScanKind::Inclusive, "",
                                3u << 20, kPipe, 1.0, kWave, 2621440}};
  const DispatchTable builtin(90, "m", {}, "", BuiltinTable{rows, 1});
  EXPECT_EQ(builtin.resolve(i64, 2621440).policy.key(), kWave);
  EXPECT_EQ(builtin.resolve(i64, 2621441).policy.key(), kPipe);
}

// A reproducible scanner's routes: float problems get their policy's reproducible form
// where the algorithm has one; integer problems (exact in any order) keep theirs.
TEST(RouteCache, ReproducibleRoutesOnlyForFloatTypes) {
  auto table = std::make_shared<const DispatchTable>(90, "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)",
                                                     std::vector<TunedEntry>{}, "");
  RouteCache plain(table), repro(table, true);
  for (std::uint64_t n : {std::uint64_t{1} << 12, std::uint64_t{1} << 20, std::uint64_t{1} << 28}) {
    const Choice& f = repro.route(DataType::Float32, Op::Sum, ScanKind::Inclusive, n).plan;
    const Choice& f0 = plain.route(DataType::Float32, Op::Sum, ScanKind::Inclusive, n).plan;
    EXPECT_EQ(f.policy.reproducible, f0.policy.uses_tile_status()) << f.policy.key();
    Policy back = f.policy;
    back.reproducible = false;
    EXPECT_EQ(back, f0.policy);
    EXPECT_FALSE(f.policy.invalid_reason(DataType::Float32)) << f.policy.key();
    EXPECT_FALSE(
        repro.route(DataType::Int64, Op::Sum, ScanKind::Inclusive, n).plan.policy.reproducible);
  }
}

} // namespace
} // namespace scantune::detail
