// The SVG chart (well-formed XML by xmllint when installed, and its structure),
// the bench report's JSON and markdown, tables, comparisons and bench's
// representative policies: the host-side pieces of the inspection commands.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "algorithms.hpp"
#include "common/expect_error.hpp"
#include "tuner/report/plots.hpp"
#include "tuner/report/svg_plot.hpp"
#include "tuner/report/text_table.hpp"
#include "tuner/run/bench_run.hpp"

namespace scantune::tuner {
namespace {

namespace fs = std::filesystem;

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1))
    ++n;
  return n;
}

BenchReport sample_report() {
  BenchReport r;
  r.device = "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)";
  r.type = "int32";
  r.op = "sum";
  r.kind = "inclusive";
  r.sizes = {1u << 10, 1u << 20, 1u << 30};
  r.series = {{"tuned",
               "",
               {{4000.0, "single_block.tpb1024.ipt4.vec4.warp_scans", ""},
                {3100.0, "lookback_warp.tpb256.ipt12.vec4.warp_scans", ""},
                {2.9e6, "lookback_warp.tpb256.ipt12.vec4.warp_scans", ""}}},
              {"cub", "", {{5000.0, "", ""}, {3300.0, "", ""}, {3.0e6, "", ""}}},
              {"memcpy", "", {{3000.0, "", ""}, {std::nullopt, "", "failed"}, {2.7e6, "", ""}}},
              {"sequential", "sequential", {{9e5, "", ""}, {std::nullopt, "", "skipped"}, {}}}};
  return r;
}

/// xmllint --noout on the document; false (with its output) when it is not
/// well-formed. Skipped (true) when xmllint is not installed.
::testing::AssertionResult well_formed(const std::string& svg) {
  if (std::system("command -v xmllint >/dev/null 2>&1") != 0)
    return ::testing::AssertionSuccess() << "xmllint missing";
  const fs::path file =
      fs::temp_directory_path() / ("scantune-svg-" + std::to_string(::getpid()) + ".svg");
  std::ofstream(file, std::ios::binary) << svg;
  const int rc = std::system(("xmllint --noout '" + file.string() + "' 2>/dev/null").c_str());
  fs::remove(file);
  if (rc == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "xmllint rejects:\n" << svg;
}

TEST(SvgPlot, BenchChartIsWellFormedWithThreeSeriesAxesAndLegend) {
  const std::string svg = render_svg(plot_of(sample_report()));
  EXPECT_TRUE(well_formed(svg));
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("viewBox=\"0 0 960 540\""), std::string::npos);
  EXPECT_NE(svg.find("xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_EQ(count(svg, "<g class=\"series\""), 3u);
  for (const char* name : {"tuned", "CUB", "memcpy"})
    EXPECT_NE(svg.find(std::string("data-name=\"") + name + "\""), std::string::npos) << name;
  EXPECT_EQ(count(svg, "<g class=\"legend\">"), 3u);
  EXPECT_EQ(count(svg, "<polyline"), 3u);
  EXPECT_EQ(count(svg, "<circle"), 8u); // memcpy's failed point is left out
  for (int k = 10; k <= 30; k += 2)     // 21 octaves: every 2nd tick labelled
    EXPECT_NE(svg.find(">2^" + std::to_string(k) + "<"), std::string::npos) << k;
  EXPECT_NE(svg.find("GB/s (bytes read + written per second)"), std::string::npos);
  EXPECT_NE(svg.find("elements (log2 scale)"), std::string::npos);
  EXPECT_NE(svg.find("int32 sum inclusive: scantune bench"), std::string::npos);
  EXPECT_NE(svg.find("NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)"), std::string::npos);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("href"), std::string::npos);       // no external resources
  EXPECT_EQ(svg, render_svg(plot_of(sample_report()))); // deterministic
}

TEST(SvgPlot, YTicksAreNiceNumbersCoveringTheData) {
  PlotData d;
  d.series = {{"a", "", false, {{10, 120}, {12, 2950}}}};
  const std::string svg = render_svg(d);
  for (const char* tick : {">0<", ">500<", ">1000<", ">3000<"})
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  EXPECT_EQ(svg.find(">3500<"), std::string::npos);
  for (const char* tick : {">2^10<", ">2^11<", ">2^12<"})
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
}

TEST(SvgPlot, EscapesTextAndDrawsAnEmptyChart) {
  PlotData d;
  d.title = "op <a & b> \"q\"";
  d.series = {{"x<y", "", false, {}}};
  const std::string svg = render_svg(d);
  EXPECT_TRUE(well_formed(svg));
  EXPECT_NE(svg.find("op &lt;a &amp; b&gt; &quot;q&quot;"), std::string::npos);
  EXPECT_NE(svg.find("no data"), std::string::npos);
  EXPECT_EQ(svg.find("<polyline"), std::string::npos);
}

TEST(BenchReport, JsonRoundTripAndMarkdownTable) {
  const BenchReport r = sample_report();
  const nlohmann::json j = bench_to_json(r);
  EXPECT_EQ(j["series"][0]["points"][1]["gbs"].get<double>(), 2.0 * 4 * (1 << 20) / 3100.0);
  EXPECT_TRUE(j["series"][2]["points"][1]["ns"].is_null());
  EXPECT_EQ(bench_to_json(bench_from_json(j)), j);

  const std::string md = bench_markdown(r);
  EXPECT_NE(md.find("| n    | tuned policy"), std::string::npos) << md;
  EXPECT_NE(md.find("| sequential |"), std::string::npos) << md;
  // 2^20: tuned 2706.0 GB/s, no memcpy (so no %), 1.06 x CUB, sequential skipped.
  EXPECT_TRUE(std::regex_search(
      md, std::regex(R"(\| 2\^20 \| lookback_warp\S+ +\| +2706\.0 \| +- \| +1\.06 \|.* - \|)")))
      << md;
  EXPECT_TRUE(std::regex_search(
      md, std::regex(R"(\| 2\^10 \| single_block\S+ +\| +2\.0 \| +75% \| +1\.25 \|.* 0\.009 \|)")))
      << md;
  EXPECT_NE(md.find("- sequential: sequential"), std::string::npos) << md;
  EXPECT_NE(md.find("- sequential at 2^20: skipped"), std::string::npos) << md;
}

// A struct-valued operator's report names its struct ("struct16"): each element is
// the struct read and written.
TEST(BenchReport, StructValuesCountTheirBytes) {
  BenchReport r = sample_report();
  r.type = "struct16";
  EXPECT_EQ(r.bytes_per_element("tuned"), 32u);
  EXPECT_EQ(r.bytes_per_element("memcpy"), 32u);
  EXPECT_EQ(bench_to_json(bench_from_json(bench_to_json(r))), bench_to_json(r));
  r.type = "struct20";
  EXPECT_ERROR_NAMING(r.bytes_per_element("tuned"), "struct20");
}

TEST(BenchReport, BadDocumentsNameTheProblem) {
  nlohmann::json j = bench_to_json(sample_report());
  j["series"][1]["points"].erase(0);
  EXPECT_ERROR_NAMING(bench_from_json(j), "series[1].points");
  EXPECT_ERROR_NAMING(bench_from_json(nlohmann::json{{"format", "x"}}), "format");
  EXPECT_ERROR_NAMING(bench_from_json(nlohmann::json::array()), "0 reports");
}

// Several types: a JSON array (plot reads a one-element one) and one CSV line per
// type, size and series.
TEST(BenchReport, SeveralReportsAsJsonArrayAndCsv) {
  BenchReport other = sample_report();
  other.type = "float64";
  const std::vector<BenchReport> both = {sample_report(), other};
  const nlohmann::json j = bench_to_json(both);
  ASSERT_TRUE(j.is_array());
  EXPECT_EQ(j[1]["type"], "float64");
  EXPECT_EQ(bench_to_json(std::vector<BenchReport>{other}), bench_to_json(other));
  EXPECT_EQ(bench_from_json(nlohmann::json::array({j[1]})).type, "float64");
  EXPECT_ERROR_NAMING(bench_from_json(j), "2 reports");

  const std::string csv = bench_csv(both);
  EXPECT_EQ(csv.rfind("device,type,op,kind,segments,n,series,policy,ns,gbs,note\n", 0), 0u) << csv;
  std::size_t lines = 0, points = 0;
  for (const BenchSeries& s : other.series)
    points += s.points.size();
  for (char c : csv)
    lines += c == '\n';
  EXPECT_EQ(lines, 1 + 2 * points) << csv;
  EXPECT_NE(csv.find(",float64,sum,inclusive,,1048576,tuned,lookback_warp"), std::string::npos)
      << csv;
  EXPECT_NE(csv.find(",2706.00,"), std::string::npos) << csv;
}

TEST(TextTable, MarkdownPadsAndAlignsCsvQuotes) {
  TextTable t{{{"name", false}, {"GB/s", true}}, {}};
  t.add({"a", "1.5"});
  t.add({"b,\"c\"", "1234.5"});
  EXPECT_EQ(t.markdown(), "| name  |   GB/s |\n"
                          "|-------|-------:|\n"
                          "| a     |    1.5 |\n"
                          "| b,\"c\" | 1234.5 |\n");
  EXPECT_EQ(t.csv(), "name,GB/s\na,1.5\n\"b,\"\"c\"\"\",1234.5\n");
  EXPECT_THROW(t.add({"only one"}), std::invalid_argument);
}

TEST(CompareRows, MatchesByProblemAndBucket) {
  db::BestEntry a1, a2, b1, b3;
  a1.type = a2.type = b1.type = b3.type = "int32";
  a1.size_bucket = b1.size_bucket = 10;
  a2.size_bucket = 20;
  b3.size_bucket = 28;
  a1.policy = "p";
  b1.policy = "q";
  a1.gbs = 3;
  b1.gbs = 2;
  const auto rows = compare_rows({a2, a1}, {b3, b1});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_TRUE(rows[0].differs());
  EXPECT_DOUBLE_EQ(*rows[0].ratio(), 1.5);
  EXPECT_TRUE(rows[1].a && !rows[1].b);
  EXPECT_FALSE(rows[1].differs());
  EXPECT_FALSE(rows[1].ratio());
  EXPECT_TRUE(!rows[2].a && rows[2].b);

  // Split buckets: the same two winners split elsewhere are the same winners.
  b1.policy = a1.policy;
  a1.lower_policy = b1.lower_policy = "r";
  a1.lower_upto = 900;
  b1.lower_upto = 950;
  EXPECT_FALSE(compare_rows({a1}, {b1})[0].differs());
  b1.lower_policy = "s";
  EXPECT_TRUE(compare_rows({a1}, {b1})[0].differs());
}

TEST(BenchAlgorithms, RepresentativePoliciesAreValidForEveryType) {
  const auto names = parse_bench_algorithms("all");
  // Every described algorithm but single_block, and the four block scans.
  EXPECT_EQ(names.size(), detail::algorithms().size() - 1 + 4);
  for (DataType t : {DataType::Int32, DataType::UInt32, DataType::Int64, DataType::UInt64,
                     DataType::Float32, DataType::Float64}) {
    const auto ps = representative_policies(t, names);
    ASSERT_EQ(ps.size(), names.size());
    for (const auto& [name, p] : ps) {
      EXPECT_FALSE(p.invalid_reason(t)) << name << " " << p.key() << ": " << *p.invalid_reason(t);
      EXPECT_NE(p.key().find(name), std::string::npos) << name << " " << p.key();
    }
  }
  EXPECT_EQ(parse_bench_algorithms("chained,blelloch,chained"),
            (std::vector<std::string>{"chained", "blelloch"}));
  EXPECT_TRUE(parse_bench_algorithms("").empty());
  EXPECT_ERROR_NAMING(parse_bench_algorithms("lookback_warp,fast"), "'fast'");
}

TEST(BenchAlgorithms, SlowVariantsArePredictedFromTheirLastTime) {
  const Policy seq = Policy::sequential();
  EXPECT_DOUBLE_EQ(predicted_call_ns(seq, DataType::Int32, 1 << 20, 1 << 18, 1e6), 4e6);
  EXPECT_GT(predicted_call_ns(seq, DataType::Int32, 1 << 20, 0, 0), kBenchMaxCallNs);
  EXPECT_LT(predicted_call_ns(seq, DataType::Int32, 1 << 10, 0, 0), kBenchMaxCallNs);
  Policy single = Policy::parse("single_block.tpb1024.ipt8.vec4.blelloch");
  EXPECT_LT(predicted_call_ns(single, DataType::Int32, 1 << 24, 0, 0), kBenchMaxCallNs);
  EXPECT_GT(predicted_call_ns(single, DataType::Int32, 1 << 30, 0, 0), kBenchMaxCallNs);
  EXPECT_EQ(predicted_call_ns(Policy{}, DataType::Int32, 1ull << 30, 0, 0), 0);
  const Policy chained = Policy::parse("chained.tpb256.ipt12.vec4.warp_scans");
  EXPECT_DOUBLE_EQ(predicted_call_ns(chained, DataType::Int32, 1 << 30, 1 << 28, 20e6), 80e6);
}

} // namespace
} // namespace scantune::tuner
