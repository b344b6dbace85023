// bench --select's results as JSON: one document per type and pattern, in the shape of
// a scan bench's (what scripts/ab_summary.py reads). Host code only.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tuner/run/select_bench.hpp"

namespace scantune::tuner {
namespace {

SelectBenchRow row(DataType t, const char* pattern, std::uint64_t n, double ns) {
  return {t, pattern, n, n / 2, ns, 2 * ns, ns / 2, "lookback_bulk.tpb512.ipt16.vec4.st4"};
}

TEST(SelectBenchJson, ADocumentPerTypeAndPatternWithTunedCubAndMemcpy) {
  const std::vector<SelectBenchRow> rows{row(DataType::Int32, "flags:0.5", 1u << 20, 1000),
                                         row(DataType::Int32, "flags:0.5", 1u << 24, 9000),
                                         row(DataType::Int32, "flags:0.05", 1u << 20, 800),
                                         row(DataType::Int64, "flags:0.5", 1u << 20, 1500)};
  const nlohmann::json docs = select_bench_to_json(rows);
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_EQ(docs[0]["type"], "int32");
  EXPECT_EQ(docs[0]["select"], "flags:0.5");
  EXPECT_EQ(docs[0]["sizes"], nlohmann::json({1u << 20, 1u << 24}));
  EXPECT_EQ(docs[1]["select"], "flags:0.05");
  EXPECT_EQ(docs[2]["type"], "int64");
  const nlohmann::json& series = docs[0]["series"];
  ASSERT_EQ(series.size(), 3u);
  EXPECT_EQ(series[0]["name"], "tuned");
  EXPECT_EQ(series[1]["name"], "cub");
  EXPECT_EQ(series[2]["name"], "memcpy");
  const nlohmann::json& tuned = series[0]["points"][1];
  EXPECT_EQ(tuned["size"], 1u << 24);
  EXPECT_EQ(tuned["ns"], 9000.0);
  EXPECT_EQ(tuned["policy"], rows[1].policy);
  EXPECT_EQ(tuned["selected"], (1u << 24) / 2);
  // n int32 values and n flags read, half of them written: 4n + n + 2n bytes.
  EXPECT_DOUBLE_EQ(select_bytes_moved(rows[1]), 7.0 * (1u << 24));
  EXPECT_DOUBLE_EQ(tuned["gbs"].get<double>(), 7.0 * (1u << 24) / 9000);
  EXPECT_EQ(series[1]["points"][1]["ns"], 18000.0);
  EXPECT_EQ(series[1]["points"][1]["policy"], "");
  EXPECT_EQ(series[2]["points"][1]["ns"], 4500.0);
  EXPECT_TRUE(select_bench_to_json({}).empty());
}

} // namespace
} // namespace scantune::tuner
