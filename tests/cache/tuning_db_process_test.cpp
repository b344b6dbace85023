// Several real processes on one database file: concurrent writers lose no rows,
// and a writer killed with SIGKILL in the middle of a transaction leaves a
// consistent database without its uncommitted rows.
//
// Children are fork()ed. The parent holds no SQLite connection while forking, and
// children leave with _exit() so that no destructor (TempDir!) runs twice.
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <set>

#include <fmt/format.h>

#include "tuning_db_test_util.hpp"

namespace scantune::db::testing {
namespace {

/// Forks a child running `body`; the child exits with body's return value (or 99
/// after printing an exception).
pid_t spawn(const std::function<int()>& body) {
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    int rc = 99;
    try {
      rc = body();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child %d: %s\n", static_cast<int>(getpid()), e.what());
    }
    std::fflush(nullptr);
    _exit(rc);
  }
  return pid;
}

MeasurementFilter by_run(std::int64_t run) {
  MeasurementFilter f;
  f.run_id = run;
  return f;
}

std::string journal_name(const ::testing::TestParamInfo<JournalMode>& info) {
  return info.param == JournalMode::Wal ? "Wal" : "Delete";
}

class TuningDbProcesses : public ::testing::TestWithParam<JournalMode> {
protected:
  EnvGuard journal_{"SCANTUNE_DB_JOURNAL", std::nullopt};
  TempDir dir_;
  fs::path file_ = dir_ / "tuning.db";
};

TEST_P(TuningDbProcesses, FourWritersLoseNoRows) {
  constexpr int kChildren = 4;
  // WAL commits do not fsync (synchronous=NORMAL); the rollback journal syncs every
  // commit (about 20 ms on a plain disk), so fewer rows keep that variant fast.
  const int rows = GetParam() == JournalMode::Wal ? 200 : 25;
  const JournalMode mode = GetParam();
  // The database does not exist yet: the children also race to create it.
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  std::vector<pid_t> kids;
  for (int c = 0; c < kChildren; ++c) {
    kids.push_back(spawn([&, c]() -> int {
      close(go[1]);
      char ch;
      if (read(go[0], &ch, 1) < 0) return 2; // returns 0 (EOF) when the parent says go
      TuningDb db = TuningDb::open(file_, rw(mode));
      std::int64_t dev = db.add_device(h100()); // the same GPU in every process
      RunInfo r = sample_run(dev);
      r.command_line = "child " + std::to_string(c);
      std::int64_t run = db.begin_run(r);
      for (int i = 0; i < rows; ++i) {
        // One transaction per row (add_measurement's own BEGIN IMMEDIATE ... COMMIT).
        db.add_measurement(ok_measurement(run, dev, fmt::format("c{}.r{}", c, i), 1000 + i));
        if (i % 50 == 0) db.list_measurements(by_run(run));
      }
      db.end_run(run, RunStatus::Complete);
      return 0;
    }));
    ASSERT_GT(kids.back(), 0);
  }
  close(go[0]);
  close(go[1]); // go
  for (pid_t pid : kids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "child " << pid << " status " << status;
    EXPECT_EQ(WEXITSTATUS(status), 0) << "child " << pid << " failed (see stderr)";
  }

  TuningDb db = TuningDb::open(file_, rw(mode));
  EXPECT_EQ(db.check_integrity(), "ok");
  EXPECT_EQ(db.counts().devices, 1);
  EXPECT_EQ(db.counts().runs, kChildren);
  EXPECT_EQ(db.counts().measurements, kChildren * rows);
  std::set<std::string> policies;
  for (const auto& m : db.list_measurements())
    policies.insert(m.policy);
  for (int c = 0; c < kChildren; ++c)
    for (int i = 0; i < rows; ++i)
      EXPECT_TRUE(policies.count(fmt::format("c{}.r{}", c, i))) << "missing c" << c << ".r" << i;
  for (const auto& r : db.list_runs()) {
    EXPECT_EQ(r.status, RunStatus::Complete) << r.command_line;
    EXPECT_EQ(static_cast<int>(db.list_measurements(by_run(r.id)).size()), rows);
  }
  EXPECT_EQ(raw_query(file_, "PRAGMA journal_mode"), mode == JournalMode::Wal ? "wal" : "delete");
}

TEST_P(TuningDbProcesses, KillDashNineMidTransaction) {
  const JournalMode mode = GetParam();
  constexpr int kCommitted = 10;
  constexpr int kUncommitted = 20000; // more than the page cache holds: pages spill to disk
  {
    TuningDb db = TuningDb::open(file_, rw(mode));
    std::int64_t dev = db.add_device(h100());
    std::int64_t run = db.begin_run(sample_run(dev));
    for (int i = 0; i < kCommitted; ++i)
      db.add_measurement(ok_measurement(run, dev, fmt::format("committed.{}", i), 1000 + i));
  }
  const std::uintmax_t size_before = fs::file_size(file_);
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t pid = spawn([&]() -> int {
    close(ready[0]);
    TuningDb db = TuningDb::open(file_, rw(mode));
    auto tx = db.transaction();
    for (int i = 0; i < kUncommitted; ++i) {
      Measurement m = ok_measurement(1, 1, fmt::format("uncommitted.{}", i), 2000 + i);
      m.message = std::string(100, 'u');
      db.add_measurement(m);
    }
    if (write(ready[1], "x", 1) != 1) return 3; // "I am inside the transaction"
    for (;;)
      pause(); // until SIGKILL
  });
  ASSERT_GT(pid, 0);
  close(ready[1]);
  pollfd pfd{ready[0], POLLIN, 0};
  ASSERT_EQ(poll(&pfd, 1, 60000), 1) << "the child never reported its transaction";
  char ch = 0;
  ASSERT_EQ(read(ready[0], &ch, 1), 1);
  close(ready[0]);
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);

  // The killed writer left its journal behind, and its uncommitted rows on disk: in
  // the -wal file (WAL), or spilled into the database file itself, with the original
  // pages in the hot -journal (rollback journal).
  const std::string side = file_.string() + (mode == JournalMode::Wal ? "-wal" : "-journal");
  ASSERT_TRUE(fs::exists(side)) << side;
  EXPECT_GT(fs::file_size(side), 0u);
  if (mode == JournalMode::Wal)
    EXPECT_GT(fs::file_size(side), 1u << 20) << "expected the uncommitted rows in the WAL";
  else
    EXPECT_GT(fs::file_size(file_), size_before + (1u << 20)) << "expected spilled pages";

  if (mode == JournalMode::Delete) {
    // A hot journal needs a writer to roll it back: read-only refuses, cleanly.
    EXPECT_DB_ERROR(TuningDb::open(file_, ro()), "interrupted mid-transaction", file_.string());
  } else {
    // WAL readers simply ignore the uncommitted frames.
    TuningDb r = TuningDb::open(file_, ro());
    EXPECT_EQ(r.counts().measurements, kCommitted);
  }

  TuningDb db = TuningDb::open(file_, rw(mode));
  EXPECT_EQ(db.check_integrity(), "ok");
  EXPECT_EQ(raw_query(file_, "PRAGMA integrity_check"), "ok");
  auto ms = db.list_measurements();
  ASSERT_EQ(static_cast<int>(ms.size()), kCommitted);
  for (int i = 0; i < kCommitted; ++i)
    EXPECT_EQ(ms[i].policy, fmt::format("committed.{}", i));
  // The lock died with the writer: writing works again.
  db.add_measurement(ok_measurement(1, 1, "after", 5));
  EXPECT_EQ(db.counts().measurements, kCommitted + 1);
  if (mode == JournalMode::Delete) {
    EXPECT_FALSE(fs::exists(side)); // rolled back and removed
    EXPECT_LT(fs::file_size(file_), size_before + (1u << 20));
  }
}

TEST(TuningDbReadOnly, WalFileInADirectoryTheReaderCannotWrite) {
  // E.g. a database installed system-wide. A WAL reader needs -shm/-wal files it
  // cannot create here; the open falls back to an immutable read and creates nothing.
  EnvGuard journal("SCANTUNE_DB_JOURNAL", std::nullopt);
  TempDir dir;
  const fs::path sub = dir / "share";
  const fs::path file = sub / "tuning.db";
  {
    TuningDb db = TuningDb::open(file, rw(JournalMode::Wal));
    db.add_device(h100());
  }
  fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(sub, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                           fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(file, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  pid_t pid = spawn([&]() -> int {
    if (geteuid() == 0) { // root writes anywhere: become nobody
      if (setgroups(0, nullptr) != 0 || setresgid(65534, 65534, 65534) != 0 ||
          setresuid(65534, 65534, 65534) != 0)
        return 4;
    }
    auto db = TuningDb::open_existing_read_only(file);
    if (!db) return 5;
    if (db->list_devices().size() != 1) return 6;
    if (db->journal_mode() != JournalMode::Wal) return 7;
    return 0;
  });
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "see stderr";
  EXPECT_EQ(list_dir(sub), std::vector<std::string>{"tuning.db"});
  fs::permissions(sub, fs::perms::owner_all); // so that TempDir can clean up
}

INSTANTIATE_TEST_SUITE_P(Journal, TuningDbProcesses,
                         ::testing::Values(JournalMode::Wal, JournalMode::Delete), journal_name);

} // namespace
} // namespace scantune::db::testing
