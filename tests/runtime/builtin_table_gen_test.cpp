// Generation of the built-in tuning table from JSON exports (runtime/builtin/).
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

TEST(BuiltinTableGen, EmitsSortedEntriesWithTheirSource) {
  const char* m = "GPU \"A\" (sm_90, 1 SMs)";
  const std::string src = generate_table_source(
      {{"a.json",
        doc({entry(1, m, "int64", 1u << 20, "lookback_warp.tpb256.ipt12.vec2.warp_scans"),
             entry(1, m, "int32", 1u << 10, "single_block.tpb64.ipt16.vec4.warp_scans")})}});
  EXPECT_NE(src.find("from a.json"), std::string::npos);
  const auto i32 = src.find(
      R"x({90, "GPU \"A\" (sm_90, 1 SMs)", DataType::Int32, Op::Sum, ScanKind::Inclusive, 1024ull, "single_block.tpb64.ipt16.vec4.warp_scans", 1234.6},)x");
  const auto i64 = src.find("DataType::Int64, Op::Sum, ScanKind::Inclusive, 1048576ull");
  ASSERT_NE(i32, std::string::npos) << src;
  ASSERT_NE(i64, std::string::npos) << src;
  EXPECT_LT(i32, i64);
  EXPECT_NE(src.find("static const BuiltinTable table{kEntries, 2};"), std::string::npos);
}

TEST(BuiltinTableGen, CustomOperatorsAreLeftOutAndNothingIsAnEmptyTable) {
  json e = entry(1, "m", "float64", 64, "lookback_warp.tpb256.ipt12.vec2.warp_scans");
  e["op"] = "absmax";
  e["op_hash"] = "3f9a0c77d1e2b4a5";
  const std::string src = generate_table_source({{"c.json", doc({e})}});
  EXPECT_NE(src.find("table{nullptr, 0}"), std::string::npos) << src;
  EXPECT_NE(generate_table_source({}).find("table{nullptr, 0}"), std::string::npos);
}

TEST(BuiltinTableGen, BadEntriesNameTheDocumentEntryAndProblem) {
  const char* lw4 = "lookback_warp.tpb256.ipt12.vec4.warp_scans";
  EXPECT_ERROR_NAMING(generate_table_source({{"x.json", json::object()}}), "x.json",
                      "not a scantune export");
  EXPECT_ERROR_NAMING(generate_table_source({{"x.json", doc({entry(1, "m", "int128", 8, lw4)})}}),
                      "x.json: best[0]", "int128");
  EXPECT_ERROR_NAMING(
      generate_table_source({{"x.json", doc({entry(1, "m", "int32", 8, "lookback_warp.tpb256")})}}),
      "x.json: best[0]");
  EXPECT_ERROR_NAMING(
      generate_table_source(
          {{"x.json",
            doc({entry(1, "m", "int32", 8, "lookback_warp.tpb256.ipt12.vec4.warp_scans.xpose")})}}),
      "not canonical");
  EXPECT_ERROR_NAMING(generate_table_source({{"x.json", doc({entry(1, "m", "int64", 8, lw4)})}}),
                      "cannot run on int64");
  EXPECT_ERROR_NAMING(generate_table_source({{"x.json", doc({entry(7, "m", "int32", 8, lw4)})}}),
                      "device the document lacks");
  json missing = entry(1, "m", "int32", 8, lw4);
  missing.erase("policy");
  EXPECT_ERROR_NAMING(generate_table_source({{"x.json", doc({missing})}}), "x.json: best[0]",
                      "policy");
  EXPECT_ERROR_NAMING(generate_table_source({{"x.json", doc({entry(1, "m", "int32", 1000, lw4),
                                                             entry(1, "m", "int32", 1024, lw4)})}}),
                      "two entries", "2^10");
}

} // namespace
} // namespace scantune::builtin
