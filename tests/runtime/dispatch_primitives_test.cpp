// Compaction and radix sort as tuned problems: their problem texts, the sort policy's
// field description, their winners' round trip through a tuning database, and the
// dispatcher's fallback chain for them (Exact, NearestSize, SameArch, BuiltIn, then
// today's heuristic policies).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "algorithms.hpp"
#include "cache/tuning_db_test_util.hpp"
#include "default_policies.hpp"
#include "dispatch.hpp"
#include "sort_policy.hpp"

namespace scantune::detail {
namespace {

using db::testing::TempDir;

constexpr const char* kSort = "radix.tpb256.ipt16.rb8";
constexpr const char* kSortOther = "radix.tpb512.ipt8.rb7";
constexpr const char* kSelect = "lookback_warp.tpb128.ipt16.vec4.warp_scans";

TEST(PrimitiveProblems, SortProblemTextsRoundTrip) {
  for (std::size_t v : kSortValueBytes) {
    const ProblemName p = ProblemName::sort(DataType::Float64, v);
    ProblemName back = ProblemName::of(DataType::Float64, Op::Sum, ScanKind::Inclusive);
    ASSERT_TRUE(back.set_problem_text(p.problem_text()));
    EXPECT_EQ(back.sorts, std::optional<std::size_t>(v));
    EXPECT_EQ(back.label(), p.label());
  }
  EXPECT_EQ(ProblemName::sort(DataType::UInt32, 0).label(), "uint32 sort_keys");
  EXPECT_EQ(ProblemName::sort(DataType::Int64, 8).problem_text(), "sort_pairs8");
  EXPECT_FALSE(parse_sort_problem("sort_pairs2"));
  EXPECT_FALSE(parse_sort_problem("sort"));
  // Compactions keep their Heads text; a sort text clears it.
  ProblemName q = ProblemName::of(DataType::Int32, Op::Sum, ScanKind::Inclusive);
  ASSERT_TRUE(q.set_problem_text("select_flags"));
  EXPECT_EQ(q.heads, Heads::SelectFlags);
  ASSERT_TRUE(q.set_problem_text("sort_pairs4"));
  EXPECT_EQ(q.heads, Heads::None);
  EXPECT_FALSE(q.set_problem_text("sort_everything"));
}

// The fields' description gives the key, its parsing and the range checks.
TEST(PrimitiveProblems, SortFieldsDescribeThePolicy) {
  const auto& fields = sort_fields();
  ASSERT_EQ(fields.size(), 7u); // tpb, ipt, rb, then the optional mb, ec, sl and lg
  SortPolicy p;
  std::string key = "radix";
  for (const SortField& f : fields) {
    if (!f.optional) key += "." + std::string(f.prefix) + std::to_string(p.*f.member);
    EXPECT_FALSE(f.search.empty()) << f.name;
    for (int v : f.search) {
      SortPolicy q;
      q.single_launch = f.member == &SortPolicy::look_back_groups; // groups need it
      q.*f.member = v;
      EXPECT_FALSE(q.invalid_reason(4, 0)) << f.name << " " << v;
    }
    SortPolicy out;
    out.*f.member = f.max + 1;
    const auto why = out.invalid_reason(4, 0);
    ASSERT_TRUE(why) << f.name;
    EXPECT_NE(why->find(std::string(f.name)), std::string::npos) << *why;
  }
  EXPECT_EQ(p.key(), key);
  EXPECT_EQ(SortPolicy::parse(key), p);
}

db::BestEntry best(std::int64_t dev, const char* type, const char* problem, std::uint64_t size,
                   const char* policy) {
  db::BestEntry e = db::testing::make_best(dev, std::nullopt, type, size, 1000.0, policy);
  e.problem = problem;
  return e;
}

class PrimitiveDispatch : public ::testing::Test {
protected:
  void SetUp() override {
    auto tdb = db::TuningDb::open(dir_ / "tuning.db");
    const auto h = tdb.add_device(db::testing::h100());
    db::DeviceInfo other = db::testing::h100("GPU-33333333-0000-0000-0000-000000000000");
    other.name = "NVIDIA H200";
    const auto h2 = tdb.add_device(other);
    tdb.set_best(best(h, "uint32", "sort_keys", 1u << 20, kSort));
    tdb.set_best(best(h2, "uint32", "sort_pairs4", 1u << 24, kSortOther));
    // 1024 x 32 items of 8 bytes: more shared memory than a block has, dropped.
    tdb.set_best(best(h, "uint64", "sort_pairs8", 1u << 20, "radix.tpb1024.ipt32.rb8"));
    tdb.set_best(best(h, "int32", "select_flags", 1u << 20, kSelect));
    auto entries = read_tuned_entries(dir_ / "tuning.db");
    ASSERT_TRUE(entries.has_value());
    entries_ = *entries;
  }
  DispatchTable table(const BuiltinTable& builtin = {nullptr, 0}) const {
    const db::DeviceInfo d = db::testing::h100();
    return DispatchTable(d.cc_major * 10 + d.cc_minor, d.model(), entries_,
                         (dir_ / "tuning.db").string(), builtin);
  }

  TempDir dir_;
  std::vector<TunedEntry> entries_;
};

TEST_F(PrimitiveDispatch, WinnersRoundTripThroughTheDatabase) {
  ASSERT_EQ(entries_.size(), 4u);
  std::size_t sorts = 0;
  for (const TunedEntry& e : entries_) {
    if (!e.problem.sorts) continue;
    ++sorts;
    EXPECT_EQ(e.policy_key(), SortPolicy::parse(e.policy_key()).key());
  }
  EXPECT_EQ(sorts, 3u);
  EXPECT_EQ(table().own_entries() + table().same_arch_entries(), 3u); // the oversized tile dropped
}

TEST_F(PrimitiveDispatch, SortsFollowTheFallbackChain) {
  const SortPolicy sort = SortPolicy::parse(kSort), other = SortPolicy::parse(kSortOther);
  const SortPolicy builtin_policy{384, 16, 7};
  const std::string builtin_key = builtin_policy.key();
  const BuiltinEntry rows[] = {{90, "m", DataType::Int32, Op::Sum, ScanKind::Inclusive, "sort_keys",
                                1u << 28, builtin_key.c_str(), 1.0}};
  const DispatchTable t = table({rows, 1});
  auto exact = t.resolve_sort(DataType::UInt32, 0, 1u << 20);
  EXPECT_EQ(exact.match, Match::Exact);
  EXPECT_EQ(exact.policy, sort);
  auto nearest = t.resolve_sort(DataType::UInt32, 0, 1u << 26);
  EXPECT_EQ(nearest.match, Match::NearestSize);
  EXPECT_EQ(nearest.policy, sort);
  auto same_arch = t.resolve_sort(DataType::UInt32, 4, 1u << 20);
  EXPECT_EQ(same_arch.match, Match::SameArch);
  EXPECT_EQ(same_arch.policy, other);
  // int32 keys: nothing in the database; the built-in row of int32 keys.
  auto builtin = t.resolve_sort(DataType::Int32, 0, 1u << 20);
  EXPECT_EQ(builtin.match, Match::BuiltIn);
  EXPECT_EQ(builtin.policy, builtin_policy);
  EXPECT_NE(builtin.source.find("built-in table: m, int32 sort_keys, tuned at n = 2^28"),
            std::string::npos)
      << builtin.source;
  // float32 keys borrow the int32 row (same key size); pairs never borrow keys-only rows.
  EXPECT_NE(t.resolve_sort(DataType::Float32, 0, 1u << 20).source.find("nearest tuned problem"),
            std::string::npos);
  auto heuristic = t.resolve_sort(DataType::Int32, 8, 1u << 20);
  EXPECT_EQ(heuristic.policy, default_sort_policy(DataType::Int32, 8));
  EXPECT_NE(heuristic.source.find("heuristic"), std::string::npos);
  // The dropped 8-byte pairs winner: the heuristic too.
  EXPECT_EQ(t.resolve_sort(DataType::UInt64, 8, 1u << 20).policy,
            default_sort_policy(DataType::UInt64, 8));
  EXPECT_EQ(exact.plan().policy, kSort);
}

const char* const kH200 = "NVIDIA H200 (sm_90, 132 SMs)";

// `p` at n on the H200's built-in table: a row of the H200's own, tuned at n itself.
Choice expect_own_h200_row(const DispatchTable& h200, const ProblemName& p, std::uint64_t n,
                           std::string_view what) {
  const Choice c = h200.resolve(p, n);
  EXPECT_EQ(c.tuned_size, n) << what << ": " << c.source;
  EXPECT_NE(c.source.find("built-in table: NVIDIA H200"), std::string::npos)
      << what << ": " << c.source;
  return c;
}

// The shipped tables: the H200 sorts on its own rows where they were tuned at every size
// (a model's own rows serve every size) and on the H100's for the sorts it lacks.
TEST(PrimitiveDispatchBuiltin, TheH200SortsOnItsOwnRowsAtEverySize) {
  const DispatchTable h200(90, kH200, {}, "");
  for (DataType key : {DataType::UInt32, DataType::UInt64})
    for (std::size_t value_bytes : {0, 4, 8})
      for (unsigned log2n = 16; log2n <= 28; log2n += 2) {
        const SortChoice c = h200.resolve_sort(key, value_bytes, std::uint64_t{1} << log2n);
        EXPECT_EQ(c.tuned_size, std::uint64_t{1} << log2n) << c.source;
        EXPECT_NE(c.source.find("built-in table: NVIDIA H200"), std::string::npos) << c.source;
      }
  // Signed and float keys of a width take its unsigned key's rows.
  for (DataType key : {DataType::Int64, DataType::Float64})
    EXPECT_NE(h200.resolve_sort(key, 4, 1u << 20).source.find("built-in table: NVIDIA H200"),
              std::string::npos);
}

// The shipped tables: the H200 compacts int32 and int64 on its own rows at every size
// (select and partition by flags, unique); it partitions by flags on the bulk roles
// (1.2-1.3x the lookback_warp rows it borrowed from the H100 before).
TEST(PrimitiveDispatchBuiltin, TheH200CompactsOnItsOwnRows) {
  const DispatchTable h200(90, kH200, {}, "");
  for (Heads h : {Heads::SelectFlags, Heads::Unique, Heads::PartitionFlags})
    for (DataType t : {DataType::Int32, DataType::Int64})
      for (unsigned log2n = 16; log2n <= 28; log2n += 2) {
        const auto p = ProblemName::of(t, Op::Sum, ScanKind::Inclusive, h);
        const Choice c = expect_own_h200_row(h200, p, std::uint64_t{1} << log2n, to_string(h));
        if (h == Heads::PartitionFlags) {
          EXPECT_EQ(c.policy.algorithm, Algorithm::LookbackBulk) << c.policy.key();
        }
      }
}

// The shipped tables: narrow compactions run the H200's int8 and float16 rows (tuned at
// 2^20, 2^24 and 2^28), the other types of a width borrowing them, never the bulk roles
// (which compact 4- and 8-byte items); other GPUs' untuned narrow compactions run the
// default shape of their width.
TEST(PrimitiveDispatchBuiltin, NarrowCompactionsTakeTheH200RowsOfTheirWidth) {
  const DispatchTable h200(90, kH200, {}, "");
  for (Heads h : {Heads::SelectFlags, Heads::Unique, Heads::PartitionFlags})
    for (DataType t : {DataType::Int8, DataType::Float16}) {
      for (unsigned log2n : {20u, 24u, 28u})
        expect_own_h200_row(h200, ProblemName::of(t, Op::Sum, ScanKind::Inclusive, h),
                            std::uint64_t{1} << log2n, to_string(h));
      const DataType twin = t == DataType::Int8 ? DataType::UInt8 : DataType::BFloat16;
      const auto p = ProblemName::of(twin, Op::Sum, ScanKind::Inclusive, h);
      const Choice c = h200.resolve(p, 1u << 24);
      EXPECT_EQ(c.policy,
                h200.resolve(ProblemName::of(t, Op::Sum, ScanKind::Inclusive, h), 1u << 24).policy)
          << c.source;
      EXPECT_NE(c.policy.algorithm, Algorithm::LookbackBulk) << c.source;
      EXPECT_FALSE(problem_invalid_reason(c.policy, h, twin)) << c.policy.key();
    }
  const DispatchTable a100(80, "NVIDIA A100 (sm_80, 108 SMs)", {}, "");
  const Choice c = a100.resolve(
      ProblemName::of(DataType::UInt16, Op::Sum, ScanKind::Inclusive, Heads::Unique), 1u << 24);
  EXPECT_EQ(c.policy, default_select_policy(DataType::UInt16)) << c.source;
  EXPECT_EQ(c.policy.key(), "lookback_warp.tpb256.ipt32.vec8.warp_scans");
}

// The shipped tables: 8-byte segmented scans run the H200's float64 rows (int64 as its
// nearest tuned problem) on the H200 and, lacking rows of its own, on the H100.
TEST(PrimitiveDispatchBuiltin, EightByteSegmentedScansTakeTheH200Rows) {
  const DispatchTable h200(90, kH200, {}, "");
  const DispatchTable h100(90, "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)", {}, "");
  for (Heads h : {Heads::Flags, Heads::Keys32, Heads::Keys64})
    for (DataType t : {DataType::Float64, DataType::Int64})
      for (unsigned log2n = 16; log2n <= 28; log2n += 2) {
        const auto p = ProblemName::of(t, Op::Sum, ScanKind::Inclusive, h);
        const Choice c = expect_own_h200_row(h200, p, std::uint64_t{1} << log2n, to_string(h));
        EXPECT_EQ(c.match, Match::BuiltIn) << c.source;
        // Each 8-byte type has rows of its own (int64 tuned apart: float64's shapes take
        // more registers for int64).
        const std::string own = std::string(to_string(t)) + " sum inclusive";
        EXPECT_NE(c.source.find(own), std::string::npos) << c.source;
        // The H100's table has none: the same architecture's rows, the H200's.
        const Choice o = h100.resolve(p, std::uint64_t{1} << log2n);
        EXPECT_EQ(o.policy, c.policy) << o.source;
        EXPECT_NE(o.source.find("built-in table: NVIDIA H200"), std::string::npos) << o.source;
      }
}

// Batched rows of every length class take the H200's own rows (2^16-2^28 tuned there),
// 4- and 8-byte types alike.
TEST(PrimitiveDispatchBuiltin, TheH200ScansRowsOfEveryLengthOnItsOwnRows) {
  const DispatchTable h200(90, kH200, {}, "");
  for (DataType t : {DataType::Int32, DataType::Int64, DataType::Float64})
    for (std::uint64_t len : {2, 4, 8, 16, 256, 4096, 1 << 20})
      for (unsigned log2n = 16; log2n <= 28; log2n += 4) {
        const auto p =
            ProblemName::of(t, Op::Sum, ScanKind::Inclusive, Heads::Periodic, length_class(len));
        expect_own_h200_row(h200, p, std::uint64_t{1} << log2n,
                            std::string(to_string(t)) + " rows of " + std::to_string(len));
      }
}

// The shipped tables: axis scans (`cumsum(x, dim)` along an outer dimension) take the
// H200's own rows of their type in every class tuned there: int64 and float64 in every
// class, and columns of at most 16 rows over more than 64 columns of every type; short
// columns from 2^16, longer ones from 2^20 (2^24 where a slice holds 2^21 or more). The
// H100, lacking 8-byte axis rows, takes the H200's.
TEST(PrimitiveDispatchBuiltin, TheH200ScansAxesOnItsOwnRows) {
  const DispatchTable h200(90, kH200, {}, "");
  const DispatchTable h100(90, "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)", {}, "");
  struct Shape {
    std::uint64_t len, inner;
    unsigned first_log2n;
  };
  auto check = [&](DataType t, Shape s) {
    for (unsigned log2n = s.first_log2n; log2n <= 28; log2n += 4) {
      ProblemName p = ProblemName::of(t, Op::Sum, ScanKind::Inclusive, Heads::Axis);
      p.shape = axis_class(s.len, s.inner);
      const std::string what = std::string(to_string(t)) + " axis " + std::to_string(s.len) + "x" +
                               std::to_string(s.inner);
      const Choice c = expect_own_h200_row(h200, p, std::uint64_t{1} << log2n, what);
      EXPECT_NE(c.source.find(std::string(to_string(t)) + " sum inclusive axis."),
                std::string::npos)
          << what << ": " << c.source;
      if (t == DataType::Int64 || t == DataType::Float64) {
        EXPECT_EQ(h100.resolve(p, std::uint64_t{1} << log2n).policy, c.policy) << what;
      }
    }
  };
  for (DataType t : {DataType::Int32, DataType::Float32, DataType::Int64, DataType::Float64})
    for (std::uint64_t len : {2, 4, 8, 16})
      check(t, Shape{len, 1024, 16});
  for (DataType t : {DataType::Int64, DataType::Float64})
    for (Shape s : {Shape{2, 32, 16}, Shape{16, 64, 16}, Shape{64, 1024, 20}, Shape{1024, 16, 20},
                    Shape{8192, 64, 20}, Shape{8192, 1024, 24}})
      check(t, s);
}

// The shipped tables: the fourteen conversions tuned on the H200 run its own rows at every
// size; a conversion no table holds takes its accumulator's shape, not another
// conversion's rows.
TEST(PrimitiveDispatchBuiltin, TheH200ConvertsOnItsOwnRowsWhereTuned) {
  const DispatchTable h200(90, kH200, {}, "");
  auto converting = [&](const char* types) {
    const ScanTypes t = parse_scan_types(types);
    ProblemName p = ProblemName::of(t.acc, Op::Sum, ScanKind::Inclusive);
    p.converts = t;
    return p;
  };
  for (const char* types :
       {"float16:float32:float16", "bfloat16:float32:bfloat16", "int32:int64", "int8:int64",
        "uint8:int64", "uint8:int32", "float16:float32", "int8:int32:int8", "int16:int32:int16",
        "uint8:uint32:uint8", "uint16:uint32:uint16", "bfloat16:float32", "int16:int64",
        "uint16:uint32"})
    for (unsigned log2n = 10; log2n <= 30; log2n += 2)
      expect_own_h200_row(h200, converting(types), std::uint64_t{1} << log2n, types);
  // A conversion no table tuned takes the H200's shape for its accumulator.
  const Choice other = h200.resolve(converting("uint16:int64"), 1u << 24);
  EXPECT_NE(other.source.find("built-in table: NVIDIA H200"), std::string::npos) << other.source;
  EXPECT_NE(other.source.find("(its shape, for uint16:int64)"), std::string::npos) << other.source;
}

// A compaction's problem kind and back.
TEST(PrimitiveProblems, CompactionKindsRoundTrip) {
  for (Compaction c : {Compaction::SelectFlagged, Compaction::SelectIf, Compaction::Unique,
                       Compaction::PartitionFlagged, Compaction::PartitionIf})
    EXPECT_EQ(compaction_of(compaction_heads(c)), c);
}

TEST_F(PrimitiveDispatch, CompactionsFollowTheFallbackChain) {
  const Policy select_builtin = Policy::parse("lookback_warp.tpb512.ipt8.vec4.warp_scans.wxpose");
  const std::string key = select_builtin.key();
  const BuiltinEntry rows[] = {{90, "m", DataType::Int32, Op::Sum, ScanKind::Inclusive, "unique",
                                1u << 20, key.c_str(), 1.0}};
  const DispatchTable t = table({rows, 1});
  auto problem = [](Heads h) {
    return ProblemName::of(DataType::Int32, Op::Sum, ScanKind::Inclusive, h);
  };
  auto exact = t.resolve(problem(Heads::SelectFlags), 1u << 20);
  EXPECT_EQ(exact.match, Match::Exact);
  EXPECT_EQ(exact.policy.key(), kSelect);
  EXPECT_EQ(t.resolve(problem(Heads::SelectFlags), 1u << 12).match, Match::NearestSize);
  auto builtin = t.resolve(problem(Heads::Unique), 1u << 16);
  EXPECT_EQ(builtin.match, Match::BuiltIn);
  EXPECT_EQ(builtin.policy, select_builtin);
  auto heuristic = t.resolve(problem(Heads::PartitionFlags), 1u << 20);
  EXPECT_EQ(heuristic.policy, default_select_policy(DataType::Int32));
  EXPECT_NE(heuristic.source.find("heuristic"), std::string::npos);
}

} // namespace
} // namespace scantune::detail
