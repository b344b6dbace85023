// cache/tuning_db.cpp: opening, validating, migrating and querying the tuning
// database. JSON export/import lives in db_json.cpp, the SQL in db_schema.cpp.
//
// Opening an existing file never trusts it before looking:
//   1. the first 100 bytes are read with plain file I/O (no SQLite): magic string,
//      application_id, user_version and journal format;
//   2. a read-only SQLite connection (immutable when the header says WAL and there
//      is no -wal file, so that no -wal/-shm file is created) re-reads the pragmas
//      and runs PRAGMA quick_check (or integrity_check);
//   3. only then is the file opened read-write, the journal mode set and the
//      schema created or migrated, one version per BEGIN IMMEDIATE transaction.
// A file that fails 1 or 2 is reported and left exactly as it was.
#include "cache/tuning_db.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <pwd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <sqlite3.h>

#include "cache/db_impl.hpp"

namespace fs = std::filesystem;

namespace scantune::db {

// ================================================================ small helpers

fs::path default_db_path(const std::string& explicit_path) {
  if (!explicit_path.empty()) return fs::path(explicit_path);
  if (const char* env = std::getenv("SCANTUNE_DB"); env && *env) return fs::path(env);
  // XDG Base Directory: a relative XDG_DATA_HOME is invalid and must be ignored.
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg && xdg[0] == '/')
    return fs::path(xdg) / "scantune" / "tuning.db";
  std::string home;
  if (const char* h = std::getenv("HOME"); h && *h) {
    home = h;
  } else if (const passwd* pw = getpwuid(getuid()); pw && pw->pw_dir) {
    home = pw->pw_dir;
  }
  if (home.empty())
    throw scantune::CacheError("tuning database: cannot find a default location (HOME and "
                               "XDG_DATA_HOME are unset); set SCANTUNE_DB");
  return fs::path(home) / ".local" / "share" / "scantune" / "tuning.db";
}

JournalMode journal_mode_from_env() {
  const char* env = std::getenv("SCANTUNE_DB_JOURNAL");
  if (!env || !*env) return JournalMode::Wal;
  std::string v(env);
  for (char& ch : v)
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (v == "wal") return JournalMode::Wal;
  if (v == "delete") return JournalMode::Delete;
  throw scantune::CacheError(
      fmt::format("SCANTUNE_DB_JOURNAL={}: expected \"wal\" (the default) or \"delete\"", env));
}

std::string DeviceInfo::model() const {
  return fmt::format("{} (sm_{}{}, {} SMs)", name, cc_major, cc_minor, sm_count);
}

bool operator==(const DeviceInfo& a, const DeviceInfo& b) {
  return a.id == b.id && a.name == b.name && a.cc_major == b.cc_major && a.cc_minor == b.cc_minor &&
         a.sm_count == b.sm_count && a.memory_bus_bits == b.memory_bus_bits &&
         a.memory_clock_khz == b.memory_clock_khz && a.bandwidth_gbs == b.bandwidth_gbs &&
         a.l2_bytes == b.l2_bytes && a.driver_version == b.driver_version &&
         a.runtime_version == b.runtime_version && a.uuid == b.uuid;
}

bool operator==(const RunInfo& a, const RunInfo& b) {
  return a.id == b.id && a.uid == b.uid && a.device_id == b.device_id &&
         a.started_at == b.started_at && a.ended_at == b.ended_at &&
         a.library_version == b.library_version && a.template_hash == b.template_hash &&
         a.nvrtc_version == b.nvrtc_version && a.command_line == b.command_line &&
         a.host == b.host && a.status == b.status;
}

bool operator==(const Measurement& a, const Measurement& b) {
  return a.id == b.id && a.run_id == b.run_id && a.device_id == b.device_id && a.type == b.type &&
         a.op == b.op && a.op_hash == b.op_hash && a.kind == b.kind && a.size == b.size &&
         a.policy == b.policy && a.status == b.status && a.median_ns == b.median_ns &&
         a.min_ns == b.min_ns && a.max_ns == b.max_ns && a.samples == b.samples && a.gbs == b.gbs &&
         a.registers == b.registers && a.spill_bytes == b.spill_bytes && a.message == b.message &&
         a.problem == b.problem;
}

bool operator==(const Baseline& a, const Baseline& b) {
  return a.id == b.id && a.device_id == b.device_id && a.run_id == b.run_id &&
         a.baseline == b.baseline && a.type == b.type && a.op == b.op && a.op_hash == b.op_hash &&
         a.kind == b.kind && a.size == b.size && a.ns == b.ns && a.gbs == b.gbs &&
         a.measured_at == b.measured_at && a.problem == b.problem;
}

bool operator==(const BestEntry& a, const BestEntry& b) {
  return a.id == b.id && a.model == b.model && a.device_id == b.device_id && a.run_id == b.run_id &&
         a.type == b.type && a.op == b.op && a.op_hash == b.op_hash && a.kind == b.kind &&
         a.size == b.size && a.size_bucket == b.size_bucket && a.policy == b.policy &&
         a.ns == b.ns && a.gbs == b.gbs && a.updated_at == b.updated_at && a.problem == b.problem &&
         a.lower_policy == b.lower_policy && a.lower_upto == b.lower_upto;
}

namespace {

template <class E, std::size_t N>
E parse_enum(std::string_view s, const std::array<std::string_view, N>& names,
             std::string_view what) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == s) return static_cast<E>(i);
  std::string list;
  for (auto n : names)
    list += fmt::format("{}{}", list.empty() ? "" : ", ", n);
  throw scantune::CacheError(fmt::format("unknown {} \"{}\" (expected one of {})", what, s, list));
}

constexpr std::array<std::string_view, 3> kRunStatusNames = {"running", "complete", "interrupted"};
constexpr std::array<std::string_view, 6> kMeasurementStatusNames = {
    "ok", "compile_error", "launch_error", "wrong_result", "timeout", "rejected"};
constexpr std::array<std::string_view, 2> kBaselineNames = {"memcpy", "cub"};

} // namespace

std::string_view to_string(RunStatus s) {
  return kRunStatusNames[static_cast<int>(s)];
}
RunStatus parse_run_status(std::string_view s) {
  return parse_enum<RunStatus>(s, kRunStatusNames, "run status");
}
std::string_view to_string(MeasurementStatus s) {
  return kMeasurementStatusNames[static_cast<int>(s)];
}
MeasurementStatus parse_measurement_status(std::string_view s) {
  return parse_enum<MeasurementStatus>(s, kMeasurementStatusNames, "measurement status");
}
std::string_view to_string(BaselineKind k) {
  return kBaselineNames[static_cast<int>(k)];
}
BaselineKind parse_baseline_kind(std::string_view s) {
  return parse_enum<BaselineKind>(s, kBaselineNames, "baseline");
}

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string random_uid() {
  std::random_device rd; // /dev/urandom: distinct in forked processes too
  return fmt::format("{:08x}{:08x}{:08x}{:08x}", rd(), rd(), rd(), rd());
}

// ================================================================ Impl

sqlite::Statement& TuningDb::Impl::stmt(const std::string& sql) {
  auto it = cache.find(sql);
  if (it == cache.end()) it = cache.emplace(sql, conn.prepare(sql)).first;
  it->second.reset();
  return it->second;
}

void TuningDb::Impl::require_writable(std::string_view what) const {
  if (read_only) fail(fmt::format("opened read-only, cannot {}", what));
}

void TuningDb::Impl::fail(const std::string& problem) const {
  throw scantune::CacheError(fmt::format("tuning database {}: {}", display, problem));
}

WriteScope::WriteScope(TuningDb::Impl& db) : db_(db) {
  if (db_.conn.autocommit()) {
    db_.conn.exec("BEGIN IMMEDIATE");
    own_ = true;
  }
}

WriteScope::~WriteScope() {
  if (own_ && !db_.conn.autocommit())
    sqlite3_exec(db_.conn.get(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void WriteScope::commit() {
  if (own_) {
    db_.conn.exec("COMMIT");
    own_ = false;
  }
}

// ================================================================ opening

namespace {

constexpr int kHeaderSize = 100;
constexpr char kMagic[] = "SQLite format 3"; // 16 bytes with its NUL

std::uint32_t be32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

struct FileHeader {
  bool exists = false;
  std::uintmax_t size = 0;
  bool wal = false; // header bytes 18/19 == 2
  std::uint32_t application_id = 0;
  std::int32_t user_version = 0;
  std::uint32_t schema_cookie = 0;
};

[[noreturn]] void bad_file(const std::string& p, const std::string& problem) {
  throw scantune::CacheError(
      fmt::format("tuning database {}: {}; the file was not modified", p, problem));
}

std::string foreign_problem(std::uint32_t app_id) {
  return fmt::format("not a scantune tuning database: it is an SQLite database of another "
                     "application (application_id 0x{:08x}, scantune uses 0x{:08x})",
                     app_id, kApplicationId);
}

std::string newer_problem(std::int64_t v) {
  return fmt::format("schema version {} is newer than version {}, the newest this scantune "
                     "knows; use a newer scantune or another database file (SCANTUNE_DB)",
                     v, kSchemaVersion);
}

std::string corrupt_problem(const std::string& detail) {
  return fmt::format("the database is corrupt ({}); move it aside (a new one is created on the "
                     "next tuning run) or restore a backup",
                     detail);
}

// Step 1: plain file I/O, no SQLite.
FileHeader read_header(const fs::path& path, const std::string& p) {
  FileHeader h;
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) {
    if (ec && ec != std::errc::no_such_file_or_directory)
      throw scantune::CacheError(
          fmt::format("tuning database {}: cannot inspect: {}", p, ec.message()));
    return h;
  }
  if (fs::is_directory(st)) bad_file(p, "is a directory, not a database file");
  if (!fs::is_regular_file(st)) bad_file(p, "is not a regular file");
  h.exists = true;
  h.size = fs::file_size(path, ec);
  if (ec)
    throw scantune::CacheError(
        fmt::format("tuning database {}: cannot inspect: {}", p, ec.message()));
  if (h.size == 0) return h;
  unsigned char b[kHeaderSize] = {};
  std::ifstream in(path, std::ios::binary);
  if (!in) throw scantune::CacheError(fmt::format("tuning database {}: cannot read the file", p));
  in.read(reinterpret_cast<char*>(b), kHeaderSize);
  auto got = in.gcount();
  if (got < 16 || std::memcmp(b, kMagic, 16) != 0)
    bad_file(p, "not a scantune tuning database: the file is not an SQLite database (it does not "
                "start with \"SQLite format 3\")");
  if (got < kHeaderSize)
    bad_file(p, corrupt_problem(fmt::format("the file is only {} bytes long", h.size)));
  h.wal = b[18] == 2 || b[19] == 2;
  h.schema_cookie = be32(b + 40);
  h.user_version = static_cast<std::int32_t>(be32(b + 60));
  h.application_id = be32(b + 68);
  return h;
}

// Percent-encodes a path for a "file:" URI.
std::string file_uri(const std::string& p, bool immutable) {
  std::string u = "file:";
  for (unsigned char ch : p) {
    if (std::isalnum(ch) || ch == '/' || ch == '-' || ch == '_' || ch == '.' || ch == '~')
      u += static_cast<char>(ch);
    else
      u += fmt::format("%{:02X}", ch);
  }
  u += "?mode=ro";
  if (immutable) u += "&immutable=1";
  return u;
}

bool exists_file(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

struct Probe {
  bool is_new = false;         // application_id 0, user_version 0, no tables
  bool needs_recovery = false; // a hot rollback journal: a writer died mid-transaction
  std::int64_t version = 0;
};

// Step 2: a read-only connection that creates no files.
Probe probe(const std::string& p, const FileHeader& h, IntegrityCheck check, int busy_ms) {
  for (int attempt = 0;; ++attempt) {
    bool wal_present = exists_file(p + "-wal");
    bool immutable = h.wal && !wal_present;
    Probe r;
    try {
      sqlite::Connection c = sqlite::Connection::open(file_uri(p, immutable),
                                                      SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, p);
      sqlite3_busy_timeout(c.get(), busy_ms);
      auto app = static_cast<std::uint32_t>(c.query_int("PRAGMA application_id"));
      r.version = c.query_int("PRAGMA user_version");
      std::int64_t objects = c.query_int("SELECT count(*) FROM sqlite_schema");
      if (app == 0 && r.version == 0 && objects == 0) {
        r.is_new = true;
        return r;
      }
      if (app != kApplicationId) {
        bad_file(p, app == 0 ? "not a scantune tuning database: it is an SQLite database of "
                               "another application (tables present, application_id 0)"
                             : foreign_problem(app));
      }
      if (r.version > kSchemaVersion) bad_file(p, newer_problem(r.version));
      if (r.version < 1) bad_file(p, fmt::format("invalid schema version {}", r.version));
      if (check != IntegrityCheck::None) {
        auto st = c.prepare(check == IntegrityCheck::Full ? "PRAGMA integrity_check(20)"
                                                          : "PRAGMA quick_check(20)");
        std::vector<std::string> lines;
        while (st.step()) {
          std::string text = st.text(0);
          for (std::size_t b = 0; b < text.size();) {
            std::size_t e = std::min(text.find('\n', b), text.size());
            std::string line = text.substr(b, e - b);
            if (line != "ok" && line.rfind("*** in database", 0) != 0) lines.push_back(line);
            b = e + 1;
          }
        }
        if (!lines.empty()) {
          std::string problems;
          for (std::size_t k = 0; k < lines.size() && k < 3; ++k)
            problems += (k ? "; " : "") + lines[k];
          if (lines.size() > 3) problems += fmt::format("; and {} more", lines.size() - 3);
          // An immutable read can race a writer that appeared after we looked for
          // the -wal file (a checkpoint rewrites pages): look again normally.
          if (immutable && attempt == 0 && exists_file(p + "-wal")) continue;
          bad_file(p, corrupt_problem(problems));
        }
      }
      return r;
    } catch (const sqlite::SqliteError& e) {
      if (e.code() == SQLITE_READONLY_ROLLBACK) {
        r.needs_recovery = true;
        r.version = h.user_version;
        return r;
      }
      if (sqlite::is_corruption(e.code())) {
        if (immutable && attempt == 0 && exists_file(p + "-wal")) continue;
        bad_file(p, corrupt_problem(e.what()));
      }
      throw;
    }
  }
}

int wants_create(bool create) {
  return create ? SQLITE_OPEN_CREATE : 0;
}

struct Look {
  FileHeader header;
  Probe probe;
};

// Steps 1 and 2, looked at up to three times before a verdict against the file stands:
// a plain read of the header, or an immutable read, can tear while another process's
// checkpoint rewrites page 1 (four processes creating one database: one read "tables
// present, application_id 0" under load). A file that really fails fails every look;
// only the error path waits (20, then 40 ms).
Look look_at(const fs::path& path, const std::string& p, const OpenOptions& options) {
  for (int attempt = 0;; ++attempt) {
    try {
      Look l;
      l.header = read_header(path, p);
      const FileHeader& h = l.header;
      l.probe.is_new = !h.exists || h.size == 0;
      if (l.probe.is_new) return l;
      // Step 1. A WAL file's header can lag behind its -wal file; only trust the
      // header alone when there is no -wal file.
      if (!(h.wal && exists_file(p + "-wal"))) {
        if (h.application_id != kApplicationId && h.application_id != 0)
          bad_file(p, foreign_problem(h.application_id));
        if (h.application_id == 0 && (h.schema_cookie != 0 || h.user_version != 0))
          bad_file(p, "not a scantune tuning database: it is an SQLite database of another "
                      "application (tables present, application_id 0)");
        if (h.application_id == kApplicationId && h.user_version > kSchemaVersion)
          bad_file(p, newer_problem(h.user_version));
      }
      l.probe = probe(p, h, options.check, options.busy_timeout_ms); // step 2
      return l;
    } catch (const scantune::CacheError&) {
      if (attempt == 2) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(20 << attempt));
    }
  }
}

} // namespace

TuningDb::TuningDb(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TuningDb::TuningDb(TuningDb&&) noexcept = default;
TuningDb& TuningDb::operator=(TuningDb&&) noexcept = default;
TuningDb::~TuningDb() {
  if (impl_) impl_->cache.clear(); // finalize statements before the connection closes
}

TuningDb TuningDb::open(const fs::path& path, OpenOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->display = path.string();
  const std::string& p = impl->display;
  const bool ro = options.mode == OpenMode::ReadOnly;
  impl->read_only = ro;
  // Read the environment before touching anything, so a bad value changes nothing.
  JournalMode want = JournalMode::Wal;
  if (!ro) want = options.journal ? *options.journal : journal_mode_from_env();

  const Look look = look_at(path, p, options);
  const FileHeader& h = look.header;
  if (ro && (!h.exists || h.size == 0))
    throw NoDatabaseError(fmt::format("tuning database {}: no database ({})", p,
                                      h.exists ? "the file is empty" : "the file does not exist"));
  const Probe pr = look.probe;

  if (ro) {
    if (pr.is_new)
      throw NoDatabaseError(
          fmt::format("tuning database {}: no database (an empty SQLite file)", p));
    if (pr.needs_recovery)
      impl->fail("a writer was interrupted mid-transaction (hot journal); open the database "
                 "read-write once (e.g. run the tuner) to recover it");
    if (pr.version < kSchemaVersion)
      impl->fail(fmt::format("schema version {} is older than version {}; open it read-write "
                             "once (e.g. run the tuner) to migrate it",
                             pr.version, kSchemaVersion));
    auto open_ro = [&](bool immutable) {
      impl->conn = sqlite::Connection::open(file_uri(p, immutable),
                                            SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, p);
      sqlite3_busy_timeout(impl->conn.get(), options.busy_timeout_ms);
      return impl->conn.query_int("PRAGMA user_version");
    };
    std::int64_t v = 0;
    try {
      v = open_ro(false);
    } catch (const sqlite::SqliteError& e) {
      // A WAL database in a directory we cannot write: no -shm can be created.
      int primary = e.code() & 0xff;
      if (!h.wal || (primary != SQLITE_CANTOPEN && primary != SQLITE_READONLY)) throw;
      v = open_ro(true);
    }
    if (v != kSchemaVersion)
      impl->fail(fmt::format("schema version changed to {} while opening", v));
    impl->version = static_cast<int>(v);
    // The file's own mode (an immutable read would report "delete" for a WAL file).
    impl->journal = h.wal || impl->conn.query_text("PRAGMA journal_mode") == "wal"
                        ? JournalMode::Wal
                        : JournalMode::Delete;
    return TuningDb(std::move(impl));
  }

  // Step 3: read-write.
  if (!h.exists) {
    std::error_code ec;
    if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
    if (ec)
      impl->fail(fmt::format("cannot create the directory {}: {}", path.parent_path().string(),
                             ec.message()));
  }
  sqlite::Connection& c = impl->conn;
  c = sqlite::Connection::open(p, SQLITE_OPEN_READWRITE | wants_create(!h.exists), p);
  sqlite3_busy_timeout(c.get(), options.busy_timeout_ms);
  if (pr.needs_recovery) {
    // The first read rolls the hot journal back (SQLite's own recovery); then check.
    try {
      auto app = static_cast<std::uint32_t>(c.query_int("PRAGMA application_id"));
      if (app != kApplicationId && app != 0) impl->fail(foreign_problem(app));
      if (options.check != IntegrityCheck::None) {
        std::string res =
            c.query_text(options.check == IntegrityCheck::Full ? "PRAGMA integrity_check(1)"
                                                               : "PRAGMA quick_check(1)");
        if (res != "ok") impl->fail(corrupt_problem(res));
      }
    } catch (const sqlite::SqliteError& e) {
      if (sqlite::is_corruption(e.code())) impl->fail(corrupt_problem(e.what()));
      throw;
    }
  }
  c.exec("PRAGMA foreign_keys = ON");
  {
    const char* mode = want == JournalMode::Wal ? "WAL" : "DELETE";
    std::string got;
    try {
      got = c.query_text(fmt::format("PRAGMA journal_mode = {}", mode));
    } catch (const sqlite::SqliteError& e) {
      // Leaving WAL needs every other connection closed; if others are busy with
      // the file, keep its current mode rather than fail.
      if ((e.code() & 0xff) != SQLITE_BUSY && (e.code() & 0xff) != SQLITE_LOCKED) throw;
      got = c.query_text("PRAGMA journal_mode");
    }
    impl->journal = got == "wal" ? JournalMode::Wal : JournalMode::Delete;
    c.exec(impl->journal == JournalMode::Wal ? "PRAGMA synchronous = NORMAL"
                                             : "PRAGMA synchronous = FULL");
  }

  // Create or migrate: each step in its own BEGIN IMMEDIATE transaction, re-reading
  // the version inside it (another process may have done the step meanwhile).
  for (;;) {
    WriteScope tx(*impl);
    auto app = static_cast<std::uint32_t>(c.query_int("PRAGMA application_id"));
    std::int64_t v = c.query_int("PRAGMA user_version");
    std::int64_t objects = c.query_int("SELECT count(*) FROM sqlite_schema");
    if (app == 0 && v == 0 && objects == 0) {
      try {
        create_schema(c);
      } catch (const scantune::CacheError& e) {
        impl->fail(fmt::format("creating the schema failed: {}", e.what()));
      }
      tx.commit();
      impl->version = kSchemaVersion;
      break;
    }
    if (app != kApplicationId) impl->fail(foreign_problem(app));
    if (v > kSchemaVersion) impl->fail(newer_problem(v));
    if (v < 1) impl->fail(fmt::format("invalid schema version {}", v));
    if (v == kSchemaVersion) {
      tx.commit();
      impl->version = kSchemaVersion;
      break;
    }
    try {
      apply_migration(c, static_cast<int>(v));
    } catch (const scantune::CacheError& e) {
      impl->fail(fmt::format("migration from schema version {} to {} ({}) failed, the file "
                             "stays at version {}: {}",
                             v, v + 1, migration_description(static_cast<int>(v)), v, e.what()));
    }
    tx.commit();
  }
  return TuningDb(std::move(impl));
}

std::optional<TuningDb> TuningDb::open_existing_read_only(const fs::path& path,
                                                          OpenOptions options) {
  options.mode = OpenMode::ReadOnly;
  try {
    return open(path, options);
  } catch (const NoDatabaseError&) {
    return std::nullopt;
  }
}

const fs::path& TuningDb::path() const {
  return impl_->path;
}
int TuningDb::schema_version() const {
  return impl_->version;
}
bool TuningDb::read_only() const {
  return impl_->read_only;
}
JournalMode TuningDb::journal_mode() const {
  return impl_->journal;
}

// ================================================================ transactions

TuningDb::Transaction::Transaction(TuningDb* db) : db_(db) {
  Impl& im = *db_->impl_;
  im.require_writable("write");
  if (im.in_user_transaction || !im.conn.autocommit())
    im.fail("a transaction is already open on this connection");
  im.conn.exec("BEGIN IMMEDIATE");
  im.in_user_transaction = true;
}

TuningDb::Transaction::Transaction(Transaction&& o) noexcept : db_(std::exchange(o.db_, nullptr)) {}

TuningDb::Transaction::~Transaction() {
  if (db_) {
    Impl& im = *db_->impl_;
    if (!im.conn.autocommit()) sqlite3_exec(im.conn.get(), "ROLLBACK", nullptr, nullptr, nullptr);
    im.in_user_transaction = false;
  }
}

void TuningDb::Transaction::commit() {
  if (!db_) throw scantune::CacheError("tuning database: transaction already finished");
  Impl& im = *db_->impl_;
  im.conn.exec("COMMIT"); // on failure (SQLITE_BUSY) the destructor rolls back
  im.in_user_transaction = false;
  db_ = nullptr;
}

void TuningDb::Transaction::rollback() {
  if (!db_) throw scantune::CacheError("tuning database: transaction already finished");
  Impl& im = *db_->impl_;
  im.in_user_transaction = false;
  db_ = nullptr;
  im.conn.exec("ROLLBACK");
}

TuningDb::Transaction TuningDb::transaction() {
  return Transaction(this);
}

// ================================================================ rows

const char* const kDeviceColumns =
    "id, name, cc_major, cc_minor, sm_count, memory_bus_bits, memory_clock_khz, bandwidth_gbs, "
    "l2_bytes, driver_version, runtime_version, uuid";
const char* const kRunColumns =
    "id, uid, device_id, started_at, ended_at, library_version, template_hash, nvrtc_version, "
    "command_line, host, status";
const char* const kMeasurementColumns =
    "id, run_id, device_id, type, op, op_hash, kind, size, policy, status, median_ns, min_ns, "
    "max_ns, samples, gbs, registers, spill_bytes, message, problem";
const char* const kBaselineColumns =
    "id, device_id, run_id, baseline, type, op, op_hash, kind, size, ns, gbs, measured_at, problem";
const char* const kBestColumns =
    "id, model, device_id, run_id, type, op, op_hash, kind, size_bucket, size, policy, ns, gbs, "
    "updated_at, problem, lower_policy, lower_upto";

namespace {
std::optional<int> opt_int(const sqlite::Statement& s, int col) {
  if (s.is_null(col)) return std::nullopt;
  return static_cast<int>(s.int64(col));
}
} // namespace

DeviceInfo read_device(const sqlite::Statement& s) {
  DeviceInfo d;
  d.id = s.int64(0);
  d.name = s.text(1);
  d.cc_major = static_cast<int>(s.int64(2));
  d.cc_minor = static_cast<int>(s.int64(3));
  d.sm_count = static_cast<int>(s.int64(4));
  d.memory_bus_bits = static_cast<int>(s.int64(5));
  d.memory_clock_khz = s.int64(6);
  d.bandwidth_gbs = s.real(7);
  d.l2_bytes = s.int64(8);
  d.driver_version = static_cast<int>(s.int64(9));
  d.runtime_version = static_cast<int>(s.int64(10));
  d.uuid = s.text(11);
  return d;
}

RunInfo read_run(const sqlite::Statement& s) {
  RunInfo r;
  r.id = s.int64(0);
  r.uid = s.text(1);
  r.device_id = s.opt_int64(2);
  r.started_at = s.text(3);
  r.ended_at = s.opt_text(4);
  r.library_version = s.text(5);
  r.template_hash = s.text(6);
  r.nvrtc_version = s.text(7);
  r.command_line = s.text(8);
  r.host = s.text(9);
  r.status = parse_run_status(s.text(10));
  return r;
}

Measurement read_measurement(const sqlite::Statement& s) {
  Measurement m;
  m.id = s.int64(0);
  m.run_id = s.int64(1);
  m.device_id = s.int64(2);
  m.type = s.text(3);
  m.op = s.text(4);
  m.op_hash = s.text(5);
  m.kind = s.text(6);
  m.size = static_cast<std::uint64_t>(s.int64(7));
  m.policy = s.text(8);
  m.status = parse_measurement_status(s.text(9));
  m.median_ns = s.opt_real(10);
  m.min_ns = s.opt_real(11);
  m.max_ns = s.opt_real(12);
  m.samples = static_cast<int>(s.int64(13));
  m.gbs = s.opt_real(14);
  m.registers = opt_int(s, 15);
  m.spill_bytes = opt_int(s, 16);
  m.message = s.text(17);
  m.problem = s.text(18);
  return m;
}

Baseline read_baseline(const sqlite::Statement& s) {
  Baseline b;
  b.id = s.int64(0);
  b.device_id = s.int64(1);
  b.run_id = s.opt_int64(2);
  b.baseline = parse_baseline_kind(s.text(3));
  b.type = s.text(4);
  b.op = s.text(5);
  b.op_hash = s.text(6);
  b.kind = s.text(7);
  b.size = static_cast<std::uint64_t>(s.int64(8));
  b.ns = s.real(9);
  b.gbs = s.real(10);
  b.measured_at = s.text(11);
  b.problem = s.text(12);
  return b;
}

BestEntry read_best(const sqlite::Statement& s) {
  BestEntry e;
  e.id = s.int64(0);
  e.model = s.text(1);
  e.device_id = s.int64(2);
  e.run_id = s.opt_int64(3);
  e.type = s.text(4);
  e.op = s.text(5);
  e.op_hash = s.text(6);
  e.kind = s.text(7);
  e.size_bucket = static_cast<int>(s.int64(8));
  e.size = static_cast<std::uint64_t>(s.int64(9));
  e.policy = s.text(10);
  e.ns = s.real(11);
  e.gbs = s.real(12);
  e.updated_at = s.text(13);
  e.problem = s.text(14);
  e.lower_policy = s.text(15);
  e.lower_upto = static_cast<std::uint64_t>(s.int64(16));
  return e;
}

// ================================================================ devices

std::optional<std::int64_t> find_device(TuningDb::Impl& im, const DeviceInfo& d) {
  StmtUse q(d.uuid.empty()
                ? im.stmt("SELECT id FROM devices WHERE uuid = '' AND model = ?1 ORDER BY id "
                          "LIMIT 1")
                : im.stmt("SELECT id FROM devices WHERE uuid = ?1"));
  q->bind(1, d.uuid.empty() ? d.model() : d.uuid);
  if (!q->step()) return std::nullopt;
  return q->int64(0);
}

std::int64_t write_device(TuningDb::Impl& im, const DeviceInfo& d, std::optional<std::int64_t> id) {
  const std::string sql =
      id ? "UPDATE devices SET name = ?1, model = ?2, cc_major = ?3, cc_minor = ?4, sm_count = ?5, "
           "memory_bus_bits = ?6, memory_clock_khz = ?7, bandwidth_gbs = ?8, l2_bytes = ?9, "
           "driver_version = ?10, runtime_version = ?11, uuid = ?12 WHERE id = ?13"
         : "INSERT INTO devices (name, model, cc_major, cc_minor, sm_count, memory_bus_bits, "
           "memory_clock_khz, bandwidth_gbs, l2_bytes, driver_version, runtime_version, uuid) "
           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)";
  StmtUse s(im.stmt(sql));
  s->bind(1, d.name).bind(2, d.model()).bind(3, d.cc_major).bind(4, d.cc_minor);
  s->bind(5, d.sm_count).bind(6, d.memory_bus_bits).bind(7, d.memory_clock_khz);
  s->bind(8, d.bandwidth_gbs).bind(9, d.l2_bytes).bind(10, d.driver_version);
  s->bind(11, d.runtime_version).bind(12, d.uuid);
  if (id) s->bind(13, *id);
  s->run();
  return id ? *id : im.conn.last_insert_rowid();
}

std::int64_t TuningDb::add_device(const DeviceInfo& d) {
  Impl& im = *impl_;
  im.require_writable("add a device");
  WriteScope tx(im);
  const std::int64_t id = write_device(im, d, find_device(im, d));
  tx.commit();
  return id;
}

std::optional<DeviceInfo> TuningDb::device(std::int64_t id) const {
  StmtUse s(impl_->stmt(fmt::format("SELECT {} FROM devices WHERE id = ?1", kDeviceColumns)));
  s->bind(1, id);
  return s.first(read_device);
}

std::vector<DeviceInfo> TuningDb::list_devices() const {
  StmtUse s(impl_->stmt(fmt::format("SELECT {} FROM devices ORDER BY id", kDeviceColumns)));
  return s.all(read_device);
}

// ================================================================ runs

std::int64_t insert_run(TuningDb::Impl& im, const RunInfo& r) {
  StmtUse s(im.stmt("INSERT INTO tuning_runs (uid, device_id, started_at, ended_at, "
                    "library_version, template_hash, nvrtc_version, command_line, host, status) "
                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"));
  s->bind(1, r.uid.empty() ? random_uid() : r.uid).bind(2, r.device_id);
  s->bind(3, r.started_at.empty() ? now_utc() : r.started_at).bind(4, r.ended_at);
  s->bind(5, r.library_version).bind(6, r.template_hash).bind(7, r.nvrtc_version);
  s->bind(8, r.command_line).bind(9, r.host).bind(10, to_string(r.status));
  s->run();
  return im.conn.last_insert_rowid();
}

std::optional<RunInfo> find_run(TuningDb::Impl& im, const std::string& uid) {
  StmtUse q(im.stmt(fmt::format("SELECT {} FROM tuning_runs WHERE uid = ?1", kRunColumns)));
  q->bind(1, uid);
  return q.first(read_run);
}

bool finish_run(TuningDb::Impl& im, std::int64_t id, RunStatus status,
                const std::optional<std::string>& ended_at) {
  StmtUse s(im.stmt("UPDATE tuning_runs SET status = ?1, ended_at = ?2 WHERE id = ?3"));
  s->bind(1, to_string(status)).bind(2, ended_at).bind(3, id);
  s->run();
  return im.conn.changes() != 0;
}

std::int64_t TuningDb::begin_run(const RunInfo& r) {
  Impl& im = *impl_;
  im.require_writable("begin a run");
  WriteScope tx(im);
  RunInfo running = r;
  running.ended_at.reset();
  running.status = RunStatus::Running;
  const std::int64_t id = insert_run(im, running);
  tx.commit();
  return id;
}

void TuningDb::end_run(std::int64_t run_id, RunStatus status) {
  Impl& im = *impl_;
  im.require_writable("end a run");
  if (status == RunStatus::Running) im.fail("end_run needs status complete or interrupted");
  WriteScope tx(im);
  if (!finish_run(im, run_id, status, now_utc()))
    im.fail(fmt::format("no tuning run with id {}", run_id));
  tx.commit();
}

void TuningDb::reopen_run(std::int64_t run_id) {
  Impl& im = *impl_;
  im.require_writable("reopen a run");
  WriteScope tx(im);
  StmtUse s(im.stmt("UPDATE tuning_runs SET status = 'running', ended_at = NULL "
                    "WHERE id = ?1 AND status = 'interrupted'"));
  s->bind(1, run_id);
  s->run();
  if (im.conn.changes() == 0) im.fail(fmt::format("no interrupted tuning run with id {}", run_id));
  tx.commit();
}

std::optional<RunInfo> TuningDb::run(std::int64_t id) const {
  StmtUse s(impl_->stmt(fmt::format("SELECT {} FROM tuning_runs WHERE id = ?1", kRunColumns)));
  s->bind(1, id);
  return s.first(read_run);
}

std::vector<RunInfo> TuningDb::list_runs() const {
  StmtUse s(impl_->stmt(fmt::format("SELECT {} FROM tuning_runs ORDER BY id", kRunColumns)));
  return s.all(read_run);
}

// ================================================================ measurements

std::int64_t insert_measurement(TuningDb::Impl& im, const Measurement& m) {
  StmtUse s(im.stmt("INSERT INTO measurements (run_id, device_id, type, op, op_hash, kind, size, "
                    "policy, status, median_ns, min_ns, max_ns, samples, gbs, registers, "
                    "spill_bytes, message, problem) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
                    "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)"));
  s->bind(1, m.run_id).bind(2, m.device_id).bind(3, m.type).bind(4, m.op).bind(5, m.op_hash);
  s->bind(6, m.kind).bind(7, m.size).bind(8, m.policy).bind(9, to_string(m.status));
  s->bind(10, m.median_ns).bind(11, m.min_ns).bind(12, m.max_ns).bind(13, m.samples);
  s->bind(14, m.gbs).bind(15, m.registers).bind(16, m.spill_bytes).bind(17, m.message);
  s->bind(18, m.problem);
  s->run();
  return im.conn.last_insert_rowid();
}

bool has_measurement(TuningDb::Impl& im, const Measurement& m) {
  StmtUse q(im.stmt("SELECT 1 FROM measurements WHERE run_id = ?1 AND device_id = ?2 AND "
                    "type = ?3 AND op = ?4 AND op_hash = ?5 AND kind = ?6 AND size = ?7 AND "
                    "policy = ?8 AND status = ?9 AND median_ns IS ?10 AND min_ns IS ?11 AND "
                    "max_ns IS ?12 AND samples = ?13 AND message = ?14 AND problem = ?15 LIMIT 1"));
  q->bind(1, m.run_id).bind(2, m.device_id).bind(3, m.type).bind(4, m.op).bind(5, m.op_hash);
  q->bind(6, m.kind).bind(7, m.size).bind(8, m.policy).bind(9, to_string(m.status));
  q->bind(10, m.median_ns).bind(11, m.min_ns).bind(12, m.max_ns).bind(13, m.samples);
  q->bind(14, m.message).bind(15, m.problem);
  return q->step();
}

std::int64_t TuningDb::add_measurement(const Measurement& m) {
  Impl& im = *impl_;
  im.require_writable("add a measurement");
  WriteScope tx(im);
  const std::int64_t id = insert_measurement(im, m);
  tx.commit();
  return id;
}

std::vector<Measurement> TuningDb::list_measurements(const MeasurementFilter& f) const {
  StmtUse s(impl_->stmt(fmt::format(
      "SELECT {} FROM measurements WHERE (?1 IS NULL OR run_id = ?1) AND (?2 IS NULL OR "
      "device_id = ?2) AND (?3 IS NULL OR type = ?3) AND (?4 IS NULL OR op = ?4) AND (?5 IS "
      "NULL OR kind = ?5) AND (?6 IS NULL OR policy = ?6) AND (?7 IS NULL OR status = ?7) "
      "ORDER BY id",
      kMeasurementColumns)));
  s->bind(1, f.run_id).bind(2, f.device_id).bind(3, f.type).bind(4, f.op).bind(5, f.kind);
  s->bind(6, f.policy);
  if (f.status) s->bind(7, to_string(*f.status));
  return s.all(read_measurement);
}

// ================================================================ baselines

namespace {

/// The id of the baseline of b's key, and its ns.
std::optional<std::pair<std::int64_t, double>> find_baseline(TuningDb::Impl& im,
                                                             const Baseline& b) {
  StmtUse q(
      im.stmt("SELECT id, ns FROM baselines WHERE device_id = ?1 AND baseline = ?2 AND type = "
              "?3 AND op = ?4 AND op_hash = ?5 AND kind = ?6 AND size = ?7 AND problem = ?8"));
  q->bind(1, b.device_id).bind(2, to_string(b.baseline)).bind(3, b.type).bind(4, b.op);
  q->bind(5, b.op_hash).bind(6, b.kind).bind(7, b.size).bind(8, b.problem);
  if (!q->step()) return std::nullopt;
  return std::pair{q->int64(0), q->real(1)};
}

} // namespace

Stored store_baseline(TuningDb::Impl& im, const Baseline& b, bool if_faster) {
  const auto existing = find_baseline(im, b);
  if (existing && if_faster && !(b.ns < existing->second)) return Stored::Kept;
  StmtUse s(im.stmt(
      "INSERT INTO baselines (device_id, run_id, baseline, type, op, op_hash, kind, size, ns, "
      "gbs, measured_at, problem) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) "
      "ON CONFLICT (device_id, baseline, type, op, op_hash, kind, problem, size) DO UPDATE SET "
      "run_id = excluded.run_id, ns = excluded.ns, gbs = excluded.gbs, "
      "measured_at = excluded.measured_at"));
  s->bind(1, b.device_id).bind(2, b.run_id).bind(3, to_string(b.baseline)).bind(4, b.type);
  s->bind(5, b.op).bind(6, b.op_hash).bind(7, b.kind).bind(8, b.size).bind(9, b.ns);
  s->bind(10, b.gbs).bind(11, b.measured_at.empty() ? now_utc() : b.measured_at);
  s->bind(12, b.problem);
  s->run();
  return existing ? Stored::Replaced : Stored::Added;
}

std::int64_t TuningDb::add_baseline(const Baseline& b) {
  Impl& im = *impl_;
  im.require_writable("add a baseline");
  WriteScope tx(im);
  store_baseline(im, b, false);
  const auto stored = find_baseline(im, b);
  if (!stored) im.fail("baseline vanished after insert");
  tx.commit();
  return stored->first;
}

std::optional<Baseline> TuningDb::baseline_for(std::int64_t device_id, BaselineKind k,
                                               std::string_view type, std::string_view op,
                                               std::string_view op_hash, std::string_view kind,
                                               std::uint64_t size, std::string_view problem) const {
  StmtUse s(impl_->stmt(fmt::format(
      "SELECT {} FROM baselines WHERE device_id = ?1 AND baseline = ?2 AND type = ?3 AND op = "
      "?4 AND op_hash = ?5 AND kind = ?6 AND size = ?7 AND problem = ?8",
      kBaselineColumns)));
  s->bind(1, device_id).bind(2, to_string(k)).bind(3, type).bind(4, op).bind(5, op_hash);
  s->bind(6, kind).bind(7, size).bind(8, problem);
  return s.first(read_baseline);
}

std::vector<Baseline> TuningDb::list_baselines() const {
  StmtUse s(impl_->stmt(fmt::format("SELECT {} FROM baselines ORDER BY id", kBaselineColumns)));
  return s.all(read_baseline);
}

// ================================================================ best

Stored store_best(TuningDb::Impl& im, const BestEntry& e, BestMode mode) {
  if (e.size == 0) im.fail("a best entry needs a size > 0");
  if (e.lower_policy.empty() != (e.lower_upto == 0) || e.lower_upto >= e.size ||
      (e.lower_upto && size_bucket(e.lower_upto) != size_bucket(e.size)))
    im.fail(fmt::format("a best entry's lower winner must serve sizes of its bucket below {} "
                        "(lower_policy '{}', lower_upto {})",
                        e.size, e.lower_policy, e.lower_upto));
  std::string model = e.model;
  if (model.empty()) {
    StmtUse q(im.stmt("SELECT model FROM devices WHERE id = ?1"));
    q->bind(1, e.device_id);
    if (!q->step()) im.fail(fmt::format("no device with id {}", e.device_id));
    model = q->text(0);
  }
  const int bucket = size_bucket(e.size);
  std::optional<double> existing_ns;
  {
    StmtUse q(im.stmt("SELECT ns FROM best WHERE model = ?1 AND type = ?2 AND op = ?3 AND "
                      "op_hash = ?4 AND kind = ?5 AND size_bucket = ?6 AND problem = ?7"));
    q->bind(1, model).bind(2, e.type).bind(3, e.op).bind(4, e.op_hash).bind(5, e.kind);
    q->bind(6, bucket).bind(7, e.problem);
    if (q->step()) existing_ns = q->real(0);
  }
  if (existing_ns && mode == BestMode::IfFaster && !(e.ns < *existing_ns)) return Stored::Kept;
  StmtUse s(im.stmt(
      "INSERT INTO best (model, device_id, run_id, type, op, op_hash, kind, size_bucket, size, "
      "policy, ns, gbs, updated_at, problem, lower_policy, lower_upto) VALUES (?1, ?2, ?3, ?4, "
      "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16) "
      "ON CONFLICT (model, type, op, op_hash, kind, problem, size_bucket) DO UPDATE SET "
      "device_id = excluded.device_id, run_id = excluded.run_id, size = excluded.size, "
      "policy = excluded.policy, ns = excluded.ns, gbs = excluded.gbs, "
      "updated_at = excluded.updated_at, lower_policy = excluded.lower_policy, "
      "lower_upto = excluded.lower_upto"));
  s->bind(1, model).bind(2, e.device_id).bind(3, e.run_id).bind(4, e.type).bind(5, e.op);
  s->bind(6, e.op_hash).bind(7, e.kind).bind(8, bucket).bind(9, e.size).bind(10, e.policy);
  s->bind(11, e.ns).bind(12, e.gbs).bind(13, e.updated_at.empty() ? now_utc() : e.updated_at);
  s->bind(14, e.problem).bind(15, e.lower_policy).bind(16, e.lower_upto);
  s->run();
  return existing_ns ? Stored::Replaced : Stored::Added;
}

bool TuningDb::set_best(const BestEntry& e, BestMode mode) {
  Impl& im = *impl_;
  im.require_writable("set a best entry");
  WriteScope tx(im);
  if (store_best(im, e, mode) == Stored::Kept) return false; // WriteScope rolls back (no change)
  tx.commit();
  return true;
}

std::optional<BestEntry> TuningDb::best_for(std::string_view model, std::string_view type,
                                            std::string_view op, std::string_view op_hash,
                                            std::string_view kind, std::uint64_t n,
                                            std::string_view problem) const {
  StmtUse s(impl_->stmt(fmt::format(
      "SELECT {} FROM best WHERE model = ?1 AND type = ?2 AND op = ?3 AND op_hash = ?4 AND "
      "kind = ?5 AND problem = ?7 ORDER BY abs({} - ?6), size_bucket LIMIT 1",
      kBestColumns, kBucketPositionSql)));
  s->bind(1, model).bind(2, type).bind(3, op).bind(4, op_hash).bind(5, kind);
  s->bind(6, bucket_position(size_bucket(n))).bind(7, problem);
  return s.first(read_best);
}

std::vector<BestEntry> TuningDb::list_best(const BestFilter& f) const {
  StmtUse s(impl_->stmt(fmt::format(
      "SELECT {} FROM best WHERE (?1 IS NULL OR model = ?1) AND (?2 IS NULL OR type = ?2) AND "
      "(?3 IS NULL OR op = ?3) AND (?4 IS NULL OR kind = ?4) AND (?5 IS NULL OR problem = ?5) "
      "ORDER BY model, type, op, op_hash, kind, problem, size_bucket",
      kBestColumns)));
  s->bind(1, f.model).bind(2, f.type).bind(3, f.op).bind(4, f.kind).bind(5, f.problem);
  return s.all(read_best);
}

// ================================================================ misc

TableCounts TuningDb::counts() const {
  TableCounts t;
  auto& c = impl_->conn;
  t.devices = c.query_int("SELECT count(*) FROM devices");
  t.runs = c.query_int("SELECT count(*) FROM tuning_runs");
  t.measurements = c.query_int("SELECT count(*) FROM measurements");
  t.baselines = c.query_int("SELECT count(*) FROM baselines");
  t.best = c.query_int("SELECT count(*) FROM best");
  return t;
}

std::string TuningDb::check_integrity(bool full) const {
  auto st = impl_->conn.prepare(full ? "PRAGMA integrity_check" : "PRAGMA quick_check");
  std::string out;
  while (st.step())
    out += (out.empty() ? "" : "\n") + st.text(0);
  return out;
}

} // namespace scantune::db
