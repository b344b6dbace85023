// `scantune bench --segments`: the SPEC parser, the options it refuses, the head
// flags and keys (the power-law generator), the segmented host reference against
// the tests' segment-wise one, and the report's byte accounting.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms.hpp"
#include "common/compare.hpp"
#include "common/expect_error.hpp"
#include "common/scan_reference.hpp"
#include "default_policies.hpp"
#include "scan_request.hpp"
#include "shape_class.hpp"
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

TEST(BenchSegments, KeysOffsetsAndAxisSpecsRoundTrip) {
  for (const char* spec : {"keys:8", "keys:random", "keys64:8", "keys64:random", "offsets:8",
                           "offsets:random", "offsets64:8", "offsets64:random", "axis:4x128"})
    EXPECT_EQ(parse_segments(spec).spec(), spec);
  EXPECT_EQ(parse_segments("keys:2^10").spec(), "keys:1024");
  EXPECT_EQ(parse_segments("axis:2^3x2^5").spec(), "axis:8x32");
  const Segmentation k = parse_segments("keys64:random");
  EXPECT_EQ(k.kind, Kind::Keys);
  EXPECT_TRUE(k.random_lengths());
  EXPECT_EQ(k.word_bytes, 8);
  EXPECT_EQ(k.heads(), detail::Heads::Keys64);
  EXPECT_EQ(parse_segments("keys:4").heads(), detail::Heads::Keys32);
  EXPECT_EQ(parse_segments("offsets:4").heads(), detail::Heads::Offsets32);
  EXPECT_EQ(parse_segments("offsets64:4").heads(), detail::Heads::Offsets64);
  const Segmentation a = parse_segments("axis:4x128");
  EXPECT_EQ(a.heads(), detail::Heads::Axis);
  EXPECT_EQ(a.length, 4u);
  EXPECT_EQ(a.inner, 128u);
  EXPECT_EQ(a.elements(1000), 512u); // whole 4 x 128 slices
  EXPECT_FALSE(a.runs_at(511, 1));
  EXPECT_TRUE(a.runs_at(512, 1));
}

TEST(BenchSegments, BadKeysOffsetsAndAxisSpecsAreUsageErrors) {
  for (const char* bad :
       {"axis:0x4", "axis:4", "axis:4x", "axis:x4", "axis:4x1", "axis:4x4x4", "axis:random",
        "keys:0", "keys:", "keys32:4", "offsets128:4", "offsets:8,16", "keys64:-1"}) {
    EXPECT_THROW(parse_segments(bad), UsageError) << bad;
    EXPECT_ERROR_NAMING(parse_segments(bad), std::string("'") + bad + "'", "axis:LxC");
  }
  EXPECT_ERROR_NAMING(parse_segments("axis:4x1"), "rows:4");
  EXPECT_ERROR_NAMING(parse_segments("offsets128:4"), "unknown kind 'offsets128'");
}

// The dispatcher's class of a request as an application makes it.
detail::ShapeClass dispatch_class(std::size_t n, Segments segments) {
  ScanRequest r;
  r.n = n;
  r.segments = segments;
  return detail::shape_class_of(r);
}

// Problem texts are what dispatch keys such calls on: shape_class_of of the request.
TEST(BenchSegments, ProblemTextsAreDispatchKeys) {
  static const std::uint32_t words[1] = {};
  const auto text = [](const Segmentation& s, std::size_t n, Segments seg) {
    return detail::classed_problem_text(s.heads(), dispatch_class(n, seg));
  };
  const std::size_t n = std::size_t{1} << 20;
  EXPECT_EQ(parse_segments("keys:300").problem(),
            text(parse_segments("keys:300"), n, Segments::keys_of(words)));
  EXPECT_EQ(parse_segments("keys:300").problem(), "keys32");
  EXPECT_EQ(parse_segments("keys64:random").problem(), "keys64");
  for (const char* spec : {"offsets:4", "offsets:256", "offsets64:300", "offsets:2^20"}) {
    const Segmentation s = parse_segments(spec);
    EXPECT_EQ(s.problem(), text(s, n, Segments::offsets_of(words, (n + s.length - 1) / s.length)))
        << spec;
    EXPECT_EQ(s.shape_at(n, 1), s.shape()) << spec;
  }
  EXPECT_EQ(parse_segments("offsets:256").problem(), "offsets32.len_le256");
  EXPECT_EQ(parse_segments("offsets64:300").problem(), "offsets64.len_le4096");
  // Segments of 3 over 2^20 elements average 2.99..., which dispatch classes len_le2:
  // such sizes are left out of offsets:3 (len_le4), whole multiples of 3 kept.
  const Segmentation three = parse_segments("offsets:3");
  EXPECT_EQ(three.problem(), "offsets32.len_le4");
  EXPECT_FALSE(three.runs_at(n, 1));
  EXPECT_TRUE(three.runs_at(3 * n, 1));
  // Random offsets: the class of their average segment, over many of them.
  const Segmentation random = parse_segments("offsets:random");
  EXPECT_EQ(random.problem(), "offsets32.len_gt4096");
  EXPECT_EQ(random.shape_at(std::uint64_t{1} << 30, 1),
            dispatch_class(std::size_t{1} << 30,
                           Segments::offsets_of(words, segment_count(random, 1, 1ull << 30))));
  EXPECT_EQ(segment_count(random, 1, 1 << 16),
            segment_starts(head_flags(random, 1, 1 << 16)).size());
  // Axis scans: the class of a call of outer x L x C elements.
  for (const auto& [spec, want] : {std::pair{"axis:4x128", "axis.len_le4.inner_gt64"},
                                   std::pair{"axis:1000x2", "axis.len_le4096.inner_le32"},
                                   std::pair{"axis:64x64", "axis.len_le256.inner_le64"}}) {
    const Segmentation s = parse_segments(spec);
    ScanRequest r;
    detail::set_axis(r, 7, s.length, s.inner);
    EXPECT_EQ(s.problem(),
              detail::classed_problem_text(detail::Heads::Axis, detail::shape_class_of(r)))
        << spec;
    EXPECT_EQ(s.problem(), want);
  }
}

// Keys and offsets search the segmented candidates; an axis scan its kernel's shapes,
// starting with dispatch's default for its shape, so a tune never picks worse.
TEST(BenchSegments, CandidatesOfKeysOffsetsAndAxisScans) {
  const auto problem = [](DataType t, const char* spec) {
    return Problem{t, detail::OpSpec::from(Op::Sum), ScanKind::Inclusive, parse_segments(spec)};
  };
  const std::vector<Policy> flags =
      candidates_for(problem(DataType::Int32, "flags:8"), default_space());
  const std::size_t segmented = flags.size();
  const auto bulk = [](const std::vector<Policy>& c) {
    return std::count_if(c.begin(), c.end(),
                         [](const Policy& q) { return q.algorithm == Algorithm::LookbackBulk; });
  };
  EXPECT_GT(bulk(flags), 0); // segmented_bulk_kernel: flags, keys and offsets
  for (const char* spec : {"keys:8", "keys64:random", "offsets:8", "offsets64:random"}) {
    const std::vector<Policy> c = candidates_for(problem(DataType::Int32, spec), default_space());
    EXPECT_EQ(c.size(), segmented) << spec;
    EXPECT_EQ(bulk(c), bulk(flags)) << spec;
  }
  EXPECT_EQ(bulk(candidates_for(problem(DataType::Int32, "rows:8"), default_space())), 0);
  for (DataType t : {DataType::Int32, DataType::Float64})
    for (const char* spec : {"axis:4x128", "axis:1000x2", "axis:64x48"}) {
      const Problem p = problem(t, spec);
      const std::vector<Policy> c = candidates_for(p, default_space());
      ASSERT_FALSE(c.empty()) << spec;
      const Policy def = detail::default_axis_policy(t, {p.segments.length, p.segments.inner});
      EXPECT_EQ(c.front(), def) << spec;
      EXPECT_GT(c.size(), 1u) << spec;
      EXPECT_LT(c.size(), segmented / 4) << spec;
      std::set<std::string> keys;
      for (const Policy& q : c) {
        EXPECT_FALSE(detail::problem_invalid_reason(q, detail::Heads::Axis, t)) << q.key();
        EXPECT_TRUE(keys.insert(q.key()).second) << q.key();
      }
      // Shapes with a tile loop (whole chains a block), each beside its one-tile twin,
      // only where columns outgrow the tile.
      std::size_t loops = 0;
      for (const Policy& q : c)
        if (q.tile_loop) {
          ++loops;
          EXPECT_TRUE(
              detail::axis_loop_chains(q, {p.segments.length, p.segments.inner}, size_of(t)))
              << q.key();
          Policy one_tile = q;
          one_tile.tile_loop = false;
          EXPECT_TRUE(keys.count(one_tile.key())) << q.key();
        }
      if (p.segments.length > 4) {
        EXPECT_GT(loops, 0u) << spec;
      }
    }
}

TEST(BenchSegments, KeysAndOffsetsOfTheSameSegments) {
  const std::vector<std::uint8_t> heads = head_flags(parse_segments("offsets:3"), 1, 8);
  EXPECT_EQ(heads, head_flags(parse_segments("flags:3"), 1, 8));
  EXPECT_EQ(head_flags(parse_segments("keys:random"), 4, 1000),
            head_flags(parse_segments("flags:random"), 4, 1000));
  EXPECT_EQ(segment_starts(heads), (std::vector<std::uint64_t>{0, 3, 6}));
  EXPECT_EQ(segment_keys64(heads), (std::vector<std::uint64_t>{0, 0, 0, 1, 1, 1, 2, 2}));
  EXPECT_EQ(segment_count(parse_segments("offsets:3"), 1, 8), 3u);
  EXPECT_THROW(head_flags(parse_segments("axis:4x4"), 1, 8), Error);
}

// The axis reference against a column-by-column scan of the same inputs.
TEST(BenchSegments, AxisReferenceScansEachColumn) {
  constexpr std::size_t outer = 3, len = 5, inner = 7;
  for (ScanKind kind : {ScanKind::Inclusive, ScanKind::Exclusive}) {
    const std::vector<std::int32_t> got = as_values<std::int32_t>(reference_axis_scan(
        DataType::Int32, Op::Sum, kind, ValueSet::Walk, 4, outer, len, inner, 3));
    ASSERT_EQ(got.size(), outer * len * inner);
    for (std::size_t o = 0; o < outer; ++o)
      for (std::size_t c = 0; c < inner; ++c) {
        std::vector<std::int32_t> column(len);
        for (std::size_t j = 0; j < len; ++j)
          column[j] = input_value<std::int32_t>(ValueSet::Walk, 4, (o * len + j) * inner + c);
        const std::vector<std::int32_t> want = reference_scan(column, Op::Sum, kind, 3);
        for (std::size_t j = 0; j < len; ++j)
          ASSERT_EQ(got[(o * len + j) * inner + c], want[j]) << o << " " << j << " " << c;
      }
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
  EXPECT_EQ(parse_segments("keys:32").extra_bytes_per_element(), 4u);
  EXPECT_EQ(parse_segments("keys64:random").extra_bytes_per_element(), 8u);
  EXPECT_EQ(parse_segments("offsets64:32").extra_bytes_per_element(), 0u);
  EXPECT_EQ(parse_segments("axis:32x32").extra_bytes_per_element(), 0u);
  EXPECT_EQ(parse_segments("axis:32x32").device_bytes_per_element(), 0u);
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
