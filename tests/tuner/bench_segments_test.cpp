// `scantune bench --segments`: the SPEC parser, the options it refuses, the head
// flags and keys (the power-law generator), the segmented host reference against
// the tests' segment-wise one, and the report's byte accounting.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/compare.hpp"
#include "common/expect_error.hpp"
#include "common/scan_reference.hpp"
#include "tuner/gpu/reference.hpp"
#include "tuner/gpu/segmentation.hpp"
#include "tuner/run/bench_run.hpp"
#include "tuner/run/tune.hpp"

namespace scantune::tuner {
namespace {

using test::as_values;

using Kind = Segmentation::Kind;

TEST(BenchSegments, ParsesSpecs) {
  EXPECT_TRUE(parse_segments("").flat());
  const Segmentation rows = parse_segments("rows:8");
  EXPECT_EQ(rows.kind, Kind::Rows);
  EXPECT_EQ(rows.length, 8u);
  EXPECT_EQ(rows.spec(), "rows:8");
  const Segmentation flags = parse_segments("flags:2^10");
  EXPECT_EQ(flags.kind, Kind::Flags);
  EXPECT_EQ(flags.length, 1024u);
  EXPECT_EQ(flags.spec(), "flags:1024");
  EXPECT_EQ(parse_segments("flags:random").kind, Kind::RandomFlags);
  EXPECT_EQ(parse_segments("flags:random").spec(), "flags:random");
  EXPECT_EQ(parse_segments("rows:1").length, 1u);
}

// `scantune tune --segments` takes several SPECs; rows are stored per length class
// (the dispatcher's class for calls of that row length), flags unclassed.
TEST(BenchSegments, TuneListsAndStoredProblems) {
  const std::vector<Segmentation> list = parse_segments_list("rows:16,rows:17,flags:random");
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].problem(), "rows.len_le16");
  EXPECT_EQ(list[1].problem(), "rows.len_le256");
  EXPECT_EQ(list[2].problem(), "flags");
  EXPECT_EQ(parse_segments("rows:2^20").problem(), "rows.len_gt4096");
  EXPECT_EQ(parse_segments("flags:8").problem(), "flags");
  EXPECT_EQ(parse_segments("").problem(), "");
  EXPECT_EQ(list[0].shape(), detail::length_class(16));
  for (const char* bad : {"", "rows:8,", ",rows:8", "rows:8,,flags:8"})
    EXPECT_THROW(parse_segments_list(bad), UsageError) << bad;
  EXPECT_ERROR_NAMING(parse_segments_list("rows:8,cols:8"), "'cols:8'");
}

TEST(BenchSegments, BadSpecsAreUsageErrorsNamingThem) {
  for (const char* bad : {"rows", "rows:", "rows:0", "rows:x", "rows:random", "cols:8",
                          "flags:8,16", "flags:2^4:2^8", "flags:-3", ":8"}) {
    EXPECT_THROW(parse_segments(bad), UsageError) << bad;
    EXPECT_ERROR_NAMING(parse_segments(bad), std::string("'") + bad + "'", "rows:L");
  }
}

TEST(BenchSegments, RefusesAlgorithmSeriesCustomOperatorsAndFlatPolicies) {
  BenchOptions o;
  o.segments = parse_segments("rows:8");
  EXPECT_NO_THROW(check_bench_options(o));
  o.algorithms = parse_bench_algorithms("all");
  EXPECT_ERROR_NAMING(check_bench_options(o), "--segments rows:8", "--algorithms");
  o.algorithms.clear();
  o.custom = CustomOp{"absmax", "return fabs(a) > fabs(b) ? a : b;", "0.0"};
  EXPECT_THROW(check_bench_options(o), UsageError);
  o.custom.reset();
  o.policy = Policy::parse("reduce_then_scan.tpb256.ipt8.vec2.warp_scans");
  EXPECT_ERROR_NAMING(check_bench_options(o), "cannot run a segmented scan");
  o.policy = Policy::parse("lookback_warp.tpb256.ipt8.vec2.warp_scans");
  EXPECT_NO_THROW(check_bench_options(o));
  // Flat runs keep every series.
  BenchOptions flat;
  flat.algorithms = parse_bench_algorithms("all");
  EXPECT_NO_THROW(check_bench_options(flat));
}

TEST(BenchSegments, PeriodicHeadsAndKeys) {
  const std::vector<std::uint8_t> heads = head_flags(parse_segments("rows:3"), 1, 8);
  EXPECT_EQ(heads, (std::vector<std::uint8_t>{1, 0, 0, 1, 0, 0, 1, 0}));
  EXPECT_EQ(head_flags(parse_segments("flags:3"), 7, 8), heads); // no seed in periodic flags
  EXPECT_EQ(segment_keys(heads), (std::vector<std::int32_t>{0, 0, 0, 1, 1, 1, 2, 2}));
  EXPECT_THROW(head_flags(Segmentation{}, 1, 8), Error);
}

TEST(BenchSegments, RandomLengthsFollowThePowerLawDeterministically) {
  const Segmentation random = parse_segments("flags:random");
  constexpr std::size_t n = std::size_t{1} << 24;
  const std::vector<std::uint8_t> heads = head_flags(random, 1, n);
  EXPECT_EQ(heads, head_flags(random, 1, n));
  EXPECT_NE(heads, head_flags(random, 2, n));
  ASSERT_EQ(heads[0], 1);
  std::vector<std::uint64_t> lengths;
  std::size_t last = 0;
  for (std::size_t i = 1; i <= n; ++i)
    if (i == n || heads[i]) {
      lengths.push_back(i - last);
      last = i;
    }
  // Every length but the last (cut off at n) is one the generator drew.
  std::size_t ones = 0, short_ones = 0, long_ones = 0;
  for (std::size_t k = 0; k + 1 < lengths.size(); ++k) {
    EXPECT_EQ(lengths[k], random_segment_length(1, k));
    ones += lengths[k] == 1;
    short_ones += lengths[k] < 1024;
    long_ones += lengths[k] >= (1u << 16);
  }
  EXPECT_LE(lengths.back(), random_segment_length(1, lengths.size() - 1));
  // log2(length) uniform in [0, 20): 5% ones, half below 2^10, a fifth at 2^16 or more.
  const double count = static_cast<double>(lengths.size() - 1);
  EXPECT_GT(count, 100);
  EXPECT_NEAR(ones / count, 0.05, 0.04);
  EXPECT_NEAR(short_ones / count, 0.5, 0.12);
  EXPECT_NEAR(long_ones / count, 0.2, 0.1);
  for (std::uint64_t k = 0; k < 100000; ++k) {
    const std::uint64_t len = random_segment_length(3, k);
    ASSERT_GE(len, 1u);
    ASSERT_LT(len, std::uint64_t{1} << kRandomSegmentBits);
  }
}

// The chunked parallel reference (chunks begin at heads) against the tests'
// segment-wise one, at sizes that make several chunks.
template <class T>
void expect_segmented_reference(Op op, ScanKind kind, const std::vector<std::uint8_t>& heads) {
  const std::size_t n = heads.size();
  const ValueSet set = value_set_for(data_type_of<T>(), op, false);
  const std::uint64_t init_b = init_bits(data_type_of<T>(), op, false);
  T init;
  std::memcpy(&init, &init_b, sizeof(T));
  std::vector<T> in(n);
  for (std::size_t i = 0; i < n; ++i)
    in[i] = input_value<T>(set, 5, i);
  const std::vector<T> got =
      as_values<T>(reference_scan(data_type_of<T>(), op, kind, set, 5, n, init_b, heads.data()));
  const std::vector<T> want = test::reference_segmented_scan(in, heads, op, kind, init);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_TRUE(got == want) << to_string(op) << " " << to_string(kind) << " n = " << n;
}

TEST(BenchSegments, SegmentedReferenceMatchesTheSegmentWiseOne) {
  constexpr std::size_t n = (std::size_t{1} << 22) + 7;
  for (const char* spec : {"flags:random", "rows:1000", "flags:1"}) {
    const std::vector<std::uint8_t> heads = head_flags(parse_segments(spec), 9, n);
    for (ScanKind kind : {ScanKind::Inclusive, ScanKind::Exclusive}) {
      expect_segmented_reference<std::int32_t>(Op::Sum, kind, heads);
      expect_segmented_reference<float>(Op::Max, kind, heads);
    }
  }
  // One segment over everything: the flat scan.
  std::vector<std::uint8_t> one(n, 0);
  one[0] = 1;
  EXPECT_EQ(reference_scan(DataType::Int64, Op::Sum, ScanKind::Inclusive, ValueSet::Walk, 2, n, 0,
                           one.data()),
            reference_scan(DataType::Int64, Op::Sum, ScanKind::Inclusive, ValueSet::Walk, 2, n, 0));
}

TEST(BenchSegments, BandwidthCountsFlagBytesButNotCubKeys) {
  BenchReport r;
  r.type = "int32";
  r.op = "sum";
  r.kind = "inclusive";
  r.sizes = {1000};
  EXPECT_EQ(r.bytes_per_element("tuned"), 8u);
  EXPECT_EQ(r.bytes_per_element("memcpy"), 8u);
  const Segmentation flags = parse_segments("flags:32");
  EXPECT_EQ(flags.extra_bytes_per_element(), 1u);
  EXPECT_EQ(flags.device_bytes_per_element(), 5u); // flags and CUB's keys
  EXPECT_EQ(parse_segments("rows:32").extra_bytes_per_element(), 0u);
  EXPECT_EQ(parse_segments("rows:32").device_bytes_per_element(), 4u);
  r.segments = flags.spec();
  r.extra_bytes_per_element = flags.extra_bytes_per_element();
  EXPECT_EQ(r.bytes_per_element("tuned"), 9u);
  EXPECT_EQ(r.bytes_per_element("cub"), 9u);
  EXPECT_EQ(r.bytes_per_element("memcpy"), 8u);
  EXPECT_DOUBLE_EQ(*r.gbs(0, 100.0, "tuned"), 90.0);
  EXPECT_DOUBLE_EQ(*r.gbs(0, 100.0, "cub"), 90.0);
  EXPECT_DOUBLE_EQ(*r.gbs(0, 100.0, "memcpy"), 80.0);
  EXPECT_EQ(r.problem(), "int32 sum inclusive, segments flags:32");

  // 9 bytes per element in 100 ns against memcpy's 8 in 80 ns: 90% of memcpy.
  r.device = "GPU";
  r.series = {{"tuned", "", {{100.0, "lookback_warp.tpb256.ipt8.vec4.warp_scans", ""}}},
              {"cub", "", {{200.0, "", ""}}},
              {"memcpy", "", {{80.0, "", ""}}}};
  const std::string md = bench_markdown(r);
  EXPECT_EQ(md.rfind("int32 sum inclusive, segments flags:32 on GPU", 0), 0u) << md;
  EXPECT_NE(md.find("90%"), std::string::npos) << md;
  EXPECT_NE(md.find("2.00"), std::string::npos) << md; // x CUB: a ratio of times
  const nlohmann::json j = bench_to_json(r);
  EXPECT_EQ(j["segments"], "flags:32");
  EXPECT_EQ(j["series"][0]["points"][0]["gbs"].get<double>(), 90.0);
  const BenchReport back = bench_from_json(j);
  EXPECT_EQ(back.segments, "flags:32");
  EXPECT_EQ(back.extra_bytes_per_element, 1u);
  EXPECT_NE(bench_csv({r}).find(",inclusive,flags:32,1000,tuned,"), std::string::npos);
}

} // namespace
} // namespace scantune::tuner
