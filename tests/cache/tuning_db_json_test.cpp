// JSON export, import and merge of tuning databases.
#include <nlohmann/json.hpp>

#include "tuning_db_test_util.hpp"

namespace scantune::db::testing {
namespace {

using nlohmann::json;

/// Fills a database with every kind of row, including awkward values.
void populate(TuningDb& db) {
  std::int64_t h = db.add_device(h100());
  std::int64_t a = db.add_device(a100("")); // no UUID
  RunInfo r = sample_run(h);
  r.started_at = "2025-03-04T05:00:00Z";
  r.command_line = "scantune tune --op 'absmax' \"quoted\" ü ✓";
  std::int64_t run1 = db.begin_run(r);
  db.end_run(run1, RunStatus::Complete);
  std::int64_t run2 = db.begin_run(sample_run(a)); // still running
  RunInfo no_device = sample_run(0);
  no_device.device_id.reset();
  db.begin_run(no_device);

  Measurement m = ok_measurement(run1, h, "lookback_warp.tpb256.ipt12.vec4.warp_scans",
                                 0.1 + 0.2 + 41234.567890123456);
  m.gbs = 1.0 / 3.0;
  db.add_measurement(m);
  m.size = std::uint64_t{1} << 40;
  m.registers.reset();
  m.spill_bytes = 1024;
  db.add_measurement(m);
  Measurement f = ok_measurement(run1, h, "chained.tpb1024.ipt32.vec2.blelloch_padded", 1);
  f.status = MeasurementStatus::CompileError;
  f.median_ns = f.min_ns = f.max_ns = f.gbs = std::nullopt;
  f.samples = 0;
  f.message = "line 1\nline 2\t\"quoted\" \\ ü";
  db.add_measurement(f);
  Measurement custom =
      ok_measurement(run2, a, "lookback_warp.tpb256.ipt8.vec2.warp_scans", 7e4, 4194304, "float64");
  custom.op = "absmax";
  custom.op_hash = "3f9a0c77d1e2b4a5";
  custom.kind = "exclusive";
  db.add_measurement(custom);

  Baseline mc;
  mc.device_id = h;
  mc.run_id = run1;
  mc.baseline = BaselineKind::Memcpy;
  mc.type = "int32";
  mc.size = 1u << 24;
  mc.ns = 40608.45;
  mc.gbs = 3305.123456789;
  mc.measured_at = "2025-03-04T05:01:00Z";
  db.add_baseline(mc);
  Baseline cub = mc;
  cub.run_id.reset();
  cub.baseline = BaselineKind::Cub;
  cub.op = "sum";
  cub.kind = "inclusive";
  cub.ns = 52000.25;
  db.add_baseline(cub);

  db.set_best(
      make_best(h, run1, "int32", 1u << 24, 45120.5, "lookback_warp.tpb256.ipt12.vec4.warp_scans"));
  db.set_best(make_best(h, std::nullopt, "int32", 1000, 2500.125,
                        "single_block.tpb256.ipt4.vec4.warp_scans"));
  BestEntry c =
      make_best(a, run2, "float64", 4194304, 7e4, "lookback_warp.tpb256.ipt8.vec2.warp_scans");
  c.op = "absmax";
  c.op_hash = "3f9a0c77d1e2b4a5";
  db.set_best(c);
}

class TuningDbJson : public ::testing::Test {
protected:
  EnvGuard journal_{"SCANTUNE_DB_JOURNAL", std::nullopt};
  TempDir dir_;
};

TEST_F(TuningDbJson, RoundTripThroughAnEmptyDatabaseIsLossless) {
  TuningDb a = TuningDb::open(dir_ / "a.db", rw());
  populate(a);
  const json first = a.export_json();
  EXPECT_EQ(first.at("format"), "scantune-tuning-db");
  EXPECT_EQ(first.at("schema_version"), kSchemaVersion);
  EXPECT_EQ(first.at("devices").size(), 2u);
  EXPECT_EQ(first.at("runs").size(), 3u);
  EXPECT_EQ(first.at("measurements").size(), 4u);
  EXPECT_EQ(first.at("baselines").size(), 2u);
  EXPECT_EQ(first.at("best").size(), 3u);

  TuningDb b = TuningDb::open(dir_ / "b.db", rw());
  ImportStats st = b.import_json(first);
  EXPECT_EQ(st.devices_added, 2);
  EXPECT_EQ(st.runs_added, 3);
  EXPECT_EQ(st.measurements_added, 4);
  EXPECT_EQ(st.baselines_added, 2);
  EXPECT_EQ(st.best_added, 3);
  EXPECT_EQ(b.export_json(), first);
  // Row by row too (same ids: both were filled in the same order).
  EXPECT_EQ(b.list_devices(), a.list_devices());
  EXPECT_EQ(b.list_runs(), a.list_runs());
  EXPECT_EQ(b.list_measurements(), a.list_measurements());
  EXPECT_EQ(b.list_baselines(), a.list_baselines());
  EXPECT_EQ(b.list_best(), a.list_best());

  // Through a file, and through text (doubles survive printing and parsing).
  a.export_file(dir_ / "a.json");
  TuningDb c = TuningDb::open(dir_ / "c.db", rw());
  c.import_file(dir_ / "a.json");
  EXPECT_EQ(c.export_json(), first);
  EXPECT_EQ(json::parse(first.dump()), first);
  EXPECT_EQ(c.list_measurements(), a.list_measurements());
}

TEST_F(TuningDbJson, ExportDoesNotDependOnDatabaseIds) {
  TuningDb a = TuningDb::open(dir_ / "a.db", rw());
  populate(a);
  const json before = a.export_json();
  {
    // Leave gaps in the ids: a device and a run that are later deleted.
    TuningDb g = TuningDb::open(dir_ / "gaps.db", rw());
    std::int64_t tmp = g.add_device(h100("GPU-deadbeef-0000-0000-0000-000000000000"));
    g.begin_run(sample_run(tmp));
    g.import_json(before);
  }
  raw_exec(dir_ / "gaps.db", "PRAGMA foreign_keys = ON; DELETE FROM tuning_runs WHERE id = 1; "
                             "DELETE FROM devices WHERE id = 1;");
  TuningDb g = TuningDb::open(dir_ / "gaps.db", rw());
  EXPECT_EQ(g.list_devices().front().id, 2);
  EXPECT_EQ(g.export_json(), before);
}

TEST_F(TuningDbJson, ExportFilteredByDevice) {
  TuningDb a = TuningDb::open(dir_ / "a.db", rw());
  populate(a);
  ExportFilter f;
  f.model = a100().model();
  const json doc = a.export_json(f);
  ASSERT_EQ(doc.at("devices").size(), 1u);
  EXPECT_EQ(doc.at("devices")[0].at("name"), "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(doc.at("runs").size(), 1u);
  EXPECT_EQ(doc.at("measurements").size(), 1u);
  EXPECT_EQ(doc.at("baselines").size(), 0u);
  ASSERT_EQ(doc.at("best").size(), 1u);
  EXPECT_EQ(doc.at("best")[0].at("op"), "absmax");

  TuningDb b = TuningDb::open(dir_ / "b.db", rw());
  b.import_json(doc);
  EXPECT_EQ(b.export_json(), doc);
  auto e =
      b.best_for(a100().model(), "float64", "absmax", "3f9a0c77d1e2b4a5", "inclusive", 5000000);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->policy, "lookback_warp.tpb256.ipt8.vec2.warp_scans");

  ExportFilter by_id;
  by_id.device_id = a.list_devices()[0].id;
  const json h = a.export_json(by_id);
  EXPECT_EQ(h.at("devices").size(), 1u);
  EXPECT_EQ(h.at("measurements").size(), 3u);
  EXPECT_EQ(h.at("best").size(), 2u);
}

TEST_F(TuningDbJson, ExportWithoutMeasurementsKeepsWinnersAndBaselines) {
  TuningDb a = TuningDb::open(dir_ / "a.db", rw());
  populate(a);
  ExportFilter f;
  f.measurements = false;
  const json doc = a.export_json(f);
  const json full = a.export_json();
  EXPECT_EQ(doc.at("measurements").size(), 0u);
  EXPECT_EQ(doc.at("best"), full.at("best"));
  EXPECT_EQ(doc.at("baselines"), full.at("baselines"));
  EXPECT_EQ(doc.at("runs"), full.at("runs"));

  TuningDb b = TuningDb::open(dir_ / "b.db", rw());
  b.import_json(doc);
  EXPECT_EQ(b.counts().measurements, 0);
  EXPECT_EQ(b.list_best().size(), a.list_best().size());
}

TEST_F(TuningDbJson, MergeOfTwoDatabases) {
  const fs::path a_path = dir_ / "a.db", b_path = dir_ / "b.db";
  const std::string x = "GPU-aaaaaaaa-0000-0000-0000-000000000001";
  const std::string y = "GPU-aaaaaaaa-0000-0000-0000-000000000002";
  const std::string model = h100().model();
  {
    TuningDb a = TuningDb::open(a_path, rw());
    std::int64_t hx = a.add_device(h100(x));
    std::int64_t run = a.begin_run(sample_run(hx));
    for (int i = 0; i < 3; ++i)
      a.add_measurement(ok_measurement(run, hx, "p.a" + std::to_string(i), 1000 + i));
    a.set_best(make_best(hx, run, "int32", 1u << 24, 1000, "policy.from.a"));
    a.set_best(make_best(hx, run, "float32", 1u << 24, 500, "float.from.a"));
  }
  {
    TuningDb b = TuningDb::open(b_path, rw());
    DeviceInfo same = h100(x);
    same.driver_version = 99999; // B's copy of the same GPU
    std::int64_t hx = b.add_device(same);
    std::int64_t hy = b.add_device(h100(y)); // a second H100: same model
    std::int64_t a1 = b.add_device(a100());
    std::int64_t run = b.begin_run(sample_run(hy));
    for (int i = 0; i < 4; ++i)
      b.add_measurement(ok_measurement(run, i % 2 ? hx : hy, "p.b" + std::to_string(i), 900 + i));
    b.set_best(make_best(hy, run, "int32", 1u << 24, 900, "policy.from.b"));  // faster
    b.set_best(make_best(hx, run, "float32", 1u << 24, 600, "float.from.b")); // slower
    b.set_best(make_best(a1, run, "int64", 1u << 20, 300, "int64.from.b"));   // new
    Baseline mc;
    mc.device_id = hy;
    mc.baseline = BaselineKind::Memcpy;
    mc.type = "int32";
    mc.size = 1u << 24;
    mc.ns = 800;
    mc.gbs = 167.8;
    mc.measured_at = "2025-01-01T00:00:00Z";
    b.add_baseline(mc);
  }
  TuningDb a = TuningDb::open(a_path, rw());
  ImportStats st = a.merge_from(b_path);
  EXPECT_EQ(st.devices_matched, 1); // by UUID
  EXPECT_EQ(st.devices_added, 2);
  EXPECT_EQ(st.runs_added, 1);
  EXPECT_EQ(st.measurements_added, 4);
  EXPECT_EQ(st.best_replaced, 1);
  EXPECT_EQ(st.best_kept, 1);
  EXPECT_EQ(st.best_added, 1);
  EXPECT_EQ(st.baselines_added, 1);

  auto devices = a.list_devices();
  ASSERT_EQ(devices.size(), 3u);
  EXPECT_EQ(devices[0].uuid, x);
  EXPECT_EQ(devices[0].driver_version, 13000); // A's own row is not overwritten
  EXPECT_EQ(a.counts().measurements, 7);
  EXPECT_EQ(a.counts().runs, 2);
  auto i32 = a.best_for(model, "int32", "sum", "", "inclusive", 1u << 24);
  ASSERT_TRUE(i32.has_value());
  EXPECT_EQ(i32->policy, "policy.from.b");
  EXPECT_EQ(i32->ns, 900);
  EXPECT_EQ(a.device(i32->device_id)->uuid, y);
  ASSERT_TRUE(i32->run_id.has_value());
  EXPECT_EQ(a.run(*i32->run_id)->device_id, i32->device_id);
  EXPECT_EQ(a.best_for(model, "float32", "sum", "", "inclusive", 1u << 24)->policy, "float.from.a");
  EXPECT_EQ(a.best_for(a100().model(), "int64", "sum", "", "inclusive", 1u << 20)->policy,
            "int64.from.b");
  EXPECT_EQ(a.check_integrity(), "ok");

  // Merging the same database again adds nothing.
  const json after_first = a.export_json();
  ImportStats again = a.merge_from(b_path);
  EXPECT_EQ(again.devices_added, 0);
  EXPECT_EQ(again.runs_added, 0);
  EXPECT_EQ(again.runs_matched, 1);
  EXPECT_EQ(again.measurements_added, 0);
  EXPECT_EQ(again.measurements_skipped, 4);
  EXPECT_EQ(again.best_kept, 3);
  EXPECT_EQ(again.baselines_kept, 1);
  EXPECT_EQ(a.export_json(), after_first);

  // And B is untouched by being merged from.
  TuningDb b = TuningDb::open(b_path, rw());
  EXPECT_EQ(b.counts().measurements, 4);
  EXPECT_EQ(b.counts().devices, 3);
}

TEST_F(TuningDbJson, MergeCompletesARunThatWasRunning) {
  TuningDb a = TuningDb::open(dir_ / "a.db", rw());
  std::int64_t dev = a.add_device(h100());
  std::int64_t run = a.begin_run(sample_run(dev));
  const json running = a.export_json();
  a.end_run(run, RunStatus::Complete);
  const json complete = a.export_json();
  TuningDb b = TuningDb::open(dir_ / "b.db", rw());
  b.import_json(running);
  EXPECT_EQ(b.list_runs()[0].status, RunStatus::Running);
  b.import_json(complete);
  EXPECT_EQ(b.list_runs().size(), 1u);
  EXPECT_EQ(b.list_runs()[0].status, RunStatus::Complete);
  EXPECT_EQ(b.list_runs()[0].ended_at, a.list_runs()[0].ended_at);
}

TEST_F(TuningDbJson, FailedImportChangesNothing) {
  TuningDb src = TuningDb::open(dir_ / "src.db", rw());
  populate(src);
  const json good = src.export_json();

  TuningDb dst = TuningDb::open(dir_ / "dst.db", rw());
  std::int64_t dev = dst.add_device(h100("GPU-99999999-0000-0000-0000-000000000000"));
  dst.set_best(make_best(dev, std::nullopt, "int32", 4096, 10, "existing"));
  const json before = dst.export_json();

  json bad = good; // fails at the very last row, after everything else was inserted
  bad["best"].back()["type"] = "int128";
  EXPECT_DB_ERROR(dst.import_json(bad), "dst.db", "import failed at best[2]",
                  "nothing was imported", "CHECK constraint failed");
  EXPECT_EQ(dst.export_json(), before);

  bad = good;
  bad["measurements"][1]["size"] = "large";
  EXPECT_DB_ERROR(dst.import_json(bad), "measurements[1]", "type must be number");
  bad = good;
  bad["measurements"][0]["run"] = 42;
  EXPECT_DB_ERROR(dst.import_json(bad), "measurements[0]", "run 42");
  bad = good;
  bad["measurements"][0]["status"] = "fast";
  EXPECT_DB_ERROR(dst.import_json(bad), "measurements[0]", "unknown measurement status");
  bad = good;
  bad["schema_version"] = kSchemaVersion + 1;
  EXPECT_DB_ERROR(dst.import_json(bad), "newer");
  EXPECT_DB_ERROR(dst.import_json(json{{"format", "something-else"}}), "\"format\"");
  EXPECT_DB_ERROR(dst.import_json(json::array()), "not a JSON object");
  EXPECT_EQ(dst.export_json(), before);
  EXPECT_EQ(dst.check_integrity(), "ok");

  write_bytes(dir_ / "broken.json", "{\"format\": \"scantune-tuning-db\", ");
  EXPECT_DB_ERROR(dst.import_file(dir_ / "broken.json"), "broken.json", "not valid JSON");
  EXPECT_DB_ERROR(dst.import_file(dir_ / "missing.json"), "missing.json", "cannot open");
  EXPECT_EQ(dst.export_json(), before);

  // A failed import inside the caller's transaction undoes only the import.
  {
    auto tx = dst.transaction();
    dst.add_device(a100());
    EXPECT_THROW(dst.import_json(json::array()), scantune::CacheError);
    tx.commit();
  }
  EXPECT_EQ(dst.counts().devices, 2);
}

TEST_F(TuningDbJson, ReadOnlyDatabaseExportsButDoesNotImport) {
  {
    TuningDb a = TuningDb::open(dir_ / "a.db", rw());
    populate(a);
  }
  auto ro_db = TuningDb::open_existing_read_only(dir_ / "a.db");
  ASSERT_TRUE(ro_db.has_value());
  const json doc = ro_db->export_json();
  EXPECT_EQ(doc.at("measurements").size(), 4u);
  EXPECT_DB_ERROR(ro_db->import_json(doc), "read-only");
}

} // namespace
} // namespace scantune::db::testing
