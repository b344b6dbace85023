// tests/cache/tuning_db_test_util.hpp: helpers shared by the tuning_db_*_test.cpp files.
#pragma once

#include <sqlite3.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cache/tuning_db.hpp"
#include "common/expect_error.hpp"
#include "common/scoped_env.hpp"

namespace scantune::db::testing {

namespace fs = std::filesystem;

/// A fresh directory per test, removed afterwards.
class TempDir {
public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "scantune-dbtest-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& name) const { return path_ / name; }

private:
  fs::path path_;
};

/// An environment variable set (or, with nullopt, unset) for one scope.
using EnvGuard = test::ScopedEnv;

inline std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

/// Sorted names of the entries of `dir`.
inline std::vector<std::string> list_dir(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// Runs SQL on a file with the plain SQLite API (no scantune checks).
inline void raw_exec(const fs::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  std::string msg = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << msg;
}

/// The first column of the first row of `sql`, read with the plain SQLite API
/// through a read-only connection.
inline std::string raw_query(const fs::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string out;
  if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
      out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return out;
}

inline DeviceInfo h100(std::string uuid = "GPU-0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0") {
  DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.memory_bus_bits = 5120;
  d.memory_clock_khz = 2619000;
  d.bandwidth_gbs = 3352.32;
  d.l2_bytes = 52428800;
  d.driver_version = 13000;
  d.runtime_version = 13000;
  d.uuid = std::move(uuid);
  return d;
}

inline DeviceInfo a100(std::string uuid = "GPU-11111111-2222-3333-4444-555555555555") {
  DeviceInfo d;
  d.name = "NVIDIA A100-SXM4-40GB";
  d.cc_major = 8;
  d.cc_minor = 0;
  d.sm_count = 108;
  d.memory_bus_bits = 5120;
  d.memory_clock_khz = 1215000;
  d.bandwidth_gbs = 1555.2;
  d.l2_bytes = 41943040;
  d.driver_version = 12040;
  d.runtime_version = 12040;
  d.uuid = std::move(uuid);
  return d;
}

inline RunInfo sample_run(std::int64_t device_id) {
  RunInfo r;
  r.device_id = device_id;
  r.library_version = "0.1.0";
  r.template_hash = "9f2c4e1a";
  r.nvrtc_version = "13.0";
  r.command_line = "scantune tune --type int32 --op sum";
  r.host = "gpu-node-7";
  return r;
}

/// A best entry for int32 inclusive sum of `size` elements.
inline BestEntry make_best(std::int64_t dev, std::optional<std::int64_t> run, std::string type,
                           std::uint64_t size, double ns, std::string policy) {
  BestEntry e;
  e.device_id = dev;
  e.run_id = run;
  e.type = std::move(type);
  e.op = "sum";
  e.kind = "inclusive";
  e.size = size;
  e.policy = std::move(policy);
  e.ns = ns;
  e.gbs = 8.0 * static_cast<double>(size) / ns;
  e.updated_at = "2025-03-04T05:06:07Z";
  return e;
}

inline Measurement ok_measurement(std::int64_t run, std::int64_t device, std::string policy,
                                  double ns, std::uint64_t size = 1u << 24,
                                  std::string type = "int32") {
  Measurement m;
  m.run_id = run;
  m.device_id = device;
  m.type = std::move(type);
  m.op = "sum";
  m.kind = "inclusive";
  m.size = size;
  m.policy = std::move(policy);
  m.status = MeasurementStatus::Ok;
  m.median_ns = ns;
  m.min_ns = ns * 0.98;
  m.max_ns = ns * 1.05;
  m.samples = 20;
  m.gbs = 2.0 * 4.0 * static_cast<double>(size) / ns;
  m.registers = 40;
  m.spill_bytes = 0;
  return m;
}

/// Options for a test open: read-write, journal mode given explicitly so the
/// caller's environment does not matter.
inline OpenOptions rw(JournalMode j = JournalMode::Wal) {
  OpenOptions o;
  o.journal = j;
  return o;
}
inline OpenOptions ro() {
  OpenOptions o;
  o.mode = OpenMode::ReadOnly;
  return o;
}

#define EXPECT_DB_ERROR EXPECT_ERROR_NAMING

} // namespace scantune::db::testing
