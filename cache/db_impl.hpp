// cache/db_impl.hpp: internals of TuningDb shared by tuning_db.cpp and db_json.cpp.
#pragma once

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

} // namespace scantune::db
