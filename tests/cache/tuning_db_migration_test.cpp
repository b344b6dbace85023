// Migration of the golden version-1 file (tests/cache/data/tuning_v1.db) to the
// current schema.
#include <regex>
#include <set>

#include "tuning_db_test_util.hpp"

namespace scantune::db::testing {
namespace {

const fs::path kGolden = fs::path(SCANTUNE_SOURCE_DIR) / "tests/cache/data/tuning_v1.db";

/// "type|name|tbl_name|sql" of every schema object, sorted by name.
std::vector<std::string> schema_of(sqlite3* db) {
  std::vector<std::string> out;
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db,
                               "SELECT type || '|' || name || '|' || tbl_name || '|' || "
                               "coalesce(sql, '') FROM sqlite_schema ORDER BY name",
                               -1, &st, nullptr),
            SQLITE_OK);
  while (sqlite3_step(st) == SQLITE_ROW)
    out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
  sqlite3_finalize(st);
  return out;
}

std::vector<std::string> schema_of(const fs::path& file) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  auto out = schema_of(db);
  sqlite3_close(db);
  return out;
}

class TuningDbMigration : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(kGolden)) << kGolden;
    golden_bytes_ = read_bytes(kGolden);
    fs::copy_file(kGolden, file_);
  }
  void TearDown() override {
    EXPECT_EQ(read_bytes(kGolden), golden_bytes_) << "the golden file itself was modified";
    for (const char* side : {"-wal", "-shm", "-journal"})
      EXPECT_FALSE(fs::exists(kGolden.string() + side)) << kGolden << side;
  }
  EnvGuard journal_{"SCANTUNE_DB_JOURNAL", std::nullopt};
  TempDir dir_;
  fs::path file_ = dir_ / "tuning.db";
  std::string golden_bytes_;
};

TEST_F(TuningDbMigration, GoldenFileIsVersion1) {
  // (Reads the copy: SQLite never touches the file in the source tree.)
  EXPECT_EQ(raw_query(file_, "PRAGMA user_version"), "1");
  EXPECT_EQ(raw_query(file_, "PRAGMA application_id"), std::to_string(kApplicationId));
  EXPECT_EQ(raw_query(file_, "PRAGMA journal_mode"), "delete");
  // The golden file's schema is exactly what this library's v1 script creates.
  sqlite3* mem = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &mem), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(mem, schema_v1_sql(), nullptr, nullptr, nullptr), SQLITE_OK);
  EXPECT_EQ(schema_of(mem), schema_of(file_));
  sqlite3_close(mem);
}

TEST_F(TuningDbMigration, MigratesToCurrentVersionPreservingRows) {
  {
    TuningDb db = TuningDb::open(file_, rw());
    EXPECT_EQ(db.schema_version(), kSchemaVersion);
    EXPECT_EQ(db.journal_mode(), JournalMode::Wal);
    EXPECT_EQ(db.check_integrity(), "ok");

    auto devices = db.list_devices();
    ASSERT_EQ(devices.size(), 2u);
    EXPECT_EQ(devices[0].id, 1);
    EXPECT_EQ(devices[0].name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(devices[0].sm_count, 132);
    EXPECT_EQ(devices[0].l2_bytes, 52428800);
    EXPECT_EQ(devices[0].uuid, "GPU-6f3a1c2e-8d4b-4e57-9a10-0c1d2e3f4a5b");
    EXPECT_EQ(devices[1].name, "NVIDIA GeForce RTX 4090");
    EXPECT_EQ(devices[1].cc_minor, 9);
    EXPECT_EQ(devices[1].uuid, "");

    auto runs = db.list_runs();
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].status, RunStatus::Complete);
    EXPECT_EQ(runs[0].started_at, "2024-11-02T09:14:03Z");
    EXPECT_EQ(runs[0].ended_at, std::optional<std::string>("2024-11-02T09:51:40Z"));
    EXPECT_EQ(runs[0].command_line, "scantune tune --type int32,float32 --op sum,max");
    EXPECT_EQ(runs[1].status, RunStatus::Interrupted);
    // v2 gave every old run a unique id.
    EXPECT_TRUE(std::regex_match(runs[0].uid, std::regex("[0-9a-f]{32}"))) << runs[0].uid;
    EXPECT_TRUE(std::regex_match(runs[1].uid, std::regex("[0-9a-f]{32}"))) << runs[1].uid;
    EXPECT_NE(runs[0].uid, runs[1].uid);

    auto ms = db.list_measurements();
    ASSERT_EQ(ms.size(), 6u);
    EXPECT_EQ(ms[0].policy, "lookback_warp.tpb256.ipt12.vec4.warp_scans");
    EXPECT_EQ(ms[0].median_ns, std::optional<double>(45120.5));
    EXPECT_EQ(ms[0].samples, 25);
    EXPECT_FALSE(ms[0].registers.has_value()); // not recorded by v1
    EXPECT_FALSE(ms[0].spill_bytes.has_value());
    EXPECT_EQ(ms[2].status, MeasurementStatus::WrongResult);
    EXPECT_EQ(ms[2].message, "element 4096: got 17, expected 18");
    EXPECT_EQ(ms[4].op_hash, "3f9a0c77d1e2b4a5");
    EXPECT_EQ(ms[5].status, MeasurementStatus::CompileError);

    auto best = db.list_best();
    ASSERT_EQ(best.size(), 3u);
    auto h100 = db.best_for("NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)", "int32", "sum", "",
                            "inclusive", 10000000);
    ASSERT_TRUE(h100.has_value());
    EXPECT_EQ(h100->policy, "lookback_warp.tpb256.ipt12.vec4.warp_scans");
    EXPECT_EQ(h100->run_id, std::optional<std::int64_t>(1));
    auto custom = db.best_for("NVIDIA GeForce RTX 4090 (sm_89, 128 SMs)", "float64", "absmax",
                              "3f9a0c77d1e2b4a5", "inclusive", 4194304);
    ASSERT_TRUE(custom.has_value());
    EXPECT_EQ(custom->size_bucket, 44); // 2^22: v3 counts half octaves
    // v3 recomputed every bucket from its size.
    for (const BestEntry& e : best)
      EXPECT_EQ(e.size_bucket, size_bucket(e.size)) << e.size;

    // What v2 added works on the migrated file.
    EXPECT_EQ(db.counts().baselines, 0);
    Baseline b;
    b.device_id = 1;
    b.baseline = BaselineKind::Memcpy;
    b.type = "int32";
    b.size = 16777216;
    b.ns = 40608.45;
    b.gbs = 3305.0;
    db.add_baseline(b);
    Measurement m = ok_measurement(1, 1, "lookback_warp.tpb512.ipt16.vec4.warp_scans", 47000);
    m.registers = 72;
    m.spill_bytes = 0;
    db.add_measurement(m);
    std::int64_t run = db.begin_run(sample_run(1));
    EXPECT_EQ(db.run(run)->uid.size(), 32u);
  }
  EXPECT_EQ(raw_query(file_, "PRAGMA user_version"), std::to_string(kSchemaVersion));
  EXPECT_EQ(raw_query(file_, "SELECT x_memcpy FROM v_best WHERE type = 'int32'"), "0.9");
  EXPECT_EQ(raw_query(file_, "SELECT count(*) FROM v_measurements"), "7");
  EXPECT_EQ(raw_query(file_, "SELECT count(*) FROM v_runs"), "3");
}

TEST_F(TuningDbMigration, MigratedSchemaEqualsFreshSchema) {
  { TuningDb::open(file_, rw()); }
  fs::path fresh = dir_ / "fresh.db";
  { TuningDb::open(fresh, rw()); }
  auto migrated = schema_of(file_);
  EXPECT_EQ(migrated, schema_of(fresh));
  EXPECT_GT(migrated.size(), 10u);
}

TEST_F(TuningDbMigration, ReadOnlyOpenRefusesToMigrateAndChangesNothing) {
  const std::string before = read_bytes(file_);
  EXPECT_DB_ERROR(TuningDb::open(file_, ro()), file_.string(), "schema version 1 is older",
                  "read-write");
  EXPECT_EQ(read_bytes(file_), before);
  EXPECT_EQ(list_dir(dir_.path()), std::vector<std::string>{"tuning.db"});
}

TEST_F(TuningDbMigration, FailedMigrationLeavesVersion1) {
  // A v1 file that the v1 -> v2 step cannot migrate (tuning_runs already has "uid").
  raw_exec(file_, "ALTER TABLE tuning_runs ADD COLUMN uid TEXT");
  EXPECT_DB_ERROR(TuningDb::open(file_, rw()), file_.string(),
                  "migration from schema version 1 to 2", "stays at version 1");
  EXPECT_EQ(raw_query(file_, "PRAGMA user_version"), "1");
  // The failed step was rolled back as a whole: its first statements are undone too.
  EXPECT_EQ(raw_query(file_, "SELECT count(*) FROM pragma_table_info('measurements') WHERE "
                             "name = 'registers'"),
            "0");
  EXPECT_EQ(raw_query(file_, "SELECT count(*) FROM sqlite_schema WHERE name = 'baselines'"), "0");
  EXPECT_EQ(raw_query(file_, "SELECT count(*) FROM measurements"), "6");
}

} // namespace
} // namespace scantune::db::testing
