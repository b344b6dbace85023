// Files that are not (or no longer) usable scantune databases: each open mode must
// throw scantune::CacheError naming the file and the problem, and leave the directory
// byte-for-byte as it was (no rewrite, no -wal/-shm/-journal file).
#include <map>

#include "tuning_db_test_util.hpp"

namespace scantune::db::testing {
namespace {

/// Every file of a directory with its bytes.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& name : list_dir(dir))
    out[name] = read_bytes(dir / name);
  return out;
}

class TuningDbBadFile : public ::testing::Test {
protected:
  /// Tries every way of opening `file_` and checks the message and the untouched directory.
  void expect_rejected(const std::vector<std::string>& phrases) {
    const auto before = snapshot(dir_.path());
    ASSERT_TRUE(before.count("tuning.db"));
    std::vector<std::string> want = phrases;
    want.push_back(file_.string());
    EXPECT_DB_ERROR(TuningDb::open(file_, rw()), want[0], want.back());
    for (const auto& p : phrases)
      EXPECT_DB_ERROR(TuningDb::open(file_, rw()), p);
    for (const auto& p : phrases)
      EXPECT_DB_ERROR(TuningDb::open(file_, rw(JournalMode::Delete)), p);
    for (const auto& p : phrases)
      EXPECT_DB_ERROR(TuningDb::open(file_, ro()), p);
    for (const auto& p : phrases)
      EXPECT_DB_ERROR(TuningDb::open_existing_read_only(file_), p);
    OpenOptions full = rw();
    full.check = IntegrityCheck::Full;
    EXPECT_DB_ERROR(TuningDb::open(file_, full), want[0]);
    {
      // Merging the bad file into a good database fails and leaves both alone.
      TempDir other;
      TuningDb good = TuningDb::open(other / "good.db", rw());
      good.add_device(h100());
      EXPECT_DB_ERROR(good.merge_from(file_), want[0], want.back());
      EXPECT_EQ(good.counts().devices, 1);
    }
    EXPECT_EQ(snapshot(dir_.path()), before) << "the bad file or its directory changed";
  }

  /// A scantune database with enough rows to span many pages.
  void make_scantune_db(JournalMode j, int rows = 400) {
    TuningDb db = TuningDb::open(file_, rw(j));
    std::int64_t dev = db.add_device(h100());
    std::int64_t run = db.begin_run(sample_run(dev));
    auto tx = db.transaction();
    for (int i = 0; i < rows; ++i) {
      Measurement m = ok_measurement(run, dev, "lookback_warp.tpb256.ipt12.vec4.warp_scans",
                                     1000.0 + i, 1000 + i);
      m.message = std::string(64, 'x');
      db.add_measurement(m);
    }
    tx.commit();
  }

  /// Overwrites `len` bytes at `offset` with a pattern.
  void clobber(std::uintmax_t offset, std::size_t len) {
    std::string bytes = read_bytes(file_);
    ASSERT_LE(offset + len, bytes.size());
    for (std::size_t i = 0; i < len; ++i)
      bytes[offset + i] = static_cast<char>(0xA5 ^ (i * 7));
    write_bytes(file_, bytes);
  }

  EnvGuard journal_{"SCANTUNE_DB_JOURNAL", std::nullopt};
  TempDir dir_;
  fs::path file_ = dir_ / "tuning.db";
};

TEST_F(TuningDbBadFile, TextFile) {
  write_bytes(file_, "device,policy,ns\nH100,lookback_warp.tpb256.ipt12.vec4.warp_scans,41000\n");
  expect_rejected({"not a scantune tuning database", "not an SQLite database", "was not modified"});
}

TEST_F(TuningDbBadFile, TinyFile) {
  write_bytes(file_, "x");
  expect_rejected({"not an SQLite database"});
}

TEST_F(TuningDbBadFile, TruncatedSqliteHeader) {
  make_scantune_db(JournalMode::Delete, 1);
  write_bytes(file_, read_bytes(file_).substr(0, 60));
  expect_rejected({"corrupt", "only 60 bytes"});
}

TEST_F(TuningDbBadFile, OtherApplicationsSqliteFile) {
  raw_exec(file_, "PRAGMA application_id = 305419896; CREATE TABLE notes (t TEXT); "
                  "INSERT INTO notes VALUES ('hello');");
  expect_rejected(
      {"not a scantune tuning database", "application_id 0x12345678", "scantune uses 0x5343544e"});
}

TEST_F(TuningDbBadFile, OtherApplicationsWalModeFile) {
  // The header says WAL; opening it with a plain read-only connection would create
  // -wal and -shm files. The header check rejects it before SQLite sees it.
  raw_exec(file_, "PRAGMA journal_mode = WAL; PRAGMA application_id = 305419896; "
                  "CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ('hello');");
  ASSERT_EQ(list_dir(dir_.path()), std::vector<std::string>{"tuning.db"});
  expect_rejected({"application_id 0x12345678"});
}

TEST_F(TuningDbBadFile, PlainSqliteFileWithoutApplicationId) {
  raw_exec(file_, "CREATE TABLE devices (id INTEGER PRIMARY KEY, name TEXT);");
  expect_rejected({"not a scantune tuning database", "another application"});
}

TEST_F(TuningDbBadFile, NewerSchemaVersion) {
  make_scantune_db(JournalMode::Delete, 3);
  raw_exec(file_, "PRAGMA user_version = 99");
  const std::string newer =
      "schema version 99 is newer than version " + std::to_string(kSchemaVersion);
  expect_rejected({newer.c_str(), "use a newer scantune"});
}

TEST_F(TuningDbBadFile, NewerSchemaVersionWalFile) {
  make_scantune_db(JournalMode::Wal, 3);
  raw_exec(file_, "PRAGMA user_version = 99");
  expect_rejected({"schema version 99 is newer"});
}

TEST_F(TuningDbBadFile, NewerSchemaVersionOnlyInTheWal) {
  // A live writer set the version in its -wal file; the main file's header still
  // says 2. The check must read through the WAL, and must not touch either file.
  make_scantune_db(JournalMode::Wal, 3);
  sqlite3* live = nullptr;
  ASSERT_EQ(sqlite3_open(file_.c_str(), &live), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(live, "PRAGMA wal_autocheckpoint = 0; PRAGMA user_version = 99;", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  ASSERT_TRUE(fs::exists(file_.string() + "-wal"));
  const std::string main_before = read_bytes(file_);
  const std::string wal_before = read_bytes(file_.string() + "-wal");
  EXPECT_DB_ERROR(TuningDb::open(file_, rw()), "schema version 99 is newer", file_.string());
  EXPECT_DB_ERROR(TuningDb::open(file_, ro()), "schema version 99 is newer");
  EXPECT_EQ(read_bytes(file_), main_before);
  EXPECT_EQ(read_bytes(file_.string() + "-wal"), wal_before);
  sqlite3_close(live);
}

class TuningDbCorrupt : public TuningDbBadFile,
                        public ::testing::WithParamInterface<JournalMode> {};

TEST_P(TuningDbCorrupt, BytesOverwrittenInTheMiddleOfPages) {
  make_scantune_db(GetParam());
  ASSERT_EQ(list_dir(dir_.path()), std::vector<std::string>{"tuning.db"});
  const std::uintmax_t size = fs::file_size(file_);
  const std::uintmax_t page = 4096;
  ASSERT_GE(size / page, 8u) << "too few pages to corrupt the middle";
  // From the middle of one page to the middle of the page after next.
  clobber((size / page / 2) * page + page / 2, 2 * page);
  expect_rejected({"the database is corrupt", "move it aside"});
}

TEST_P(TuningDbCorrupt, SchemaPageOverwritten) {
  make_scantune_db(GetParam());
  clobber(100, 3000); // page 1 after the file header: the sqlite_schema b-tree
  expect_rejected({"corrupt"});
}

INSTANTIATE_TEST_SUITE_P(Journal, TuningDbCorrupt,
                         ::testing::Values(JournalMode::Wal, JournalMode::Delete),
                         [](const auto& info) {
                           return info.param == JournalMode::Wal ? "Wal" : "Delete";
                         });

TEST_F(TuningDbBadFile, DirectoryInsteadOfFile) {
  fs::create_directory(file_);
  EXPECT_DB_ERROR(TuningDb::open(file_, rw()), "is a directory", file_.string());
  EXPECT_DB_ERROR(TuningDb::open(file_, ro()), "is a directory");
  EXPECT_TRUE(fs::is_empty(file_));
}

TEST_F(TuningDbBadFile, GoodFileStillOpensAfterTheChecks) {
  make_scantune_db(JournalMode::Wal, 50);
  OpenOptions full = rw();
  full.check = IntegrityCheck::Full;
  TuningDb db = TuningDb::open(file_, full);
  EXPECT_EQ(db.counts().measurements, 50);
}

} // namespace
} // namespace scantune::db::testing
