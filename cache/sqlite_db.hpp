// cache/sqlite_db.hpp: a thin RAII layer over the SQLite C API, used by the tuning
// database (cache/tuning_db.*). Every failure throws scantune::CacheError whose message
// names the database file, what was being done and SQLite's own explanation.
//
//   auto c = sqlite::Connection::open(path, SQLITE_OPEN_READONLY);
//   auto st = c.prepare("SELECT policy FROM best WHERE type = ?1");
//   st.bind(1, "int32");
//   while (st.step()) std::puts(st.text(0).c_str());
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "cache/cache_error.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace scantune::sqlite {

/// A failed SQLite call; code() is SQLite's extended result code.
class SqliteError : public scantune::CacheError {
public:
  SqliteError(const std::string& what, int code) : scantune::CacheError(what), code_(code) {}
  int code() const { return code_; }

private:
  int code_;
};

/// One prepared statement. Parameters are 1-based, columns 0-based (as in SQLite).
class Statement {
public:
  Statement() = default;
  Statement(sqlite3* db, std::string_view sql, const std::string* path);
  ~Statement();
  Statement(Statement&& o) noexcept;
  Statement& operator=(Statement&& o) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, std::int64_t v);
  Statement& bind(int i, int v) { return bind(i, static_cast<std::int64_t>(v)); }
  Statement& bind(int i, std::uint64_t v); ///< throws when v > INT64_MAX
  Statement& bind(int i, double v);
  Statement& bind(int i, std::string_view v);
  Statement& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
  Statement& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
  Statement& bind(int i, std::nullptr_t);
  template <class T>
  Statement& bind(int i, const std::optional<T>& v) {
    return v ? bind(i, *v) : bind(i, nullptr);
  }

  /// Runs one step: true when a row is available, false when done. Throws on error.
  bool step();
  /// Steps to completion, expecting no rows.
  void run();
  /// Resets and clears bindings so the statement can be reused.
  void reset();

  bool is_null(int col) const;
  std::int64_t int64(int col) const;
  double real(int col) const;
  std::string text(int col) const;
  std::optional<std::int64_t> opt_int64(int col) const;
  std::optional<double> opt_real(int col) const;
  std::optional<std::string> opt_text(int col) const;
  int columns() const;
  std::string column_name(int col) const;

  sqlite3_stmt* get() const { return stmt_; }

private:
  [[noreturn]] void fail(int rc, std::string_view what) const;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  const std::string* path_ = nullptr; // owned by the Connection
};

/// One SQLite connection, closed on destruction.
class Connection {
public:
  Connection() = default;
  /// Opens `target` (a file name, or a "file:" URI when `flags` has SQLITE_OPEN_URI).
  /// `display` is the path used in error messages (defaults to `target`).
  static Connection open(const std::string& target, int flags, const std::string& display = {});
  ~Connection();
  Connection(Connection&& o) noexcept;
  Connection& operator=(Connection&& o) noexcept;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  explicit operator bool() const { return db_ != nullptr; }
  sqlite3* get() const { return db_; }
  const std::string& path() const { return *path_; }

  /// Runs one or more statements that return no rows of interest.
  void exec(std::string_view sql);
  Statement prepare(std::string_view sql) const;
  /// The first column of the first row of `sql` as an integer (0 when no row).
  std::int64_t query_int(std::string_view sql) const;
  std::string query_text(std::string_view sql) const;
  std::int64_t last_insert_rowid() const;
  std::int64_t changes() const;
  bool autocommit() const;
  void close();

  /// An Error naming this connection's file: "<path>: <what>: <sqlite message> (<code>)".
  [[noreturn]] void fail(int rc, std::string_view what) const;

private:
  sqlite3* db_ = nullptr;
  // Heap-allocated so that Statements can keep a stable pointer across moves.
  std::unique_ptr<std::string> path_ = std::make_unique<std::string>();
};

/// SQLite's name for a (possibly extended) result code, e.g. "SQLITE_BUSY".
std::string code_name(int rc);
/// True for SQLITE_CORRUPT and SQLITE_NOTADB (any extended code).
bool is_corruption(int rc);

} // namespace scantune::sqlite
