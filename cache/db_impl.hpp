// cache/db_impl.hpp: internals of TuningDb shared by tuning_db.cpp and db_json.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <filesystem>
#include <string>
#include <unordered_map>

#include "cache/sqlite_db.hpp"
#include "cache/tuning_db.hpp"

namespace scantune::db {

struct TuningDb::Impl {
  sqlite::Connection conn;
  std::filesystem::path path;
  std::string display; // path as text, for messages
  bool read_only = false;
  JournalMode journal = JournalMode::Wal;
  int version = 0;
  bool in_user_transaction = false;
  std::unordered_map<std::string, sqlite::Statement> cache;

  /// A cached prepared statement, reset and ready for binding.
  sqlite::Statement& stmt(const std::string& sql);
  /// Throws unless the database was opened read-write.
  void require_writable(std::string_view what) const;
  [[noreturn]] void fail(const std::string& problem) const;
};

/// Resets a statement when the scope ends (so no read transaction stays open).
class StmtUse {
public:
  explicit StmtUse(sqlite::Statement& s) : s_(s) {}
  ~StmtUse() { s_.reset(); }
  StmtUse(const StmtUse&) = delete;
  StmtUse& operator=(const StmtUse&) = delete;
  sqlite::Statement* operator->() { return &s_; }
  sqlite::Statement& operator*() { return s_; }
  /// The first row, converted by `read`, or nothing.
  template <class Read>
  auto first(Read read) -> std::optional<decltype(read(std::declval<sqlite::Statement&>()))> {
    if (!s_.step()) return std::nullopt;
    return read(s_);
  }
  /// Every row, converted by `read`.
  template <class Read>
  auto all(Read read) -> std::vector<decltype(read(std::declval<sqlite::Statement&>()))> {
    std::vector<decltype(read(s_))> out;
    while (s_.step())
      out.push_back(read(s_));
    return out;
  }

private:
  sqlite::Statement& s_;
};

/// BEGIN IMMEDIATE ... COMMIT around one API call, unless a transaction is already
/// open (then the call joins it). Rolls back when destroyed uncommitted.
class WriteScope {
public:
  explicit WriteScope(TuningDb::Impl& db);
  ~WriteScope();
  WriteScope(const WriteScope&) = delete;
  WriteScope& operator=(const WriteScope&) = delete;
  void commit();

private:
  TuningDb::Impl& db_;
  bool own_ = false;
};

// Row readers shared by queries and the JSON export. Column order is that of the
// k*Columns strings.
extern const char* const kDeviceColumns;
extern const char* const kRunColumns;
extern const char* const kMeasurementColumns;
extern const char* const kBaselineColumns;
extern const char* const kBestColumns;
DeviceInfo read_device(const sqlite::Statement& s);
RunInfo read_run(const sqlite::Statement& s);
Measurement read_measurement(const sqlite::Statement& s);
Baseline read_baseline(const sqlite::Statement& s);
BestEntry read_best(const sqlite::Statement& s);

/// A random 128-bit id as 32 lowercase hex digits.
std::string random_uid();

// Row writers: the one place that holds how rows are matched and merged. The public
// add/set calls and the JSON import both write through them. None opens a
// transaction: callers hold a WriteScope.

/// What a write did to the row of its key.
enum class Stored { Added, Replaced, Kept };

/// The device `d` is: the one with its UUID, or (no UUID) the first of its model
/// among devices without UUID.
std::optional<std::int64_t> find_device(TuningDb::Impl& im, const DeviceInfo& d);
/// Inserts `d` as a new device, or overwrites the fields of device `id`.
std::int64_t write_device(TuningDb::Impl& im, const DeviceInfo& d, std::optional<std::int64_t> id);
/// The run with this uid (merges match runs by it).
std::optional<RunInfo> find_run(TuningDb::Impl& im, const std::string& uid);
/// Inserts a run as given (empty uid: a new random one; empty started_at: now).
std::int64_t insert_run(TuningDb::Impl& im, const RunInfo& r);
/// Sets the status and end of run `id`; false when there is no such run.
bool finish_run(TuningDb::Impl& im, std::int64_t id, RunStatus status,
                const std::optional<std::string>& ended_at);
std::int64_t insert_measurement(TuningDb::Impl& im, const Measurement& m);
/// Whether the database holds a measurement equal to `m` (its id, gbs, registers
/// and spill aside): merges skip those of runs they already hold.
bool has_measurement(TuningDb::Impl& im, const Measurement& m);
/// One baseline per (device, baseline, type, op, op_hash, kind, size); with
/// `if_faster`, an existing one is replaced only by a lower ns.
Stored store_baseline(TuningDb::Impl& im, const Baseline& b, bool if_faster);
/// One entry per (model, type, op, op_hash, kind, size bucket), per `mode`.
Stored store_best(TuningDb::Impl& im, const BestEntry& e, BestMode mode);

} // namespace scantune::db
