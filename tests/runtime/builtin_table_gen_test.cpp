// The built-in tuning table: from exports to the committed format to C++ (runtime/builtin/).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/expect_error.hpp"
#include "table_gen.hpp"

namespace scantune::builtin {
namespace {

using nlohmann::json;

json device(int id, int major, const char* model) {
  return {{"id", id}, {"cc_major", major}, {"cc_minor", 0}, {"model", model}};
}
json entry(int dev, const char* model, const char* type, std::uint64_t size, const char* policy) {
  return {{"device", dev}, {"model", model},   {"type", type},
          {"op", "sum"},   {"op_hash", ""},    {"kind", "inclusive"},
          {"size", size},  {"policy", policy}, {"ns", 1234.56}};
}
json doc(std::vector<json> best) {
  return {{"devices", {device(1, 9, "GPU \"A\" (sm_90, 1 SMs)")}}, {"best", best}};
}

// An export converted to the committed format, as scantune_builtin_gen --table does.
json table(const json& export_doc, const char* command = "gen") {
  return json::parse(table_json(merge({read_input({"e.json", export_doc})}), command));
}

TEST(BuiltinTableGen, EmitsSortedEntriesWithTheirSource) {
  const char* m = "GPU \"A\" (sm_90, 1 SMs)";
  const json t =
      table(doc({entry(1, m, "int64", 1u << 20, "lookback_warp.tpb256.ipt12.vec2.warp_scans"),
                 entry(1, m, "int32", 1u << 10, "single_block.tpb64.ipt16.vec4.warp_scans")}));
  const std::string src = generate_table_source({{"a.json", t}});
  EXPECT_NE(src.find("from a.json"), std::string::npos);
  const auto i32 = src.find(
      R"x({90, "GPU \"A\" (sm_90, 1 SMs)", DataType::Int32, Op::Sum, ScanKind::Inclusive, "", 1024ull, "single_block.tpb64.ipt16.vec4.warp_scans", 1234.6, "", 0ull},)x");
  const auto i64 = src.find("DataType::Int64, Op::Sum, ScanKind::Inclusive, \"\", 1048576ull");
  ASSERT_NE(i32, std::string::npos) << src;
  ASSERT_NE(i64, std::string::npos) << src;
  EXPECT_LT(i32, i64);
  EXPECT_NE(src.find("static const BuiltinTable table{kEntries, 2};"), std::string::npos);
}

TEST(BuiltinTableGen, TheTableShowsWhereEachRowComesFrom) {
  const char* m = "GPU \"A\" (sm_90, 1 SMs)";
  json d = doc({entry(1, m, "int32", 1u << 10, "single_block.tpb64.ipt16.vec4.warp_scans")});
  d["devices"][0].update({{"name", "GPU A"}, {"sm_count", 1}, {"driver_version", 13000}});
  d["runs"] = {{{"id", 4},
                {"uid", "0123456789abcdef"},
                {"device", 1},
                {"command_line", "tune"},
                {"started_at", "2026-01-01T00:00:00Z"}}};
  d["best"][0].update({{"run", 4}, {"gbs", 3.3333}, {"updated_at", "2026-01-02T00:00:00Z"}});
  auto baseline = [](const char* name, const char* op, const char* kind, double ns) {
    return json{{"baseline", name}, {"device", 1},   {"type", "int32"},
                {"op", op},         {"op_hash", ""}, {"kind", kind},
                {"size", 1024},     {"ns", ns},      {"measured_at", "2026-01-01T00:00:00Z"}};
  };
  d["baselines"] = {baseline("cub", "sum", "inclusive", 2469.12),
                    baseline("memcpy", "", "", 617.28)};
  const json t = table(d, "scantune_builtin_gen --table t.json e.json");
  EXPECT_EQ(t["generated_by"], "scantune_builtin_gen --table t.json e.json");
  EXPECT_EQ(t["gpu"], json({{"model", m}, {"name", "GPU A"}, {"arch", 90}, {"sm_count", 1}}));
  EXPECT_EQ(t["measured"]["from"], "2026-01-02T00:00:00Z");
  EXPECT_EQ(t["sources"][0]["file"], "e.json");
  EXPECT_EQ(t["runs"][0]["command_line"], "tune");
  EXPECT_EQ(t["runs"][0]["driver_version"], 13000);
  const json& e = t["entries"][0];
  EXPECT_EQ(e["bucket"], "2^10");
  EXPECT_EQ(e["ns"], 1234.6);
  EXPECT_EQ(e["gbs"], 3.33);
  EXPECT_EQ(e["x_cub"], 2.0);
  EXPECT_EQ(e["of_memcpy"], 0.5);
  EXPECT_EQ(e["run"], "01234567");
  // One line per row: a re-tune's diff shows the rows that changed.
  const std::string text = table_json(parse_table({"t.json", t}), "gen");
  EXPECT_NE(text.find("\n    {\"type\":\"int32\",\"op\":\"sum\""), std::string::npos) << text;
  EXPECT_EQ(text, table_json(merge({read_input({"e.json", d})}), "gen")); // reads back as written
}

TEST(BuiltinTableGen, ALaterInputWinsItsBucket) {
  const char* lw = "lookback_warp.tpb256.ipt12.vec2.warp_scans";
  const char* sb = "single_block.tpb64.ipt16.vec4.warp_scans";
  const Table old = parse_table({"t.json", table(doc({entry(1, "m", "int32", 1024, lw),
                                                      entry(1, "m", "int32", 1u << 20, lw)}))});
  const Table merged =
      merge({old, read_input({"n.json", doc({entry(1, "m", "int32", 1000, sb)})})});
  ASSERT_EQ(merged.rows.size(), 2u);
  EXPECT_EQ(merged.rows[0].size, 1000u);
  EXPECT_EQ(merged.rows[0].policy, sb);
  EXPECT_EQ(merged.rows[1].policy, lw);
  EXPECT_EQ(merged.sources.size(), 2u);
  json other = doc({entry(1, "m", "int32", 1024, lw)});
  other["devices"][0]["cc_major"] = 8;
  EXPECT_ERROR_NAMING(merge({old, read_input({"o.json", other})}), "one GPU model per table");
}

// The earlier table's rows on both sides of a replaced one stay once each.
TEST(BuiltinTableGen, ALaterInputReplacesAMiddleBucketOnce) {
  const char* lw = "lookback_warp.tpb256.ipt12.vec2.warp_scans";
  const char* sb = "single_block.tpb64.ipt16.vec4.warp_scans";
  std::vector<json> rows;
  for (int k = 10; k <= 20; k += 2)
    rows.push_back(entry(1, "m", "int32", std::uint64_t{1} << k, lw));
  const Table old = parse_table({"t.json", table(doc(rows))});
  const Table merged =
      merge({old, read_input({"n.json", doc({entry(1, "m", "int32", 1u << 16, sb)})})});
  ASSERT_EQ(merged.rows.size(), 6u);
  for (std::size_t i = 0; i < merged.rows.size(); ++i) {
    EXPECT_EQ(merged.rows[i].size, std::uint64_t{1} << (10 + 2 * i));
    EXPECT_EQ(merged.rows[i].policy, i == 3 ? sb : lw);
  }
}

// Segmented and converting problems are rows of their own beside the flat scan of their
// type, operator, kind and bucket, each with its own CUB baseline.
TEST(BuiltinTableGen, ProblemsOtherThanFlatScansRoundTrip) {
  const char* lw = "lookback_warp.tpb256.ipt12.vec4.warp_scans";
  const char* m = "GPU \"A\" (sm_90, 1 SMs)";
  json rows = entry(1, m, "int32", 1024, lw), converting = rows;
  rows["problem"] = "rows";
  converting["problem"] = "@uint8:int32";
  json d = doc({converting, rows, entry(1, m, "int32", 1024, lw)});
  auto cub = [](const char* problem, double ns) {
    json b = {{"baseline", "cub"}, {"device", 1},   {"type", "int32"},
              {"op", "sum"},       {"op_hash", ""}, {"kind", "inclusive"},
              {"size", 1024},      {"ns", ns},      {"measured_at", "2026-01-01T00:00:00Z"}};
    if (*problem) b["problem"] = problem;
    return b;
  };
  d["baselines"] = {cub("", 1234.56), cub("rows", 2469.12)};
  const json t = table(d);
  ASSERT_EQ(t["entries"].size(), 3u);
  EXPECT_FALSE(t["entries"][0].contains("problem")); // flat rows read as before
  EXPECT_EQ(t["entries"][1]["problem"], "@uint8:int32");
  EXPECT_EQ(t["entries"][2]["problem"], "rows");
  EXPECT_EQ(t["entries"][2]["x_cub"], 2.0);
  EXPECT_EQ(t["entries"][0]["x_cub"], 1.0);
  EXPECT_FALSE(t["entries"][1].contains("x_cub"));
  // Reads back as written.
  EXPECT_EQ(table_json(parse_table({"t.json", t}), "gen"),
            table_json(merge({read_input({"e.json", d})}), "gen"));
  const std::string src = generate_table_source({{"t.json", t}});
  for (const char* problem : {"\"\"", "\"rows\"", "\"@uint8:int32\""})
    EXPECT_NE(src.find(std::string("ScanKind::Inclusive, ") + problem + ", 1024ull"),
              std::string::npos)
        << src;
  // A policy is checked against its problem: blelloch has no segmented kernel.
  json bad = t;
  bad["entries"][2]["policy"] = "reduce_then_scan.tpb256.ipt8.vec4.blelloch";
  EXPECT_ERROR_NAMING(generate_table_source({{"x.json", bad}}), "x.json: entries[2]",
                      "int32 sum inclusive rows");
  bad = t;
  bad["entries"][2]["problem"] = "columns";
  EXPECT_ERROR_NAMING(generate_table_source({{"x.json", bad}}), "unknown problem 'columns'");
  bad = t;
  bad["entries"].push_back(t["entries"][2]);
  EXPECT_ERROR_NAMING(generate_table_source({{"x.json", bad}}), "two entries",
                      "int32 sum inclusive rows bucket 2^10");
}

// A bucket with two winners: the lower one and its largest size travel from the export
// through the table to the generated entry; each is checked like a policy.
TEST(BuiltinTableGen, ABucketsSecondWinnerRoundTrips) {
  const char* lw = "lookback_warp.tpb256.ipt12.vec2.warp_scans";
  const char* wave = "lookback_warp.tpb128.ipt20.vec1.warp_scans";
  json split = entry(1, "m", "int64", 3u << 20, lw);
  split["lower_policy"] = wave;
  split["lower_upto"] = 2621440; // 2.5 x 2^20, in (2^21, 3 x 2^20]
  const json d = doc({split, entry(1, "m", "int64", 1u << 20, lw)});
  const json t = table(d);
  ASSERT_EQ(t["entries"].size(), 2u);
  EXPECT_FALSE(t["entries"][0].contains("lower_policy")); // one winner reads as before
  EXPECT_EQ(t["entries"][1]["lower_policy"], wave);
  EXPECT_EQ(t["entries"][1]["lower_upto"], 2621440);
  EXPECT_EQ(table_json(parse_table({"t.json", t}), "gen"),
            table_json(merge({read_input({"e.json", d})}), "gen"));
  const std::string src = generate_table_source({{"t.json", t}});
  EXPECT_NE(src.find(fmt::format("\"{}\", 1234.6, \"{}\", 2621440ull}}", lw, wave)),
            std::string::npos)
      << src;
  json bad = t;
  bad["entries"][1]["lower_upto"] = 3u << 20; // not below the row's size
  EXPECT_ERROR_NAMING(generate_table_source({{"x.json", bad}}), "x.json: entries[1]",
                      "a lower winner needs");
  bad["entries"][1]["lower_upto"] = 1u << 21; // the bucket below
  EXPECT_ERROR_NAMING(generate_table_source({{"x.json", bad}}), "a lower winner needs");
  bad = t;
  bad["entries"][1]["lower_policy"] = "lookback_warp.tpb128";
  EXPECT_ERROR_NAMING(generate_table_source({{"x.json", bad}}), "x.json: entries[1]");
  bad = t;
  bad["entries"][1].erase("lower_policy");
  EXPECT_ERROR_NAMING(generate_table_source({{"x.json", bad}}), "a lower winner needs");
}

// Compaction and sort rows: a compaction's policy is a scan policy its kernel takes, a
// sort's a radix sort policy whose tile fits shared memory with its key and value sizes.
TEST(BuiltinTableGen, CompactionAndSortRows) {
  const char* m = "GPU \"A\" (sm_90, 1 SMs)";
  json select = entry(1, m, "int32", 1u << 20, "lookback_warp.tpb128.ipt16.vec4.warp_scans");
  select["problem"] = "select_flags";
  json keys = entry(1, m, "uint32", 1u << 20, "radix.tpb256.ipt16.rb8");
  keys["problem"] = "sort_keys";
  json pairs = entry(1, m, "uint64", 1u << 20, "radix.tpb256.ipt12.rb8");
  pairs["problem"] = "sort_pairs8";
  const json t = table(doc({select, keys, pairs}));
  ASSERT_EQ(t["entries"].size(), 3u);
  const std::string src = generate_table_source({{"t.json", t}});
  EXPECT_NE(
      src.find(
          R"(DataType::UInt32, Op::Sum, ScanKind::Inclusive, "sort_keys", 1048576ull, "radix.tpb256.ipt16.rb8")"),
      std::string::npos)
      << src;
  EXPECT_NE(src.find(R"("select_flags", 1048576ull)"), std::string::npos) << src;
  json bad = pairs;
  bad["policy"] = "radix.tpb1024.ipt32.rb8";
  EXPECT_ERROR_NAMING(table_of_export({"x.json", doc({bad})}), "x.json: best[0]",
                      "uint64 sum inclusive sort_pairs8", "shared memory");
  bad["policy"] = "radix.tpb256.ipt012.rb8";
  EXPECT_ERROR_NAMING(table_of_export({"x.json", doc({bad})}), "not canonical");
  bad["policy"] = "lookback_warp.tpb128.ipt16.vec4.warp_scans";
  EXPECT_ERROR_NAMING(table_of_export({"x.json", doc({bad})}), "sort policy key");
  bad = select;
  bad["policy"] = "lookback_warp.tpb128.ipt16.vec4.warp_scans.direct";
  EXPECT_ERROR_NAMING(table_of_export({"x.json", doc({bad})}), "staged tile I/O");
}

TEST(BuiltinTableGen, CustomOperatorsAreLeftOutAndNothingIsAnEmptyTable) {
  json e = entry(1, "m", "float64", 64, "lookback_warp.tpb256.ipt12.vec2.warp_scans");
  e["op"] = "absmax";
  e["op_hash"] = "3f9a0c77d1e2b4a5";
  EXPECT_TRUE(table_of_export({"c.json", doc({e})}).rows.empty());
  EXPECT_NE(generate_table_source({}).find("table{nullptr, 0}"), std::string::npos);
}

TEST(BuiltinTableGen, BadTablesNameTheDocumentRowAndProblem) {
  const char* lw = "lookback_warp.tpb256.ipt12.vec2.warp_scans";
  const json t = table(doc({entry(1, "m", "int32", 1024, lw)}));
  EXPECT_ERROR_NAMING(generate_table_source({{"x.json", doc({})}}), "x.json",
                      "not a built-in table");
  json bad = t;
  bad["entries"][0]["bucket"] = "2^11";
  EXPECT_ERROR_NAMING(generate_table_source({{"x.json", bad}}), "x.json: entries[0]",
                      "bucket 2^11 does not hold size 1024");
  bad = t;
  bad["entries"][0]["policy"] = "lookback_warp.tpb256";
  EXPECT_ERROR_NAMING(generate_table_source({{"x.json", bad}}), "x.json: entries[0]");
  bad = t;
  bad["entries"].push_back(t["entries"][0]);
  EXPECT_ERROR_NAMING(generate_table_source({{"x.json", bad}}), "x.json", "two entries", "2^10");
  EXPECT_ERROR_NAMING(generate_table_source({{"x.json", t}, {"y.json", t}}), "two tables of m",
                      "2^10");
}

TEST(BuiltinTableGen, BadExportsNameTheDocumentEntryAndProblem) {
  const char* lw4 = "lookback_warp.tpb256.ipt12.vec4.warp_scans";
  EXPECT_ERROR_NAMING(table_of_export({"x.json", json::object()}), "x.json",
                      "not a scantune export");
  EXPECT_ERROR_NAMING(table_of_export({"x.json", doc({entry(1, "m", "int128", 8, lw4)})}),
                      "x.json: best[0]", "int128");
  EXPECT_ERROR_NAMING(
      table_of_export({"x.json", doc({entry(1, "m", "int32", 8, "lookback_warp.tpb256")})}),
      "x.json: best[0]");
  EXPECT_ERROR_NAMING(
      table_of_export({"x.json", doc({entry(1, "m", "int32", 8,
                                            "lookback_warp.tpb256.ipt12.vec4.warp_scans.xpose")})}),
      "not canonical");
  EXPECT_ERROR_NAMING(table_of_export({"x.json", doc({entry(1, "m", "int64", 8, lw4)})}),
                      "cannot run int64 sum inclusive");
  EXPECT_ERROR_NAMING(table_of_export({"x.json", doc({entry(7, "m", "int32", 8, lw4)})}),
                      "device the document lacks");
  json missing = entry(1, "m", "int32", 8, lw4);
  missing.erase("policy");
  EXPECT_ERROR_NAMING(table_of_export({"x.json", doc({missing})}), "x.json: best[0]", "policy");
  EXPECT_ERROR_NAMING(table_of_export({"x.json", doc({entry(1, "m", "int32", 1000, lw4),
                                                      entry(1, "m", "int32", 1024, lw4)})}),
                      "two entries", "2^10");
}

} // namespace
} // namespace scantune::builtin
