// The inspection commands run as processes against a database built here with
// the TuningDb API (two devices, runs, measurements, baselines, winners): devices,
// show (text, JSON, CSV, compared with golden files), compare (golden), export ->
// import, plot, usage errors (exit 2), a missing database (exit 1, nothing created)
// and bench without a GPU (exit 77). SCANTUNE_UPDATE_GOLDEN=1 rewrites the goldens.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cache/tuning_db_test_util.hpp"
#include "common/gpu.hpp"
#include "tuner/cli_run.hpp"

namespace {

namespace fs = std::filesystem;
using namespace scantune::db;
using namespace scantune::db::testing;
using scantune::test::run_cli;

const std::string kLookback = "lookback_warp.tpb256.ipt12.vec4.warp_scans";
const std::string kRts = "reduce_then_scan.tpb512.ipt8.vec4.warp_scans";
const std::string kSingle = "single_block.tpb1024.ipt4.vec4.warp_scans";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Compares `got` with tests/tuner/data/golden/<name> byte for byte.
void expect_golden(const std::string& name, const std::string& got) {
  const fs::path file = fs::path(SCANTUNE_TEST_DATA) / "golden" / name;
  if (std::getenv("SCANTUNE_UPDATE_GOLDEN")) std::ofstream(file, std::ios::binary) << got;
  EXPECT_EQ(got, slurp(file)) << "differs from " << file
                              << " (SCANTUNE_UPDATE_GOLDEN=1 rewrites it)";
}

BestEntry best(std::int64_t dev, std::int64_t run, std::string kind, std::uint64_t size, double ns,
               std::string policy) {
  BestEntry e = make_best(dev, run, "int32", size, ns, std::move(policy));
  e.kind = std::move(kind);
  e.gbs = 8.0 * static_cast<double>(size) / ns;
  return e;
}

Baseline baseline(std::int64_t dev, BaselineKind k, std::uint64_t size, double ns) {
  Baseline b;
  b.device_id = dev;
  b.baseline = k;
  b.type = "int32";
  if (k == BaselineKind::Cub) {
    b.op = "sum";
    b.kind = "inclusive";
  }
  b.size = size;
  b.ns = ns;
  b.gbs = 8.0 * static_cast<double>(size) / ns;
  b.measured_at = "2025-03-04T05:00:00Z";
  return b;
}

/// H100: int32 sum inclusive at 2^10, 2^20, 2^24 (baselines at the two larger,
/// duel rounds of the 2^20 winner, two winners at 2^24) and exclusive at 2^20; A100: inclusive at
/// 2^10, 2^20 (another winner) and 2^28.
void build_db(const fs::path& file) {
  TuningDb db = TuningDb::open(file, rw());
  const std::int64_t h = db.add_device(h100());
  const std::int64_t a = db.add_device(a100());
  const std::int64_t rh = db.begin_run(sample_run(h));
  const std::int64_t ra = db.begin_run(sample_run(a));
  for (double ns : {7000.0, 6900.0, 7100.0}) { // three duel rounds; 7000 is their median
    Measurement m = ok_measurement(rh, h, kLookback, ns, 1u << 20);
    m.samples = ns == 7000.0 ? 23 : 11;
    db.add_measurement(m);
  }
  db.add_measurement(ok_measurement(rh, h, kLookback, 52000, 1u << 24));
  db.add_measurement(ok_measurement(rh, h, kSingle, 4100, 1u << 10));
  for (auto [size, memcpy_ns, cub_ns] :
       {std::tuple{1u << 20, 6000.0, 8000.0}, std::tuple{1u << 24, 46000.0, 60000.0}}) {
    db.add_baseline(baseline(h, BaselineKind::Memcpy, size, memcpy_ns));
    db.add_baseline(baseline(h, BaselineKind::Cub, size, cub_ns));
  }
  db.set_best(best(h, rh, "inclusive", 1u << 10, 4100, kSingle));
  db.set_best(best(h, rh, "inclusive", 1u << 20, 7000, kLookback));
  BestEntry split = best(h, rh, "inclusive", 1u << 24, 52000, kLookback);
  split.lower_policy = kRts; // two winners: the lower one up to 14 x 2^20
  split.lower_upto = 14u << 20;
  db.set_best(split);
  db.set_best(best(h, rh, "exclusive", 1u << 20, 7400, kLookback));
  db.set_best(best(a, ra, "inclusive", 1u << 10, 5200, kSingle));
  db.set_best(best(a, ra, "inclusive", 1u << 20, 11000, kRts));
  db.set_best(best(a, ra, "inclusive", 1u << 28, 1400000, kLookback));
  db.end_run(rh, RunStatus::Complete);
  db.end_run(ra, RunStatus::Complete);
}

class CliInspect : public ::testing::Test {
protected:
  void SetUp() override { build_db(dir / "t.db"); }
  /// scantune <args> in the temporary directory (relative paths), stderr dropped.
  scantune::test::CliResult here(const std::string& args) {
    return run_cli(args, "2>/dev/null", "cd " + dir.path().string() + " &&");
  }
  TempDir dir;
};

TEST_F(CliInspect, ShowTextJsonCsvMatchTheGoldenFiles) {
  auto text = here("show --db t.db");
  EXPECT_EQ(text.code, 0) << text.output;
  expect_golden("show.txt", text.output);
  auto json = here("show --db t.db --json");
  EXPECT_EQ(json.code, 0) << json.output;
  expect_golden("show.json", json.output);
  auto csv = here("show --db t.db --csv");
  EXPECT_EQ(csv.code, 0) << csv.output;
  expect_golden("show.csv", csv.output);
}

TEST_F(CliInspect, ShowFilters) {
  auto r = here("show --db t.db --device a100 --kind inclusive");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("## NVIDIA A100-SXM4-40GB (sm_80, 108 SMs): int32 sum inclusive"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("H100"), std::string::npos) << r.output;
  auto none = run_cli("show --db " + (dir / "t.db").string() + " --device V100");
  EXPECT_EQ(none.code, 1) << none.output;
  EXPECT_NE(none.output.find("no tuned entries match"), std::string::npos) << none.output;
}

TEST_F(CliInspect, CompareTwoDevicesOfOneDatabase) {
  auto r = here("compare --db t.db --device H100 --device A100 --kind inclusive");
  EXPECT_EQ(r.code, 0) << r.output;
  expect_golden("compare.txt", r.output);
}

// --duels: the H100's 2^20 winner was re-timed at one size only (no duel) until a
// round times it and a rival at two sizes of the bucket: at 2^20 it runs 1.061x the
// rival's time, at 900000 the rival 1.1x its.
TEST_F(CliInspect, ShowDuels) {
  auto none = here("show --db t.db --duels");
  EXPECT_EQ(none.code, 0) << none.output;
  EXPECT_NE(none.output.find("no duelled buckets"), std::string::npos) << none.output;
  {
    TuningDb db = TuningDb::open(dir / "t.db", rw());
    const std::int64_t h = db.add_device(h100());
    const std::int64_t r = db.begin_run(sample_run(h));
    db.add_measurement(ok_measurement(r, h, kLookback, 6000, 900000));
    db.add_measurement(ok_measurement(r, h, kRts, 6600, 900000));
    db.add_measurement(ok_measurement(r, h, kRts, 6600, 1u << 20));
    db.add_measurement(ok_measurement(r, h, kLookback, 7000, 1u << 20));
  }
  auto r = here("show --db t.db --duels --kind inclusive");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("| 2^20 | 900000, 2^20 |        2 |  1.061 |      1.061 |       1.000 | "
                          "900000      |"),
            std::string::npos)
      << r.output;
  EXPECT_NE(
      r.output.find("1 duelled bucket(s). One winner a bucket: 1 above 3% of the fastest "
                    "duelist at some duel size, 1 above 2% (worst 1.061, int32 sum "
                    "inclusive at 2^20). Two winners a bucket: 0 above 3% (worst 1.000). Stored: 0 "
                    "split, 1 above 3%"),
      std::string::npos)
      << r.output;
}

TEST_F(CliInspect, CompareTwoDatabases) {
  {
    TuningDb db = TuningDb::open(dir / "t.db", rw());
    ExportFilter f;
    f.model = h100().model();
    db.export_file(dir / "h100.json", f);
  }
  ASSERT_EQ(here("import --db h100.db h100.json").code, 0);
  auto r = here("compare h100.db t.db --device H100");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("4 bucket(s) tuned on both sides, 0 with different winners"),
            std::string::npos)
      << r.output;
  auto ambiguous = run_cli("compare " + (dir / "h100.db").string() + " " + (dir / "t.db").string());
  EXPECT_EQ(ambiguous.code, 2) << ambiguous.output;
  EXPECT_NE(ambiguous.output.find("choose one with --device"), std::string::npos)
      << ambiguous.output;
}

TEST_F(CliInspect, DevicesListsTheDatabase) {
  auto r = here("devices --db t.db");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("GPUs here"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("|   1 | NVIDIA H100 80GB HBM3 (sm_90, 132 SMs) | 13.0"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("NVIDIA A100-SXM4-40GB (sm_80, 108 SMs) | 12.4"), std::string::npos)
      << r.output;
  auto missing = here("devices --db missing.db");
  EXPECT_EQ(missing.code, 0) << missing.output;
  EXPECT_NE(missing.output.find("no tuning database at missing.db"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "missing.db"));
}

TEST_F(CliInspect, ExportImportRoundTrip) {
  auto e = here("export --db t.db --out all.json");
  EXPECT_EQ(e.code, 0) << e.output;
  EXPECT_NE(e.output.find("exported 2 device(s), 2 run(s), 5 measurement(s), 4 baseline(s) and "
                          "7 best entries"),
            std::string::npos)
      << e.output;
  auto i = here("import --db copy.db all.json");
  EXPECT_EQ(i.code, 0) << i.output;
  EXPECT_NE(i.output.find("measurements: 5 added, 0 skipped"), std::string::npos) << i.output;
  EXPECT_NE(i.output.find("best entries: 7 added"), std::string::npos) << i.output;
  auto again = here("import --db copy.db all.json");
  EXPECT_NE(again.output.find("measurements: 0 added, 5 skipped"), std::string::npos)
      << again.output;
  ASSERT_EQ(here("export --db copy.db --out copy.json").code, 0);
  EXPECT_EQ(slurp(dir / "all.json"), slurp(dir / "copy.json"));
  EXPECT_EQ(here("show --db copy.db").output, here("show --db t.db").output);

  auto slim = here("export --db t.db --device h100 --no-measurements --out slim.json");
  EXPECT_EQ(slim.code, 0) << slim.output;
  const auto doc = nlohmann::json::parse(slurp(dir / "slim.json"));
  EXPECT_EQ(doc["devices"].size(), 1u);
  EXPECT_EQ(doc["measurements"].size(), 0u);
  EXPECT_EQ(doc["best"].size(), 4u);
}

TEST_F(CliInspect, PlotFromTheDatabase) {
  auto r = here("plot --db t.db --device H100 --kind inclusive --out p.svg");
  EXPECT_EQ(r.code, 0) << r.output;
  const std::string svg = slurp(dir / "p.svg");
  EXPECT_NE(svg.find("int32 sum inclusive"), std::string::npos);
  EXPECT_NE(svg.find("NVIDIA H100 80GB HBM3"), std::string::npos);
  EXPECT_NE(svg.find("data-name=\"tuned\""), std::string::npos);
  auto several = here("plot --db t.db --out p2.svg");
  EXPECT_EQ(several.code, 2);
  EXPECT_FALSE(fs::exists(dir / "p2.svg"));
}

TEST_F(CliInspect, PlotFromABenchReport) {
  std::ofstream(dir / "b.json") << R"J({"format": "scantune-bench", "version": 1,
    "device": "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)", "type": "int32", "op": "sum",
    "kind": "inclusive", "sizes": [1024, 1048576],
    "series": [{"name": "tuned", "policy": "", "points": [{"ns": 4000}, {"ns": 3100}]},
               {"name": "cub", "policy": "", "points": [{"ns": 5000}, {"ns": 3300}]},
               {"name": "memcpy", "policy": "", "points": [{"ns": 3000}, {"ns": null}]}]})J";
  auto r = here("plot --from-bench b.json --out b.svg");
  EXPECT_EQ(r.code, 0) << r.output;
  const std::string svg = slurp(dir / "b.svg");
  EXPECT_NE(svg.find("2^20"), std::string::npos);
  std::ofstream(dir / "bad.json") << R"({"format": "scantune-bench"})";
  EXPECT_EQ(here("plot --from-bench bad.json --out c.svg").code, 1);
}

TEST_F(CliInspect, MissingDatabaseIsAnErrorAndCreatesNothing) {
  for (const char* cmd : {"show --db none.db", "compare --db none.db --device a --device b",
                          "export --db none.db --out x.json", "plot --db none.db --out x.svg"}) {
    auto r = run_cli(cmd, "2>&1", "cd " + dir.path().string() + " &&");
    EXPECT_EQ(r.code, 1) << cmd << ": " << r.output;
    EXPECT_NE(r.output.find("no tuning database at none.db"), std::string::npos)
        << cmd << ": " << r.output;
    EXPECT_FALSE(fs::exists(dir / "none.db")) << cmd;
  }
}

TEST_F(CliInspect, UsageErrorsExitTwoNamingTheProblem) {
  const std::pair<const char*, const char*> cases[] = {
      {"show --db t.db --json --csv", "--json"},
      {"show --db t.db --type int33", "int33"},
      {"show --db t.db --kind both", "both"},
      {"show --db t.db --bogus", "--bogus"},
      {"compare t.db", "two databases"},
      {"compare --db t.db --device a --device b --device c", "more than twice"},
      {"import --db t.db missing.json", "missing.json"},
      {"export --db t.db", "--out"},
      {"plot --db t.db", "--out"},
      {"plot --from-bench b.json --db t.db --out x.svg", "--db"},
      {"bench --type int33", "int33"},
      {"bench --op summ", "summ"},
      {"bench --type float32 --op bit_and", "bit_and"},
      {"bench --sizes 2^10:nope", "2^10:nope"},
      {"bench --algorithms lookback,fast", "lookback"},
      {"bench --device -3", "--device"},
      {"bench --op max --custom-op absmax", "not both"},
      {"bench --custom-op absmin", "absmin"},
      {"bench --types int32,int65", "int65"},
      {"bench --policy lookback_warp.tpb128", "lookback_warp.tpb128"},
      {"bench --types int32,int64 --policy lookback_warp.tpb128.ipt24.vec4.warp_scans", "int64"},
      {"bench --types int32,float32 --plot b.svg", "--plot"},
      {"bench --segments rows:8 --algorithms all", "--algorithms"},
      {"bench --segments cols:8", "'cols:8'"},
      {"bench --segments flags:0", "'flags:0'"},
      {"bench --segments flags:random --type float64 --custom-op absmax", "custom operator"},
      {"bench --segments rows:8 --policy reduce_then_scan.tpb256.ipt8.vec2.warp_scans",
       "cannot run a segmented scan"},
      {"bench --select flags:0.5,bogus:1", "bogus:1"},
      {"bench --top 2", "--regret"},
      {"bench --regret --top -1", "--top -1"},
      {"bench --regret --types int32,float64", "one --type"},
      {"bench --regret --segments rows:8", "--segments"},
      {"bench --regret --algorithms all", "--algorithms"},
      {"bench --regret --csv r.csv", "--csv"},
      {"bench --regret --sizes 2^10:nope", "2^10:nope"},
      {"bench --regret --op max --custom-op absmax", "not both"},
      {"bench --select flags:2", "flags:2"},
      {"bench --select flags:0.5 --segments rows:4", "--segments"},
      {"bench --select clustered:0.5 --types int32,int65", "int65"},
      {"bench --sort keys,bogus", "bogus"},
      {"bench --sort keys,", "--sort : expected keys, pairs, pairs8 or indices"},
      {"show --duels --csv", "--duels"},
      {"bench --select flags:0.5,", "--select"},
      {"bench --sort keys --segments rows:4", "--segments"},
      {"bench --sort pairs --select flags:0.5", "--sort"},
      {"bench --sort keys --types int32,int65", "int65"},
      {"bench --regret --sort keys", "--sort"},
      {"bench --key-bits 20", "give --sort"},
      {"bench --sort keys --types uint32,float32 --key-bits 20", "not float32"},
      {"bench --sort keys --types int32 --key-bits 32", "not int32"},
      // --policy with --sort: a radix policy that fits its keys (and 4-byte values).
      {"bench --sort keys --policy lookback_warp.tpb256.ipt12.vec4.warp_scans", "sort policy key"},
      {"bench --sort pairs --types uint64 --policy radix.tpb1024.ipt32.rb8",
       "invalid for uint64 keys with 4-byte values"},
      {"bench --sort keys --types uint32 --policy int65=radix.tpb256.ipt8.rb8", "int65"},
      {"bench --sort keys,indices --types uint64 --policy radix.tpb1024.ipt32.rb8",
       "invalid for uint64 keys with 8-byte values"},
      // --policy with --select: a compaction policy that selects the type by flags.
      {"bench --select flags:0.5 --policy radix.tpb256.ipt8.rb8", "radix"},
      {"bench --select flags:0.5 --types int32 --policy "
       "lookback_pipelined.tpb256.ipt12.vec4.warp_scans",
       "cannot run int32 select_flags: lookback_pipelined has no compaction kernel"},
      {"bench --select flags:0.5 --types int64 --policy "
       "int64=lookback_bulk.tpb256.ipt16.vec2.warp_scans.direct.st4",
       "cannot run int64 select_flags"},
      // ... of every compaction the patterns run: bulk selects and partitions by flags only.
      {"bench --select flags:0.5,unique:0.5 --types int32 --policy "
       "lookback_bulk.tpb256.ipt16.vec4.warp_scans.st4",
       "cannot run int32 unique"},
      {"bench --select unique:2", "unique:2"},
      {"bench --select partition", "partition"},
      {"bench --select flags:0.5 --csv s.csv", "--csv"},
      {"bench --sort keys --json s.json", "--json"},
      {"bench --type int64:int32", "int64:int32"},
      {"bench --type uint8:int32 --segments rows:8", "--segments"},
      {"bench --type int8 --custom-op absmax", "custom operator"},
      {"bench --type uint8:int32 --policy lookback_bulk.tpb256.ipt16.vec8.warp_scans.st4",
       "exceeds 16 bytes"},
      // TYPE=KEY names a scan as --type spells it, and is checked against its types.
      {"bench --type int8 --policy int8=lookback_warp.tpb128.ipt24.vec32.warp_scans",
       "invalid for int8:int32:int8"},
  };
  for (const auto& [args, named] : cases) {
    auto r = run_cli(args, "2>&1", "cd " + dir.path().string() + " &&");
    EXPECT_EQ(r.code, 2) << args << ": " << r.output;
    EXPECT_NE(r.output.find(named), std::string::npos) << args << ": " << r.output;
    EXPECT_NE(r.output.find("scantune"), std::string::npos) << args << ": " << r.output;
  }
}

// A converting winner (type: its accumulator, problem "@uint8:int32") shows as its
// types, without the accumulator's memcpy; --type picks it or the uniform problem.
TEST(CliInspectConverting, ShowListsConvertingProblemsByTheirTypes) {
  TempDir dir;
  {
    TuningDb db = TuningDb::open(dir / "c.db", rw());
    const std::int64_t h = db.add_device(h100());
    const std::int64_t run = db.begin_run(sample_run(h));
    BestEntry e = best(h, run, "inclusive", 1u << 20, 3000, kLookback);
    e.problem = "@uint8:int32";
    db.set_best(e);
    db.set_best(best(h, run, "inclusive", 1u << 20, 7000, kLookback));
    db.add_baseline(baseline(h, BaselineKind::Memcpy, 1u << 20, 2500)); // int32's, not its
    db.end_run(run, RunStatus::Complete);
  }
  const std::string db = " --db " + (dir / "c.db").string();
  auto r = run_cli("show" + db);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("): uint8:int32 sum inclusive"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("): int32 sum inclusive"), std::string::npos) << r.output;
  r = run_cli("show --type uint8:int32" + db);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("uint8:int32 sum inclusive"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(": int32 sum inclusive"), std::string::npos) << r.output;
  r = run_cli("show --type int32" + db);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output.find("uint8:int32"), std::string::npos) << r.output;
  r = run_cli("show --type int64:int32" + db);
  EXPECT_EQ(r.code, 2) << r.output;
}

// A struct-valued operator's winner (type: the uint32 stand-in, problem "@struct8")
// shows as its struct; --type uint32 leaves it out.
TEST(CliInspectStruct, ShowListsStructProblemsByTheirStruct) {
  TempDir dir;
  {
    TuningDb db = TuningDb::open(dir / "s.db", rw());
    const std::int64_t h = db.add_device(h100());
    const std::int64_t run = db.begin_run(sample_run(h));
    BestEntry e =
        best(h, run, "inclusive", 1u << 20, 3000, "lookback_warp.tpb256.ipt12.vec2.warp_scans");
    e.type = "uint32";
    e.op = "linear_recurrence";
    e.op_hash = "0123456789abcdef";
    e.problem = "@struct8";
    db.set_best(e);
    db.end_run(run, RunStatus::Complete);
  }
  const std::string db = " --db " + (dir / "s.db").string();
  auto r = run_cli("show --op linear_recurrence" + db);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("): struct8 linear_recurrence[0123456789abcdef] inclusive"),
            std::string::npos)
      << r.output;
  r = run_cli("show --type uint32" + db);
  EXPECT_EQ(r.output.find("struct8"), std::string::npos) << r.output;
}

// Compaction and sort winners show as their type and problem, without operator or kind.
TEST(CliInspectPrimitives, ShowListsCompactionsAndSorts) {
  TempDir dir;
  {
    TuningDb db = TuningDb::open(dir / "p.db", rw());
    const std::int64_t h = db.add_device(h100());
    const std::int64_t run = db.begin_run(sample_run(h));
    BestEntry e = best(h, run, "inclusive", 1u << 20, 3000, kLookback);
    e.problem = "select_flags";
    db.set_best(e);
    e.problem = "sort_pairs4";
    e.type = "uint32";
    e.policy = "radix.tpb384.ipt12.rb8";
    db.set_best(e);
    db.end_run(run, RunStatus::Complete);
  }
  const std::string db = " --db " + (dir / "p.db").string();
  auto r = run_cli("show" + db);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("): int32 select_flags\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("): uint32 sort_pairs4\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("radix.tpb384.ipt12.rb8"), std::string::npos) << r.output;
  r = run_cli("show --type uint32" + db);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output.find("select_flags"), std::string::npos) << r.output;
}

// Length-classed winners show their classed problem, apart from the unclassed kind's.
TEST(CliInspectClasses, ShowListsLengthClassedProblems) {
  TempDir dir;
  {
    TuningDb db = TuningDb::open(dir / "l.db", rw());
    const std::int64_t h = db.add_device(h100());
    const std::int64_t run = db.begin_run(sample_run(h));
    BestEntry e = best(h, run, "inclusive", 1u << 20, 3000, kLookback);
    for (const char* problem : {"rows", "rows.len_le16", "axis.len_gt4096.inner_le32"}) {
      e.problem = problem;
      db.set_best(e);
    }
    db.end_run(run, RunStatus::Complete);
  }
  auto r = run_cli("show --db " + (dir / "l.db").string());
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* label :
       {"): int32 sum inclusive rows\n", "): int32 sum inclusive rows.len_le16\n",
        "): int32 sum inclusive axis.len_gt4096.inner_le32\n"})
    EXPECT_NE(r.output.find(label), std::string::npos) << label << r.output;
}

TEST_F(CliInspect, BenchWithoutAGpuExits77) {
  if (scantune::test::has_gpu()) GTEST_SKIP() << "a GPU is present";
  for (const char* args : {"bench --sizes 2^10", "bench --type float64 --custom-op absmax",
                           "bench --types int32,float64 --policy int64=lookback_warp.tpb256.ipt12."
                           "vec2.warp_scans --hot --seed 7 --csv b.csv -q",
                           "bench --type uint32 --custom-op 'g:a > b ? a : b:0'",
                           "bench --types int32,float64 --segments flags:random --sizes 2^20",
                           "bench --types uint8:int32,int8,bfloat16 --sizes 2^20",
                           "bench --types int8,int32 --policy int32=lookback_warp.tpb128.ipt24."
                           "vec4.warp_scans --policy int8=lookback_bulk.tpb256.ipt32.vec16."
                           "warp_scans.st6.mb3 --sizes 2^20",
                           "bench --sort keys,pairs --types uint64 --sizes 2^20",
                           "bench --select flags:0.5 --types int64 --sizes 2^20 --json s.json",
                           "bench --regret --type float64 --op max --top 1 --sizes 2^20,3000000 "
                           "--json r.json --plot r.svg"}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.code, 77) << args << ": " << r.output; // the options parsed
    EXPECT_NE(r.output.find("scantune bench: no CUDA device found"), std::string::npos) << r.output;
  }
}

} // namespace

namespace {

/// The data rows of the markdown table in `out` (lines starting "| 2^").
std::vector<std::string> table_rows(const std::string& out) {
  std::vector<std::string> rows;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("| 2^", 0) == 0) rows.push_back(line);
  return rows;
}

TEST(GpuCliBench, TinyRunPrintsOneRowPerSizeAndWritesJsonAndSvg) {
  if (!scantune::test::has_gpu()) GTEST_SKIP() << "no CUDA device";
  TempDir dir;
  const std::string env = "SCANTUNE_DB=" + (dir / "none.db").string() + " ";
  auto r = run_cli("bench --sizes 2^10:2^14:2 --algorithms lookback_warp,sequential --json " +
                       (dir / "b.json").string() + " --plot " + (dir / "b.svg").string(),
                   "2>/dev/null", env);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("| n    | tuned policy"), std::string::npos) << r.output;
  const auto rows = table_rows(r.output);
  ASSERT_EQ(rows.size(), 3u) << r.output;
  for (const std::string& row : rows) {
    EXPECT_EQ(std::count(row.begin(), row.end(), '|'), 10) << row; // 9 columns
    EXPECT_FALSE(std::regex_search(row, std::regex(R"(\|\s+-\s+\|)"))) << "a missing time: " << row;
  }
  const auto doc = nlohmann::json::parse(slurp(dir / "b.json"));
  EXPECT_EQ(doc["series"].size(), 5u);
  EXPECT_EQ(doc["sizes"].size(), 3u);
  EXPECT_NE(slurp(dir / "b.svg").find("</svg>"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "none.db")); // the dispatch only reads
}

// `scantune tune` and `bench` of a converting problem: verified winners stored under
// its own problem; the bench's CUB column from the tuner's converting CUB baseline for
// an inclusive sum, none (with a note) for an exclusive one.
TEST(GpuCliBench, TuneAndBenchAConvertingProblem) {
  if (!scantune::test::has_gpu()) GTEST_SKIP() << "no CUDA device";
  TempDir dir;
  const std::string db = (dir / "c.db").string();
  auto r = run_cli("tune --type uint8:int32 --sizes 2^20 --algorithms lookback_warp "
                   "--block-threads 256 --items-per-thread 8,16 --progress quiet --db " +
                   db);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("uint8:int32 sum inclusive on"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("(none: no candidate passed)"), std::string::npos) << r.output;
  r = run_cli("show --type uint8:int32 --db " + db);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("uint8:int32 sum inclusive"), std::string::npos) << r.output;
  r = run_cli("bench --type int8 --sizes 2^20 --algorithms lookback_warp", "2>&1",
              "SCANTUNE_DB=" + db);
  ASSERT_EQ(r.code, 0) << r.output;
  auto rows = table_rows(r.output);
  ASSERT_EQ(rows.size(), 1u) << r.output;
  EXPECT_FALSE(std::regex_search(rows[0], std::regex(R"(\|\s+-\s+\|)"))) << r.output;
  r = run_cli("bench --type int8 --kind exclusive --sizes 2^20", "2>&1", "SCANTUNE_DB=" + db);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("inclusive sums of the listed converting types"), std::string::npos)
      << r.output;
  rows = table_rows(r.output);
  ASSERT_EQ(rows.size(), 1u) << r.output;
  EXPECT_TRUE(std::regex_search(rows[0], std::regex(R"(\|\s+-\s+\|)"))) << r.output;
}

// A sample custom operator gets the CUB column from its compiled twin.
TEST(GpuCliBench, CustomOperatorSampleHasACubColumn) {
  if (!scantune::test::has_gpu()) GTEST_SKIP() << "no CUDA device";
  TempDir dir;
  const std::string env = "SCANTUNE_DB=" + (dir / "none.db").string() + " ";
  for (const char* args : {"bench --type float64 --custom-op absmax --kind exclusive --sizes "
                           "2^12,2^17",
                           "bench --type uint32 --custom-op shifted_product --sizes 2^12,2^17"}) {
    auto r = run_cli(args, "2>&1", env);
    ASSERT_EQ(r.code, 0) << args << ": " << r.output;
    const auto rows = table_rows(r.output);
    ASSERT_EQ(rows.size(), 2u) << r.output;
    for (const std::string& row : rows)
      EXPECT_FALSE(std::regex_search(row, std::regex(R"(\|\s+-\s+\|)")))
          << "a missing time: " << row;
  }
}

// Struct-valued operators (the library's and an axis scan's columns): dispatch and
// memcpy timed, no CUB column (bench/struct_bench.cu times CUB's), the report's type
// the struct.
TEST(GpuCliBench, StructOperatorsTimeDispatchAndMemcpy) {
  if (!scantune::test::has_gpu()) GTEST_SKIP() << "no CUDA device";
  TempDir dir;
  const std::string env = "SCANTUNE_DB=" + (dir / "none.db").string() + " ";
  for (const char* op : {"linear_recurrence", "columns_float32x4_sum"}) {
    const fs::path json = dir / (std::string(op) + ".json");
    auto r = run_cli(std::string("bench --custom-op ") + op + " --sizes 2^12,2^17 --json " +
                         json.string(),
                     "2>&1", env);
    ASSERT_EQ(r.code, 0) << op << ": " << r.output;
    const auto rows = table_rows(r.output);
    ASSERT_EQ(rows.size(), 2u) << r.output;
    for (const std::string& row : rows)
      EXPECT_TRUE(std::regex_search(row, std::regex(R"(\| +[0-9.]+ \| +[0-9]+% \|)"))) << row;
    EXPECT_EQ(nlohmann::json::parse(slurp(json))["type"],
              op == std::string("linear_recurrence") ? "struct8" : "struct16");
  }
}

// Segmented runs: every column timed (CUB by key for sums; axis scans have no CUB
// column), the title names the segmentation and the JSON records it.
TEST(GpuCliBench, SegmentedRunsTimeDispatchCubAndMemcpy) {
  if (!scantune::test::has_gpu()) GTEST_SKIP() << "no CUDA device";
  TempDir dir;
  const std::string env = "SCANTUNE_DB=" + (dir / "none.db").string() + " ";
  for (const char* spec :
       {"flags:32", "flags:random", "rows:1000", "keys:32", "offsets64:random", "axis:8x64"}) {
    auto r = run_cli(std::string("bench --kind exclusive --sizes 2^12,2^20 --segments ") + spec +
                         " --json " + (dir / "s.json").string(),
                     "2>/dev/null", env);
    ASSERT_EQ(r.code, 0) << spec << ": " << r.output;
    EXPECT_NE(r.output.find(std::string("segments ") + spec), std::string::npos) << r.output;
    const auto rows = table_rows(r.output);
    ASSERT_EQ(rows.size(), 2u) << r.output;
    const bool axis = std::string(spec).rfind("axis", 0) == 0;
    for (const std::string& row : rows)
      EXPECT_EQ(std::regex_search(row, std::regex(R"(\|\s+-\s+\|)")), axis)
          << "a missing time, or a CUB time for an axis scan: " << row;
    EXPECT_EQ(nlohmann::json::parse(slurp(dir / "s.json"))["segments"], spec);
  }
}

// Compaction: one row per (type, pattern, size), each checked against CUB before timing.
TEST(GpuCliBench, SelectRunsTimeScantuneCubAndMemcpy) {
  if (!scantune::test::has_gpu()) GTEST_SKIP() << "no CUDA device";
  TempDir dir;
  const std::string env = "SCANTUNE_DB=" + (dir / "none.db").string() + " ";
  auto r = run_cli("bench --select flags:0.5,clustered:0.05,unique:0.3,partition:0.5 --types "
                   "int32,float64 --sizes 2^12,2^20",
                   "2>/dev/null", env);
  ASSERT_EQ(r.code, 0) << r.output;
  std::istringstream in(r.output);
  int rows = 0;
  for (std::string line; std::getline(in, line);)
    rows += line.rfind("| int32 | ", 0) == 0 || line.rfind("| float64 | ", 0) == 0;
  EXPECT_EQ(rows, 16) << r.output;
  EXPECT_NE(r.output.find("| float64 | clustered:0.05 | 1048576 |"), std::string::npos) << r.output;
  // unique and partition, checked against CUB's DeviceSelect::Unique and
  // DevicePartition::Flagged.
  EXPECT_NE(r.output.find("| int32 | unique:0.3 | 1048576 |"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("| float64 | partition:0.5 | 4096 |"), std::string::npos) << r.output;
  // --json: a document per type and pattern, as scripts/ab_summary.py reads them.
  r = run_cli("bench -q --select flags:0.5 --types int32 --sizes 2^20 --json " +
                  (dir / "s.json").string(),
              "2>/dev/null", env);
  ASSERT_EQ(r.code, 0) << r.output;
  const auto doc = nlohmann::json::parse(slurp(dir / "s.json"));
  ASSERT_EQ(doc.size(), 1u) << doc;
  EXPECT_EQ(doc[0]["select"], "flags:0.5");
  EXPECT_GT(doc[0]["series"][0]["points"][0]["ns"].get<double>(), 0.0) << doc;
  // --policy: that compaction policy runs (and is checked against CUB) instead.
  const std::string key = "lookback_bulk.tpb256.ipt16.vec2.warp_scans.st4";
  r = run_cli("bench -q --select flags:0.05 --types int64 --sizes 3000017 --policy " + key,
              "2>/dev/null", env);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("| int64 | flags:0.05 | 3000017 |"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(key + " |"), std::string::npos) << r.output;
}

// The radix sort: one row per (type, mode, size), each checked against CUB before timing.
TEST(GpuCliBench, SortRunsTimeScantuneAndCub) {
  if (!scantune::test::has_gpu()) GTEST_SKIP() << "no CUDA device";
  auto r =
      run_cli("bench --sort keys,pairs --types uint32,float64 --sizes 4096,1048579", "2>/dev/null");
  ASSERT_EQ(r.code, 0) << r.output;
  std::istringstream in(r.output);
  int rows = 0;
  for (std::string line; std::getline(in, line);)
    rows += line.rfind("| uint32 | ", 0) == 0 || line.rfind("| float64 | ", 0) == 0;
  EXPECT_EQ(rows, 8) << r.output;
  EXPECT_NE(r.output.find("| float64 | pairs | 1048579 |"), std::string::npos) << r.output;
  // --policy runs that radix policy for its type instead of the dispatch's.
  r = run_cli("bench --sort keys --types uint32,float64 --sizes 1048579 --policy "
              "uint32=radix.tpb256.ipt12.rb8.mb2.ec1",
              "2>/dev/null");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("| radix.tpb256.ipt12.rb8.mb2.ec1 |"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("| float64 | keys | 1048579 |"), r.output.rfind("| float64 |"));
  // indices: int64 positions made by the sort, against CUB's SortPairs of positions;
  // pairs8: 8-byte values.
  r = run_cli("bench --sort indices,pairs8 --types uint32,int64 --sizes 4099,1048579",
              "2>/dev/null");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("| int64 | pairs8 | 1048579 |"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("| uint32 | indices | 1048579 |"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("| int64 | indices | 4099 |"), std::string::npos) << r.output;
  // --key-bits: keys in [0, 2^N), named in the mode column.
  r = run_cli("bench --sort keys --types int64 --sizes 65537 --key-bits 20", "2>/dev/null");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("| int64 | keys, 20-bit | 65537 |"), std::string::npos) << r.output;
}

// Regret: a tiny tune into a fresh database, then the dispatch against its candidates.
TEST(GpuCliBench, RegretComparesTheDispatchWithTheTunedCandidates) {
  if (!scantune::test::has_gpu()) GTEST_SKIP() << "no CUDA device";
  TempDir dir;
  const std::string db = (dir / "t.db").string();
  auto r = run_cli("tune --sizes 2^16,2^18 --db " + db, "2>/dev/null");
  ASSERT_EQ(r.code, 0) << r.output;
  r = run_cli("bench --regret --top 2 --db " + db + " --json " + (dir / "r.json").string() +
                  " --plot " + (dir / "r.svg").string(),
              "2>/dev/null");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("worst regret"), std::string::npos) << r.output;
  const auto doc = nlohmann::json::parse(slurp(dir / "r.json"));
  ASSERT_EQ(doc["points"].size(), 4u) << doc.dump(2); // 2^16, 114688, 212992, 2^18
  EXPECT_EQ(doc["points"][1]["n"], 114688);
  for (const auto& p : doc["points"]) {
    EXPECT_FALSE(p["regret_percent"].is_null()) << p.dump();
    EXPECT_GE(p["regret_percent"].get<double>(), 0.0) << p.dump();
  }
  EXPECT_NE(slurp(dir / "r.svg").find("</svg>"), std::string::npos);
  r = run_cli("bench --regret --op max --db " + db, "2>&1");
  EXPECT_EQ(r.code, 2) << r.output; // nothing tuned for max
  EXPECT_NE(r.output.find("no tuned entries"), std::string::npos) << r.output;
}

} // namespace
