// cache/sqlite_db.cpp: see sqlite_db.hpp.
#include "cache/sqlite_db.hpp"

#include <limits>
#include <utility>

#include <fmt/format.h>
#include <sqlite3.h>

namespace scantune::sqlite {

std::string code_name(int rc) {
  const char* s = sqlite3_errstr(rc);
  // sqlite3_errstr gives text ("database is locked"); add the symbolic primary code.
  static const std::pair<int, const char*> names[] = {
      {SQLITE_ERROR, "SQLITE_ERROR"},         {SQLITE_INTERNAL, "SQLITE_INTERNAL"},
      {SQLITE_PERM, "SQLITE_PERM"},           {SQLITE_ABORT, "SQLITE_ABORT"},
      {SQLITE_BUSY, "SQLITE_BUSY"},           {SQLITE_LOCKED, "SQLITE_LOCKED"},
      {SQLITE_NOMEM, "SQLITE_NOMEM"},         {SQLITE_READONLY, "SQLITE_READONLY"},
      {SQLITE_INTERRUPT, "SQLITE_INTERRUPT"}, {SQLITE_IOERR, "SQLITE_IOERR"},
      {SQLITE_CORRUPT, "SQLITE_CORRUPT"},     {SQLITE_NOTFOUND, "SQLITE_NOTFOUND"},
      {SQLITE_FULL, "SQLITE_FULL"},           {SQLITE_CANTOPEN, "SQLITE_CANTOPEN"},
      {SQLITE_PROTOCOL, "SQLITE_PROTOCOL"},   {SQLITE_SCHEMA, "SQLITE_SCHEMA"},
      {SQLITE_TOOBIG, "SQLITE_TOOBIG"},       {SQLITE_CONSTRAINT, "SQLITE_CONSTRAINT"},
      {SQLITE_MISMATCH, "SQLITE_MISMATCH"},   {SQLITE_MISUSE, "SQLITE_MISUSE"},
      {SQLITE_NOLFS, "SQLITE_NOLFS"},         {SQLITE_AUTH, "SQLITE_AUTH"},
      {SQLITE_RANGE, "SQLITE_RANGE"},         {SQLITE_NOTADB, "SQLITE_NOTADB"},
  };
  for (const auto& [code, name] : names)
    if ((rc & 0xff) == code) return rc == code ? name : fmt::format("{}, extended {}", name, rc);
  return s ? s : fmt::format("code {}", rc);
}

bool is_corruption(int rc) {
  return (rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB;
}

namespace {

[[noreturn]] void throw_error(sqlite3* db, int rc, const std::string& path, std::string_view what) {
  int ext = db ? sqlite3_extended_errcode(db) : rc;
  if ((ext & 0xff) != (rc & 0xff)) ext = rc;
  const char* msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  throw SqliteError(
      fmt::format("tuning database {}: {}: {} ({})", path, what, msg ? msg : "?", code_name(ext)),
      ext);
}

} // namespace

// ---------------------------------------------------------------- Statement

Statement::Statement(sqlite3* db, std::string_view sql, const std::string* path)
    : db_(db), path_(path) {
  int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
  if (rc != SQLITE_OK) {
    std::string head(sql.substr(0, 60));
    fail(rc, fmt::format("preparing \"{}{}\"", head, sql.size() > 60 ? "..." : ""));
  }
}

Statement::~Statement() {
  if (stmt_) sqlite3_finalize(stmt_);
}

Statement::Statement(Statement&& o) noexcept
    : db_(std::exchange(o.db_, nullptr)), stmt_(std::exchange(o.stmt_, nullptr)),
      path_(std::exchange(o.path_, nullptr)) {}

Statement& Statement::operator=(Statement&& o) noexcept {
  if (this != &o) {
    if (stmt_) sqlite3_finalize(stmt_);
    db_ = std::exchange(o.db_, nullptr);
    stmt_ = std::exchange(o.stmt_, nullptr);
    path_ = std::exchange(o.path_, nullptr);
  }
  return *this;
}

void Statement::fail(int rc, std::string_view what) const {
  static const std::string unknown = "(unknown file)";
  throw_error(db_, rc, path_ ? *path_ : unknown, what);
}

Statement& Statement::bind(int i, std::int64_t v) {
  if (int rc = sqlite3_bind_int64(stmt_, i, v); rc != SQLITE_OK) fail(rc, "binding an integer");
  return *this;
}

Statement& Statement::bind(int i, std::uint64_t v) {
  if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    throw scantune::CacheError(fmt::format(
        "tuning database {}: value {} does not fit a 64-bit integer", path_ ? *path_ : "", v));
  return bind(i, static_cast<std::int64_t>(v));
}

Statement& Statement::bind(int i, double v) {
  if (int rc = sqlite3_bind_double(stmt_, i, v); rc != SQLITE_OK) fail(rc, "binding a number");
  return *this;
}

Statement& Statement::bind(int i, std::string_view v) {
  // A default-constructed view has no data pointer, which SQLite would bind as NULL.
  int rc = sqlite3_bind_text64(stmt_, i, v.data() ? v.data() : "", v.size(), SQLITE_TRANSIENT,
                               SQLITE_UTF8);
  if (rc != SQLITE_OK) fail(rc, "binding text");
  return *this;
}

Statement& Statement::bind(int i, std::nullptr_t) {
  if (int rc = sqlite3_bind_null(stmt_, i); rc != SQLITE_OK) fail(rc, "binding NULL");
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  std::string sql = sqlite3_sql(stmt_) ? sqlite3_sql(stmt_) : "";
  if (sql.size() > 60) sql = sql.substr(0, 60) + "...";
  sqlite3_reset(stmt_);
  fail(rc, fmt::format("running \"{}\"", sql));
}

void Statement::run() {
  while (step()) {
  }
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Statement::is_null(int col) const {
  return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
}
std::int64_t Statement::int64(int col) const {
  return sqlite3_column_int64(stmt_, col);
}
double Statement::real(int col) const {
  return sqlite3_column_double(stmt_, col);
}

std::string Statement::text(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  if (!p) return {};
  return std::string(reinterpret_cast<const char*>(p),
                     static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)));
}

std::optional<std::int64_t> Statement::opt_int64(int col) const {
  if (is_null(col)) return std::nullopt;
  return int64(col);
}
std::optional<double> Statement::opt_real(int col) const {
  if (is_null(col)) return std::nullopt;
  return real(col);
}
std::optional<std::string> Statement::opt_text(int col) const {
  if (is_null(col)) return std::nullopt;
  return text(col);
}

int Statement::columns() const {
  return sqlite3_column_count(stmt_);
}
std::string Statement::column_name(int col) const {
  const char* n = sqlite3_column_name(stmt_, col);
  return n ? n : "";
}

// ---------------------------------------------------------------- Connection

Connection Connection::open(const std::string& target, int flags, const std::string& display) {
  Connection c;
  *c.path_ = display.empty() ? target : display;
  int rc = sqlite3_open_v2(target.c_str(), &c.db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    // sqlite3_open_v2 may hand back a handle even on failure; report, then close it.
    std::string msg = c.db_ ? sqlite3_errmsg(c.db_) : sqlite3_errstr(rc);
    int ext = c.db_ ? sqlite3_extended_errcode(c.db_) : rc;
    sqlite3_close_v2(c.db_);
    c.db_ = nullptr;
    throw SqliteError(
        fmt::format("tuning database {}: cannot open: {} ({})", *c.path_, msg, code_name(ext)),
        ext);
  }
  sqlite3_extended_result_codes(c.db_, 1);
  return c;
}

Connection::~Connection() {
  close();
}

Connection::Connection(Connection&& o) noexcept
    : db_(std::exchange(o.db_, nullptr)), path_(std::move(o.path_)) {
  o.path_ = std::make_unique<std::string>();
}

Connection& Connection::operator=(Connection&& o) noexcept {
  if (this != &o) {
    close();
    db_ = std::exchange(o.db_, nullptr);
    path_ = std::move(o.path_);
    o.path_ = std::make_unique<std::string>();
  }
  return *this;
}

void Connection::close() {
  if (db_) {
    sqlite3_close_v2(db_);
    db_ = nullptr;
  }
}

void Connection::fail(int rc, std::string_view what) const {
  throw_error(db_, rc, *path_, what);
}

void Connection::exec(std::string_view sql) {
  std::string s(sql);
  char* err = nullptr;
  int rc = sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    int ext = sqlite3_extended_errcode(db_);
    if ((ext & 0xff) != (rc & 0xff)) ext = rc;
    std::string head = s.substr(0, 60);
    throw SqliteError(fmt::format("tuning database {}: running \"{}{}\": {} ({})", *path_, head,
                                  s.size() > 60 ? "..." : "", msg, code_name(ext)),
                      ext);
  }
}

Statement Connection::prepare(std::string_view sql) const {
  return Statement(db_, sql, path_.get());
}

std::int64_t Connection::query_int(std::string_view sql) const {
  Statement st = prepare(sql);
  return st.step() ? st.int64(0) : 0;
}

std::string Connection::query_text(std::string_view sql) const {
  Statement st = prepare(sql);
  return st.step() ? st.text(0) : std::string();
}

std::int64_t Connection::last_insert_rowid() const {
  return sqlite3_last_insert_rowid(db_);
}
std::int64_t Connection::changes() const {
  return sqlite3_changes64(db_);
}
bool Connection::autocommit() const {
  return sqlite3_get_autocommit(db_) != 0;
}

} // namespace scantune::sqlite
