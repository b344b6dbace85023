// Schema, pragmas, constraints, row round trips, views and open modes of the tuning DB.
#include <limits>
#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tuning_db_test_util.hpp"

namespace scantune::db::testing {
namespace {

class TuningDbSchema : public ::testing::Test {
protected:
  EnvGuard journal_{"SCANTUNE_DB_JOURNAL", std::nullopt};
  TempDir dir_;
  fs::path file_ = dir_ / "tuning.db";
};

TEST(TuningDbPath, ExplicitThenEnvThenXdgThenHome) {
  EnvGuard db("SCANTUNE_DB", std::string("/env/tuning.db"));
  EnvGuard xdg("XDG_DATA_HOME", std::string("/xdg"));
  EnvGuard home("HOME", std::string("/home/someone"));
  EXPECT_EQ(default_db_path("/explicit/x.db"), fs::path("/explicit/x.db"));
  EXPECT_EQ(default_db_path(""), fs::path("/env/tuning.db"));
  {
    EnvGuard no_db("SCANTUNE_DB", std::string("")); // empty counts as unset
    EXPECT_EQ(default_db_path(""), fs::path("/xdg/scantune/tuning.db"));
    {
      EnvGuard rel("XDG_DATA_HOME", std::string("relative/dir")); // invalid per XDG spec
      EXPECT_EQ(default_db_path(""), fs::path("/home/someone/.local/share/scantune/tuning.db"));
    }
    EnvGuard no_xdg("XDG_DATA_HOME", std::nullopt);
    EXPECT_EQ(default_db_path(""), fs::path("/home/someone/.local/share/scantune/tuning.db"));
  }
}

TEST_F(TuningDbSchema, CreatesFileWithPragmasTablesAndViews) {
  fs::path nested = dir_ / "a" / "b" / "tuning.db"; // parent directories are created
  {
    TuningDb db = TuningDb::open(nested, rw());
    EXPECT_EQ(db.schema_version(), kSchemaVersion);
    EXPECT_GE(kSchemaVersion, 2);
    EXPECT_FALSE(db.read_only());
    EXPECT_EQ(db.journal_mode(), JournalMode::Wal);
    EXPECT_EQ(db.check_integrity(), "ok");
  }
  ASSERT_TRUE(fs::exists(nested));
  // The last connection closed: WAL checkpointed and its files removed.
  EXPECT_EQ(list_dir(nested.parent_path()), std::vector<std::string>{"tuning.db"});
  EXPECT_EQ(raw_query(nested, "PRAGMA application_id"), "1396921422"); // 0x5343544e 'SCTN'
  EXPECT_EQ(raw_query(nested, "PRAGMA user_version"), std::to_string(kSchemaVersion));
  EXPECT_EQ(raw_query(nested, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(raw_query(nested, "SELECT group_concat(name, ',') FROM (SELECT name FROM "
                              "sqlite_schema WHERE type = 'table' ORDER BY name)"),
            "baselines,best,devices,measurements,tuning_runs");
  EXPECT_EQ(raw_query(nested, "SELECT group_concat(name, ',') FROM (SELECT name FROM "
                              "sqlite_schema WHERE type = 'view' ORDER BY name)"),
            "v_best,v_measurements,v_runs");
}

TEST_F(TuningDbSchema, ReopenKeepsRowsAndTwoConnectionsCoexist) {
  TuningDb a = TuningDb::open(file_, rw());
  std::int64_t dev = a.add_device(h100());
  TuningDb b = TuningDb::open(file_, rw());
  EXPECT_EQ(b.add_device(h100()), dev);
  std::int64_t run = b.begin_run(sample_run(dev));
  a.add_measurement(ok_measurement(run, dev, "lookback_warp.tpb256.ipt12.vec4.warp_scans", 1e5));
  EXPECT_EQ(b.counts().measurements, 1);
}

TEST_F(TuningDbSchema, ZeroByteFileIsANewDatabase) {
  write_bytes(file_, "");
  TuningDb db = TuningDb::open(file_, rw());
  EXPECT_EQ(db.schema_version(), kSchemaVersion);
  EXPECT_EQ(db.counts().devices, 0);
}

TEST_F(TuningDbSchema, AddDeviceDeduplicatesByUuidElseModel) {
  TuningDb db = TuningDb::open(file_, rw());
  std::int64_t a = db.add_device(h100());
  DeviceInfo upgraded = h100();
  upgraded.driver_version = 13010;
  EXPECT_EQ(db.add_device(upgraded), a);
  EXPECT_EQ(db.device(a)->driver_version, 13010); // the same GPU after a driver update
  std::int64_t b = db.add_device(h100("GPU-ffffffff-0000-0000-0000-000000000000"));
  EXPECT_NE(a, b);
  std::int64_t c = db.add_device(a100(""));
  EXPECT_EQ(db.add_device(a100("")), c); // no UUID: same model means same device
  EXPECT_EQ(db.list_devices().size(), 3u);
  DeviceInfo want = upgraded;
  want.id = a;
  EXPECT_EQ(*db.device(a), want);
  EXPECT_EQ(want.model(), "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)");
  EXPECT_FALSE(db.device(999).has_value());
}

TEST_F(TuningDbSchema, RunLifecycle) {
  TuningDb db = TuningDb::open(file_, rw());
  std::int64_t dev = db.add_device(h100());
  std::int64_t id = db.begin_run(sample_run(dev));
  RunInfo r = *db.run(id);
  EXPECT_EQ(r.status, RunStatus::Running);
  EXPECT_FALSE(r.ended_at.has_value());
  EXPECT_TRUE(std::regex_match(r.uid, std::regex("[0-9a-f]{32}"))) << r.uid;
  EXPECT_TRUE(std::regex_match(r.started_at, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  EXPECT_EQ(r.command_line, "scantune tune --type int32 --op sum");
  db.end_run(id, RunStatus::Complete);
  r = *db.run(id);
  EXPECT_EQ(r.status, RunStatus::Complete);
  ASSERT_TRUE(r.ended_at.has_value());
  std::int64_t id2 = db.begin_run(sample_run(dev));
  EXPECT_NE(db.run(id2)->uid, r.uid);
  db.end_run(id2, RunStatus::Interrupted);
  EXPECT_EQ(db.run(id2)->status, RunStatus::Interrupted);
  EXPECT_DB_ERROR(db.end_run(12345, RunStatus::Complete), "no tuning run with id 12345",
                  file_.string());
  EXPECT_DB_ERROR(db.end_run(id, RunStatus::Running), "complete or interrupted");
  EXPECT_EQ(db.list_runs().size(), 2u);
  // --resume: an interrupted run goes back to running; nothing else can.
  db.reopen_run(id2);
  EXPECT_EQ(db.run(id2)->status, RunStatus::Running);
  EXPECT_FALSE(db.run(id2)->ended_at.has_value());
  EXPECT_DB_ERROR(db.reopen_run(id), "no interrupted tuning run with id");
  EXPECT_DB_ERROR(db.reopen_run(id2), "no interrupted tuning run with id");
}

TEST_F(TuningDbSchema, MeasurementsRoundTripAndFilter) {
  TuningDb db = TuningDb::open(file_, rw());
  std::int64_t dev = db.add_device(h100());
  std::int64_t run = db.begin_run(sample_run(dev));
  Measurement ok = ok_measurement(run, dev, "lookback_warp.tpb256.ipt12.vec4.warp_scans", 41234.5);
  ok.registers = 56;
  ok.spill_bytes = 8;
  Measurement bad;
  bad.run_id = run;
  bad.device_id = dev;
  bad.type = "float64";
  bad.op = "absmax";
  bad.op_hash = "c0ffee12";
  bad.kind = "exclusive";
  bad.size = 1000;
  bad.policy = "lookback_thread.tpb128.ipt16.vec4.blelloch.direct.bo200";
  bad.status = MeasurementStatus::CompileError;
  bad.message = "error: identifier \"fabsf\" is undefined";
  ok.id = db.add_measurement(ok);
  bad.id = db.add_measurement(bad);
  auto all = db.list_measurements();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0], ok);
  EXPECT_EQ(all[1], bad);
  MeasurementFilter f;
  f.status = MeasurementStatus::CompileError;
  auto failed = db.list_measurements(f);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message, bad.message);
  f = {};
  f.op = "sum";
  f.policy = ok.policy;
  EXPECT_EQ(db.list_measurements(f).size(), 1u);
  for (auto s :
       {MeasurementStatus::Ok, MeasurementStatus::CompileError, MeasurementStatus::LaunchError,
        MeasurementStatus::WrongResult, MeasurementStatus::Timeout, MeasurementStatus::Rejected})
    EXPECT_EQ(parse_measurement_status(to_string(s)), s);
  EXPECT_DB_ERROR(parse_measurement_status("slow"), "slow", "wrong_result");
}

TEST_F(TuningDbSchema, ConstraintsRejectBadRows) {
  TuningDb db = TuningDb::open(file_, rw());
  std::int64_t dev = db.add_device(h100());
  std::int64_t run = db.begin_run(sample_run(dev));
  Measurement m = ok_measurement(run, dev, "sequential", 1e6);
  m.type = "int128";
  EXPECT_DB_ERROR(db.add_measurement(m), "CHECK constraint failed", file_.string());
  m.type = "int8"; // compactions store narrow element types as themselves
  EXPECT_GT(db.add_measurement(m), 0);
  m = ok_measurement(run, dev, "sequential", 1e6);
  m.median_ns.reset(); // status ok needs timings
  EXPECT_DB_ERROR(db.add_measurement(m), "CHECK constraint failed");
  m = ok_measurement(run, dev, "sequential", 1e6);
  m.kind = "both";
  EXPECT_DB_ERROR(db.add_measurement(m), "CHECK constraint failed");
  m = ok_measurement(run, dev, "sequential", 1e6);
  m.registers = 300;
  EXPECT_DB_ERROR(db.add_measurement(m), "CHECK constraint failed");
  m = ok_measurement(run, 777, "sequential", 1e6); // no such device
  EXPECT_DB_ERROR(db.add_measurement(m), "FOREIGN KEY constraint failed");
  m = ok_measurement(888, dev, "sequential", 1e6); // no such run
  EXPECT_DB_ERROR(db.add_measurement(m), "FOREIGN KEY constraint failed");
  Baseline b;
  b.device_id = dev;
  b.baseline = BaselineKind::Memcpy;
  b.type = "int32";
  b.op = "sum"; // memcpy has no operator
  b.size = 1024;
  b.ns = 1000;
  b.gbs = 8;
  EXPECT_DB_ERROR(db.add_baseline(b), "CHECK constraint failed");
  b.baseline = BaselineKind::Cub; // CUB needs a kind
  EXPECT_DB_ERROR(db.add_baseline(b), "CHECK constraint failed");
  BestEntry e;
  e.device_id = dev;
  e.type = "int32";
  e.op = "sum";
  e.kind = "inclusive";
  e.size = 0;
  e.policy = "sequential";
  e.ns = 1;
  EXPECT_DB_ERROR(db.set_best(e), "size > 0");
  e.size = 10;
  e.ns = -5;
  EXPECT_DB_ERROR(db.set_best(e), "CHECK constraint failed");
  EXPECT_EQ(db.counts().measurements, 1); // the int8 one
  EXPECT_EQ(db.counts().baselines, 0);
  EXPECT_EQ(db.counts().best, 0);
}

TEST(TuningDbSizeBucket, HalfOctaves) {
  EXPECT_EQ(size_bucket(0), 0);
  EXPECT_EQ(size_bucket(1), 0);
  EXPECT_EQ(size_bucket(2), 2);
  EXPECT_EQ(size_bucket(3), 3);
  EXPECT_EQ(size_bucket(4), 4);
  EXPECT_EQ(size_bucket(5), 5);
  EXPECT_EQ(size_bucket(6), 5);
  EXPECT_EQ(size_bucket(7), 6);
  EXPECT_EQ(size_bucket(1024), 20);
  EXPECT_EQ(size_bucket(1025), 21);
  EXPECT_EQ(size_bucket(1536), 21);
  EXPECT_EQ(size_bucket(1537), 22);
  EXPECT_EQ(size_bucket(std::uint64_t{1} << 40), 80);
  EXPECT_EQ(size_bucket(std::numeric_limits<std::uint64_t>::max()), kMaxSizeBucket);
  // Every bucket holds the sizes above the previous bucket's largest, up to its own.
  for (int b = 2; b < kMaxSizeBucket; ++b) {
    SCOPED_TRACE(b);
    EXPECT_EQ(size_bucket(bucket_size(b)), b);
    EXPECT_EQ(size_bucket(bucket_size(b - 1) + 1), b) << bucket_size(b - 1);
    EXPECT_LT(bucket_position(b - 1), bucket_position(b));
  }
  EXPECT_EQ(bucket_size(kMaxSizeBucket), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(bucket_size(41), 1536u * 1024);
  EXPECT_EQ(bucket_label(40), "2^20");
  EXPECT_EQ(bucket_label(41), "1.5x2^20");
  EXPECT_EQ(size_label(3u << 19), "1.5x2^20");
  EXPECT_EQ(size_label(1u << 20), "2^20");
  EXPECT_EQ(size_label(1000000), "1000000");
  // On the log scale 1.5 x 2^k is 0.585 octave above 2^k: nearer to 2^(k+1).
  EXPECT_TRUE(nearer_bucket(42, 40, 41));
  EXPECT_TRUE(nearer_bucket(39, 42, 40)); // 1.5 x 2^19 is 0.415 octave below 2^20
  EXPECT_TRUE(nearer_bucket(38, 42, 40)); // a tie: the smaller bucket
  EXPECT_FALSE(nearer_bucket(42, 38, 40));
}

// The table's CHECK says the same as size_bucket: every (size, bucket) pair that
// size_bucket makes is accepted, and the neighbouring buckets are refused.
TEST_F(TuningDbSchema, BestBucketCheckMatchesSizeBucket) {
  { TuningDb db = TuningDb::open(file_, rw()); }
  std::vector<std::uint64_t> sizes{1, 2,    3,    4,    5,    6,    7,
                                   8, 1000, 1024, 1025, 1536, 1537, std::uint64_t{1} << 62};
  for (int b = 2; b <= 124; ++b)
    for (std::uint64_t n : {bucket_size(b), bucket_size(b - 1) + 1})
      sizes.push_back(n);
  sqlite3* c = nullptr;
  ASSERT_EQ(sqlite3_open(file_.c_str(), &c), SQLITE_OK);
  int id = 0;
  auto insert = [&](std::uint64_t n, int bucket) {
    ++id;
    const std::string sql =
        fmt::format("INSERT INTO best (id, model, device_id, type, op, kind, size_bucket, size, "
                    "policy, ns, gbs, updated_at) VALUES ({}, 'm{}', 1, 'int32', 'sum', "
                    "'inclusive', {}, {}, 'p', 1, 1, 'now')",
                    id, id, bucket, n);
    return sqlite3_exec(c, sql.c_str(), nullptr, nullptr, nullptr);
  };
  for (std::uint64_t n : sizes) {
    SCOPED_TRACE(n);
    const int b = size_bucket(n);
    EXPECT_EQ(insert(n, b - 1), SQLITE_CONSTRAINT);
    EXPECT_EQ(insert(n, b + 1), SQLITE_CONSTRAINT);
    EXPECT_EQ(insert(n, b), SQLITE_OK);
  }
  EXPECT_EQ(insert(1, 1), SQLITE_CONSTRAINT);                        // bucket 1 holds no size
  EXPECT_EQ(insert(std::uint64_t{1} << 62, 125), SQLITE_CONSTRAINT); // beyond the range
  sqlite3_close(c);
}

BestEntry best(std::int64_t dev, std::uint64_t size, double ns, std::string policy) {
  BestEntry e = make_best(dev, std::nullopt, "int32", size, ns, std::move(policy));
  e.updated_at.clear();
  return e;
}

// CUB's int32 sum inclusive baseline at `size`.
Baseline cub_sum(std::int64_t dev, std::uint64_t size, double ns, double gbs) {
  Baseline b;
  b.device_id = dev;
  b.baseline = BaselineKind::Cub;
  b.type = "int32";
  b.op = "sum";
  b.kind = "inclusive";
  b.size = size;
  b.ns = ns;
  b.gbs = gbs;
  return b;
}

// A segmented problem's winners, baselines and measurements live beside the flat
// scan's of the same type, operator, kind and size, never replacing them.
TEST_F(TuningDbSchema, ProblemKindsAreKeptApart) {
  TuningDb db = TuningDb::open(file_, rw());
  const DeviceInfo d = h100();
  const std::int64_t dev = db.add_device(d);
  BestEntry rows = best(dev, 1u << 20, 5000, "lookback_warp.tpb128.ipt8.vec4.warp_scans");
  rows.problem = "rows";
  ASSERT_TRUE(
      db.set_best(best(dev, 1u << 20, 9000, "lookback_bulk.tpb256.ipt16.vec4.warp_scans.st4")));
  ASSERT_TRUE(db.set_best(rows));
  EXPECT_EQ(db.list_best().size(), 2u);
  const std::string m = d.model();
  EXPECT_EQ(db.best_for(m, "int32", "sum", "", "inclusive", 1u << 20)->policy,
            "lookback_bulk.tpb256.ipt16.vec4.warp_scans.st4");
  EXPECT_EQ(db.best_for(m, "int32", "sum", "", "inclusive", 1u << 20, "rows")->policy,
            "lookback_warp.tpb128.ipt8.vec4.warp_scans");
  EXPECT_FALSE(db.best_for(m, "int32", "sum", "", "inclusive", 1u << 20, "flags"));
  BestFilter only_rows;
  only_rows.problem = "rows";
  EXPECT_EQ(db.list_best(only_rows).size(), 1u);

  Baseline cub = cub_sum(dev, 1u << 20, 7000, 1000);
  const std::int64_t flat_id = db.add_baseline(cub);
  cub.problem = "flags";
  cub.ns = 9000;
  EXPECT_NE(db.add_baseline(cub), flat_id);
  EXPECT_EQ(db.baseline_for(dev, BaselineKind::Cub, "int32", "sum", "", "inclusive", 1u << 20)->ns,
            7000);
  EXPECT_EQ(
      db.baseline_for(dev, BaselineKind::Cub, "int32", "sum", "", "inclusive", 1u << 20, "flags")
          ->ns,
      9000);

  // An export names the problem only where there is one, and reads back the same.
  const auto doc = db.export_json();
  EXPECT_FALSE(doc.at("best").at(0).contains("problem"));
  EXPECT_EQ(doc.at("best").at(1).at("problem"), "rows");
  TempDir other;
  TuningDb copy = TuningDb::open(other.path() / "copy.db", rw());
  copy.import_json(doc);
  EXPECT_EQ(copy.export_json(), doc);
}

// A bucket with two winners: the lower one serves its sizes up to lower_upto. It is
// stored, read, exported and imported with the entry, and a later single winner of
// the bucket replaces both.
TEST_F(TuningDbSchema, ABucketsSecondWinnerTravelsWithItsEntry) {
  TuningDb db = TuningDb::open(file_, rw());
  const std::int64_t dev = db.add_device(h100());
  BestEntry split = best(dev, 3u << 20, 21800, "lookback_pipelined.tpb256.ipt10.vec1.warp_scans");
  split.lower_policy = "lookback_warp.tpb128.ipt20.vec1.warp_scans";
  split.lower_upto = 2621440;
  ASSERT_TRUE(db.set_best(split));
  const BestEntry back = db.list_best().at(0);
  EXPECT_EQ(back.lower_policy, split.lower_policy);
  EXPECT_EQ(back.lower_upto, 2621440u);
  EXPECT_EQ(raw_query(file_, "SELECT lower_policy || ' ' || lower_upto FROM v_best"),
            split.lower_policy + " 2621440");

  const auto doc = db.export_json();
  EXPECT_EQ(doc.at("best").at(0).at("lower_upto"), 2621440);
  TempDir other;
  TuningDb copy = TuningDb::open(other.path() / "copy.db", rw());
  copy.import_json(doc);
  EXPECT_EQ(copy.export_json(), doc);

  // Sizes outside the bucket's lower part, or half a split, are refused.
  for (std::uint64_t upto : {std::uint64_t{3u << 20}, std::uint64_t{1u << 21}}) {
    BestEntry bad = split;
    bad.lower_upto = upto;
    EXPECT_DB_ERROR(db.set_best(bad), "lower winner");
  }
  BestEntry half = split;
  half.lower_policy.clear();
  EXPECT_DB_ERROR(db.set_best(half), "lower winner");
  EXPECT_EQ(db.list_best().at(0), back);

  ASSERT_TRUE(
      db.set_best(best(dev, 3u << 20, 21000, "lookback_warp.tpb256.ipt12.vec2.warp_scans")));
  EXPECT_EQ(db.list_best().at(0).lower_policy, "");
  EXPECT_EQ(db.list_best().at(0).lower_upto, 0u);
  // The schema itself refuses half a split.
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(file_.c_str(), &raw), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(raw, "UPDATE best SET lower_upto = 5", nullptr, nullptr, nullptr),
            SQLITE_CONSTRAINT);
  sqlite3_close(raw);
}

TEST_F(TuningDbSchema, BestForPicksTheNearestBucket) {
  TuningDb db = TuningDb::open(file_, rw());
  DeviceInfo d = h100();
  std::int64_t dev = db.add_device(d);
  std::int64_t run = db.begin_run(sample_run(dev));
  BestEntry small = best(dev, 1u << 10, 3000, "single_block.tpb256.ipt4.vec4.warp_scans");
  small.run_id = run;
  ASSERT_TRUE(db.set_best(small));
  ASSERT_TRUE(db.set_best(best(dev, 1u << 20, 9000, "lookback_warp.tpb256.ipt12.vec4.warp_scans")));
  ASSERT_TRUE(
      db.set_best(best(dev, 1u << 24, 90000, "lookback_warp.tpb512.ipt16.vec4.warp_scans")));
  const std::string m = d.model();
  auto at = [&](std::uint64_t n) { return db.best_for(m, "int32", "sum", "", "inclusive", n); };
  EXPECT_EQ(at(1u << 20)->policy, "lookback_warp.tpb256.ipt12.vec4.warp_scans");
  EXPECT_EQ(at((1u << 20) + 1)->size_bucket, 40); // 1.5 x 2^20: 2^20 is nearer than 2^24
  EXPECT_EQ(at(1u << 22)->size_bucket, 40);       // tie between 2^20 and 2^24: the smaller
  EXPECT_EQ(at((1u << 22) + 1)->size_bucket, 48); // 1.5 x 2^22: 1.4 octaves from 2^24
  EXPECT_EQ(at(std::uint64_t{1} << 33)->size_bucket, 48);
  auto s = at(1);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->size_bucket, 20);
  EXPECT_EQ(s->run_id, run);
  EXPECT_EQ(s->model, m);
  EXPECT_FALSE(db.best_for(m, "int32", "sum", "", "exclusive", 1024).has_value());
  EXPECT_FALSE(db.best_for(m, "int32", "sum", "abc", "inclusive", 1024).has_value());
  EXPECT_FALSE(db.best_for("other", "int32", "sum", "", "inclusive", 1024).has_value());
  BestFilter f;
  f.type = "int32";
  EXPECT_EQ(db.list_best(f).size(), 3u);
  f.type = "int64";
  EXPECT_EQ(db.list_best(f).size(), 0u);
}

TEST_F(TuningDbSchema, SetBestReplaceOrIfFaster) {
  TuningDb db = TuningDb::open(file_, rw());
  std::int64_t dev = db.add_device(h100());
  ASSERT_TRUE(db.set_best(best(dev, 1u << 20, 9000, "a.tpb256")));
  // Same bucket (different size inside it): IfFaster keeps the faster entry.
  EXPECT_FALSE(db.set_best(best(dev, 1000000, 9500, "b.tpb256"), BestMode::IfFaster));
  EXPECT_FALSE(db.set_best(best(dev, 1000000, 9000, "b.tpb256"), BestMode::IfFaster)); // tie
  EXPECT_EQ(db.list_best()[0].policy, "a.tpb256");
  EXPECT_TRUE(db.set_best(best(dev, 1000000, 8000, "c.tpb256"), BestMode::IfFaster));
  EXPECT_EQ(db.list_best()[0].policy, "c.tpb256");
  EXPECT_EQ(db.list_best()[0].size, 1000000u);
  EXPECT_TRUE(db.set_best(best(dev, 1u << 20, 12000, "d.tpb256"))); // Replace: always
  ASSERT_EQ(db.list_best().size(), 1u);
  EXPECT_EQ(db.list_best()[0].policy, "d.tpb256");
}

TEST_F(TuningDbSchema, BaselinesUpsert) {
  TuningDb db = TuningDb::open(file_, rw());
  std::int64_t dev = db.add_device(h100());
  Baseline b = cub_sum(dev, 1u << 24, 50000, 2684.35);
  b.measured_at = "2025-01-01T00:00:00Z";
  std::int64_t id = db.add_baseline(b);
  b.ns = 48000;
  EXPECT_EQ(db.add_baseline(b), id); // same key: replaced
  auto got = db.baseline_for(dev, BaselineKind::Cub, "int32", "sum", "", "inclusive", 1u << 24);
  ASSERT_TRUE(got.has_value());
  b.id = id;
  EXPECT_EQ(*got, b);
  EXPECT_FALSE(
      db.baseline_for(dev, BaselineKind::Memcpy, "int32", "", "", "", 1u << 24).has_value());
  EXPECT_EQ(db.list_baselines().size(), 1u);
}

TEST_F(TuningDbSchema, ViewsComputeRatiosAgainstMemcpyAndCub) {
  {
    TuningDb db = TuningDb::open(file_, rw());
    DeviceInfo d = h100();
    std::int64_t dev = db.add_device(d);
    std::int64_t dev2 = db.add_device(h100("GPU-22222222-0000-0000-0000-000000000000"));
    std::int64_t run = db.begin_run(sample_run(dev));
    const std::uint64_t n = 1u << 24;
    BestEntry e = best(dev, n, 1000, "lookback_warp.tpb256.ipt12.vec4.warp_scans");
    e.gbs = 134.2177;
    e.run_id = run;
    db.set_best(e);
    db.set_best(best(dev, 1u << 10, 500, "single_block.tpb128.ipt4.vec4.warp_scans"));
    Baseline mc;
    mc.device_id = dev;
    mc.baseline = BaselineKind::Memcpy;
    mc.type = "int32";
    mc.size = n;
    mc.ns = 900;
    mc.gbs = 149.1;
    db.add_baseline(mc);
    mc.device_id = dev2; // another H100: the faster memcpy of the model counts
    mc.ns = 880;
    db.add_baseline(mc);
    mc.type = "int64"; // other type: ignored
    mc.ns = 1;
    db.add_baseline(mc);
    Baseline cub = mc;
    cub.device_id = dev;
    cub.baseline = BaselineKind::Cub;
    cub.type = "int32";
    cub.op = "sum";
    cub.kind = "inclusive";
    cub.ns = 1500;
    db.add_baseline(cub);
    cub.kind = "exclusive"; // other kind: ignored
    cub.ns = 1;
    db.add_baseline(cub);
    db.add_measurement(ok_measurement(run, dev, e.policy, 1000));
    Measurement failed =
        ok_measurement(run, dev, "reduce_then_scan.tpb512.ipt8.vec2.hillis_steele", 1);
    failed.status = MeasurementStatus::Timeout;
    failed.median_ns = failed.min_ns = failed.max_ns = failed.gbs = std::nullopt;
    db.add_measurement(failed);
  }
  const std::string model = h100().model();
  EXPECT_EQ(raw_query(file_, "SELECT count(*) FROM v_best"), "2");
  EXPECT_EQ(raw_query(file_, "SELECT device || '|' || type || '|' || op || '|' || kind || '|' || "
                             "size || '|' || policy || '|' || gbs || '|' || x_memcpy || '|' || "
                             "x_cub FROM v_best WHERE size = 16777216"),
            model + "|int32|sum|inclusive|16777216|lookback_warp.tpb256.ipt12.vec4.warp_scans|"
                    "134.2|0.88|1.5");
  EXPECT_EQ(raw_query(file_, "SELECT coalesce(x_memcpy, 'null') || ',' || coalesce(x_cub, 'null') "
                             "FROM v_best WHERE size = 1024"),
            "null,null");
  EXPECT_EQ(raw_query(file_, "SELECT count(*) || ',' || sum(status = 'timeout') || ',' || "
                             "min(device) FROM v_measurements"),
            "2,1," + model);
  EXPECT_EQ(raw_query(file_, "SELECT status || ',' || measurements || ',' || ok || ',' || device "
                             "FROM v_runs"),
            "running,2,1," + model);
}

TEST_F(TuningDbSchema, TransactionsCommitOrRollBack) {
  TuningDb db = TuningDb::open(file_, rw());
  std::int64_t dev = db.add_device(h100());
  std::int64_t run = db.begin_run(sample_run(dev));
  {
    auto tx = db.transaction();
    for (int i = 0; i < 10; ++i)
      db.add_measurement(ok_measurement(run, dev, "sequential", 1e6 + i));
    EXPECT_DB_ERROR(db.transaction(), "already open");
  } // not committed
  EXPECT_EQ(db.counts().measurements, 0);
  {
    auto tx = db.transaction();
    for (int i = 0; i < 10; ++i)
      db.add_measurement(ok_measurement(run, dev, "sequential", 1e6 + i));
    tx.commit();
  }
  EXPECT_EQ(db.counts().measurements, 10);
  {
    auto tx = db.transaction();
    db.add_measurement(ok_measurement(run, dev, "sequential", 5));
    tx.rollback();
  }
  EXPECT_EQ(db.counts().measurements, 10);
}

TEST_F(TuningDbSchema, ReadOnlyOpenOfMissingFileCreatesNothing) {
  fs::path missing = dir_ / "sub" / "tuning.db";
  EXPECT_FALSE(TuningDb::open_existing_read_only(missing).has_value());
  try {
    TuningDb::open(missing, ro());
    ADD_FAILURE() << "expected NoDatabaseError";
  } catch (const NoDatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find("no database"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(missing.string()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(list_dir(dir_.path()).empty());
  write_bytes(file_, "");
  EXPECT_THROW(TuningDb::open(file_, ro()), NoDatabaseError);
  EXPECT_EQ(list_dir(dir_.path()), std::vector<std::string>{"tuning.db"});
  EXPECT_EQ(fs::file_size(file_), 0u);
}

TEST_F(TuningDbSchema, ReadOnlyOpenOfRollbackJournalFileCreatesNoFiles) {
  DeviceInfo d = h100();
  {
    TuningDb db = TuningDb::open(file_, rw(JournalMode::Delete));
    EXPECT_EQ(db.journal_mode(), JournalMode::Delete);
    std::int64_t dev = db.add_device(d);
    db.set_best(best(dev, 4096, 700, "single_block.tpb256.ipt4.vec4.warp_scans"));
  }
  const std::string before = read_bytes(file_);
  {
    auto db = TuningDb::open_existing_read_only(file_);
    ASSERT_TRUE(db.has_value());
    EXPECT_TRUE(db->read_only());
    EXPECT_EQ(db->journal_mode(), JournalMode::Delete);
    EXPECT_EQ(list_dir(dir_.path()), std::vector<std::string>{"tuning.db"}); // no -wal, -shm
    auto e = db->best_for(d.model(), "int32", "sum", "", "inclusive", 4000);
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->policy, "single_block.tpb256.ipt4.vec4.warp_scans");
    EXPECT_DB_ERROR(db->add_device(a100()), "read-only", file_.string());
    EXPECT_DB_ERROR(db->transaction(), "read-only");
    EXPECT_EQ(list_dir(dir_.path()), std::vector<std::string>{"tuning.db"});
  }
  EXPECT_EQ(read_bytes(file_), before);
}

TEST_F(TuningDbSchema, ReadOnlyOpenOfWalFileReads) {
  {
    TuningDb db = TuningDb::open(file_, rw());
    db.add_device(h100());
  }
  auto db = TuningDb::open_existing_read_only(file_);
  ASSERT_TRUE(db.has_value());
  EXPECT_EQ(db->journal_mode(), JournalMode::Wal);
  EXPECT_EQ(db->list_devices().size(), 1u);
}

TEST_F(TuningDbSchema, JournalDeleteFromEnvironment) {
  EnvGuard env("SCANTUNE_DB_JOURNAL", std::string("delete"));
  EXPECT_EQ(journal_mode_from_env(), JournalMode::Delete);
  {
    TuningDb db = TuningDb::open(file_); // journal from the environment
    EXPECT_EQ(db.journal_mode(), JournalMode::Delete);
    std::int64_t dev = db.add_device(h100());
    std::int64_t run = db.begin_run(sample_run(dev));
    db.add_measurement(ok_measurement(run, dev, "sequential", 1e6));
    EXPECT_EQ(list_dir(dir_.path()), std::vector<std::string>{"tuning.db"}); // no -wal
  }
  EXPECT_EQ(raw_query(file_, "PRAGMA journal_mode"), "delete");
  EXPECT_EQ(raw_query(file_, "SELECT count(*) FROM measurements"), "1");
  {
    // An existing WAL file is switched too.
    fs::path other = dir_ / "wal.db";
    {
      EnvGuard wal("SCANTUNE_DB_JOURNAL", std::string("WAL"));
      TuningDb db = TuningDb::open(other);
      EXPECT_EQ(db.journal_mode(), JournalMode::Wal);
    }
    TuningDb db = TuningDb::open(other);
    EXPECT_EQ(db.journal_mode(), JournalMode::Delete);
  }
}

TEST_F(TuningDbSchema, BadJournalEnvironmentIsAnErrorAndCreatesNothing) {
  EnvGuard env("SCANTUNE_DB_JOURNAL", std::string("memory"));
  EXPECT_DB_ERROR(TuningDb::open(file_), "SCANTUNE_DB_JOURNAL=memory", "\"delete\"");
  EXPECT_TRUE(list_dir(dir_.path()).empty());
}

} // namespace
} // namespace scantune::db::testing
