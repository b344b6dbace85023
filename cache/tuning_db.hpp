// cache/tuning_db.hpp: the SQLite tuning database (one file per user or machine).
//
// It records every GPU that was tuned, every tuning run, every candidate timed
// (with failures), memcpy/CUB baselines and the winning policy per device model,
// element type, operator, scan kind and size bucket. docs/database.md documents
// the schema, the views and the file handling; this header is the C++ API.
//
//   using namespace scantune::db;
//   TuningDb db = TuningDb::open(default_db_path(options.database));      // read-write
//   std::int64_t dev = db.add_device(info);
//   std::int64_t run = db.begin_run(RunInfo{...});
//   { auto tx = db.transaction(); for (auto& m : ms) db.add_measurement(m); tx.commit(); }
//   db.set_best(BestEntry{...});
//   db.end_run(run, RunStatus::Complete);
//
//   // The runtime: read-only, never creates or migrates anything.
//   if (auto ro = TuningDb::open_existing_read_only(default_db_path(""))) {
//     auto best = ro->best_for(info.model(), "int32", "sum", "", "inclusive", n);
//   }
//
// Type, operator and kind are the strings of scantune::to_string(DataType / Op /
// ScanKind) ("int32", "sum", "inclusive"); custom operators use their name plus
// `op_hash`, a hash of their source (empty for built-in operators).
//
// Files: a missing or 0-byte file is a new database (read-write mode) or "no
// database" (read-only mode). A file that is not SQLite, another application's
// SQLite file, a newer schema, or a corrupt file throws scantune::CacheError naming the
// path and the problem, and is left byte-for-byte untouched (no -wal/-shm either).
//
// A TuningDb object is not thread-safe; use one per thread (SQLite handles
// several connections and several processes on one file).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/size_bucket.hpp"
#include "cache/cache_error.hpp"
#include "cache/db_schema.hpp"

namespace scantune::db {

/// Where the tuning database lives: `explicit_path` if not empty, else
/// $SCANTUNE_DB if set and not empty, else $XDG_DATA_HOME/scantune/tuning.db
/// (when XDG_DATA_HOME is an absolute path), else ~/.local/share/scantune/tuning.db.
std::filesystem::path default_db_path(const std::string& explicit_path = {});

/// Thrown by read-only opens when the file does not exist or is empty.
class NoDatabaseError : public scantune::CacheError {
public:
  using scantune::CacheError::CacheError;
};

enum class OpenMode { ReadOnly, ReadWrite };
/// Wal: write-ahead log (default; several writers and readers at once on local
/// disks). Delete: rollback journal (for network file systems without shared memory).
enum class JournalMode { Wal, Delete };
/// How much checking an open does before trusting a file. Quick = PRAGMA quick_check
/// (structure of every page), Full = PRAGMA integrity_check (also index contents).
enum class IntegrityCheck { None, Quick, Full };

/// The journal mode named by $SCANTUNE_DB_JOURNAL ("wal", the default, or "delete");
/// throws scantune::CacheError for any other value.
JournalMode journal_mode_from_env();

struct OpenOptions {
  OpenMode mode = OpenMode::ReadWrite;
  std::optional<JournalMode> journal; ///< read-write only; unset = journal_mode_from_env()
  int busy_timeout_ms = 10000;        ///< how long to wait for another writer
  IntegrityCheck check = IntegrityCheck::Quick;
};

/// One GPU. `id` is filled in by the database.
struct DeviceInfo {
  std::int64_t id = 0;
  std::string name; ///< cudaDeviceProp::name, e.g. "NVIDIA H100 80GB HBM3"
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int memory_bus_bits = 0;
  std::int64_t memory_clock_khz = 0;
  double bandwidth_gbs = 0; ///< theoretical: 2 * clock * bus width / 8
  std::int64_t l2_bytes = 0;
  int driver_version = 0;  ///< cudaDriverGetVersion, e.g. 13000
  int runtime_version = 0; ///< cudaRuntimeGetVersion
  std::string uuid;        ///< "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"; may be empty

  /// The device model key of best entries: "<name> (sm_<major><minor>, <n> SMs)".
  std::string model() const;
  friend bool operator==(const DeviceInfo& a, const DeviceInfo& b);
};

enum class RunStatus { Running, Complete, Interrupted };
std::string_view to_string(RunStatus s); ///< "running", "complete", "interrupted"
RunStatus parse_run_status(std::string_view s);

/// One tuning run. begin_run fills id, uid (if empty), started_at (if empty) and status.
struct RunInfo {
  std::int64_t id = 0;
  std::string uid; ///< globally unique; merges deduplicate runs by it
  std::optional<std::int64_t> device_id;
  std::string started_at; ///< ISO 8601 UTC, "2025-01-31T12:00:00Z"
  std::optional<std::string> ended_at;
  std::string library_version;
  std::string template_hash; ///< hash of the embedded kernel template sources
  std::string nvrtc_version; ///< e.g. "13.0"
  std::string command_line;
  std::string host;
  RunStatus status = RunStatus::Running;
  friend bool operator==(const RunInfo& a, const RunInfo& b);
};

enum class MeasurementStatus { Ok, CompileError, LaunchError, WrongResult, Timeout, Rejected };
/// "ok", "compile_error", "launch_error", "wrong_result", "timeout", "rejected".
std::string_view to_string(MeasurementStatus s);
MeasurementStatus parse_measurement_status(std::string_view s);

/// One timed (or failed) candidate. Timings and gbs are required when status is Ok.
struct Measurement {
  std::int64_t id = 0;
  std::int64_t run_id = 0;
  std::int64_t device_id = 0;
  std::string type;    ///< "int32", ...
  std::string op;      ///< "sum", ... or a custom operator's name
  std::string op_hash; ///< custom operators: hash of name, body and identity; else ""
  std::string kind;    ///< "inclusive" or "exclusive"
  std::uint64_t size = 0;
  std::string policy; ///< canonical policy key
  MeasurementStatus status = MeasurementStatus::Ok;
  std::optional<double> median_ns, min_ns, max_ns;
  int samples = 0;
  std::optional<double> gbs;
  std::optional<int> registers;   ///< registers per thread
  std::optional<int> spill_bytes; ///< local-memory spill stores, bytes
  std::string message;            ///< why it failed (compile log excerpt, ...)
  std::string problem; ///< "" (a flat scan) or a segmented/axis kind ("flags", "rows", ...)
  friend bool operator==(const Measurement& a, const Measurement& b);
};

enum class BaselineKind { Memcpy, Cub };
std::string_view to_string(BaselineKind k); ///< "memcpy", "cub"
BaselineKind parse_baseline_kind(std::string_view s);

/// A reference timing. Memcpy (device-to-device copy of `size` elements of `type`)
/// has empty op, op_hash and kind; Cub needs op and kind.
struct Baseline {
  std::int64_t id = 0;
  std::int64_t device_id = 0;
  std::optional<std::int64_t> run_id;
  BaselineKind baseline = BaselineKind::Memcpy;
  std::string type, op, op_hash, kind;
  std::uint64_t size = 0;
  double ns = 0;
  double gbs = 0;
  std::string measured_at; ///< set to now when empty
  std::string problem;     ///< Cub: "" (flat) or the problem kind it ran (memcpy: "")
  friend bool operator==(const Baseline& a, const Baseline& b);
};

/// The winner for one (device model, type, op, kind, size bucket).
struct BestEntry {
  std::int64_t id = 0;
  std::string model;          ///< DeviceInfo::model(); set from device_id when empty
  std::int64_t device_id = 0; ///< the device it was measured on
  std::optional<std::int64_t> run_id;
  std::string type, op, op_hash, kind;
  std::uint64_t size = 0; ///< the size it was measured at; its bucket is size_bucket(size)
  int size_bucket = 0;    ///< filled in from `size`
  std::string policy;
  double ns = 0;
  double gbs = 0;
  std::string updated_at; ///< set to now when empty
  std::string problem;    ///< "" (a flat scan) or a segmented/axis kind ("flags", "rows", ...)
  /// A second winner for the bucket's lower part: sizes n <= lower_upto run
  /// lower_policy ("" and 0: `policy` serves the whole bucket). lower_upto < size.
  std::string lower_policy;
  std::uint64_t lower_upto = 0;
  friend bool operator==(const BestEntry& a, const BestEntry& b);
};

/// The current time as ISO 8601 UTC with seconds, "2025-01-31T12:00:00Z".
std::string now_utc();

enum class BestMode {
  Replace,  ///< always store (a new tuning run supersedes older results)
  IfFaster, ///< store only when there is no entry or `ns` is lower
};

/// Empty fields match everything.
struct BestFilter {
  std::optional<std::string> model, type, op, kind, problem;
};
struct MeasurementFilter {
  std::optional<std::int64_t> run_id, device_id;
  std::optional<std::string> type, op, kind, policy;
  std::optional<MeasurementStatus> status;
};
/// Which devices an export carries (with their runs, measurements, baselines and
/// best entries). Empty = everything.
struct ExportFilter {
  std::optional<std::string> model; ///< DeviceInfo::model()
  std::optional<std::int64_t> device_id;
  /// false: an empty "measurements" array (winners, baselines and runs only; what
  /// the library's built-in table is generated from).
  bool measurements = true;
};

struct ImportStats {
  std::int64_t devices_added = 0, devices_matched = 0;
  std::int64_t runs_added = 0, runs_matched = 0;
  std::int64_t measurements_added = 0, measurements_skipped = 0;
  std::int64_t baselines_added = 0, baselines_replaced = 0, baselines_kept = 0;
  std::int64_t best_added = 0, best_replaced = 0, best_kept = 0;
};

struct TableCounts {
  std::int64_t devices = 0, runs = 0, measurements = 0, baselines = 0, best = 0;
};

class TuningDb {
public:
  /// Opens (read-write: creating or migrating as needed) the database at `path`.
  /// Throws NoDatabaseError (read-only, file missing or empty) or scantune::CacheError.
  static TuningDb open(const std::filesystem::path& path, OpenOptions options = {});
  /// Read-only open that returns nothing, rather than throwing, when there is no
  /// database at `path`. Other problems still throw.
  static std::optional<TuningDb> open_existing_read_only(const std::filesystem::path& path,
                                                         OpenOptions options = {});

  TuningDb(TuningDb&&) noexcept;
  TuningDb& operator=(TuningDb&&) noexcept;
  ~TuningDb();

  const std::filesystem::path& path() const;
  int schema_version() const;
  bool read_only() const;
  /// The journal mode in use (read-only opens: the file's mode).
  JournalMode journal_mode() const;

  /// A write transaction (BEGIN IMMEDIATE). Calls made while it is open join it;
  /// it rolls back unless commit() is called. One at a time per TuningDb.
  class Transaction {
  public:
    Transaction(Transaction&&) noexcept;
    Transaction& operator=(Transaction&&) = delete;
    ~Transaction();
    void commit();
    void rollback();

  private:
    friend class TuningDb;
    explicit Transaction(TuningDb* db);
    TuningDb* db_;
  };
  Transaction transaction();

  // Devices. add_device returns the id of the device with the same UUID (or, when
  // the UUID is empty, the same model and no UUID), updating its other fields, or
  // inserts a new one.
  std::int64_t add_device(const DeviceInfo& d);
  std::optional<DeviceInfo> device(std::int64_t id) const;
  std::vector<DeviceInfo> list_devices() const;

  // Runs.
  std::int64_t begin_run(const RunInfo& run);
  void end_run(std::int64_t run_id, RunStatus status); ///< sets ended_at = now
  /// Sets an interrupted run back to running (`scantune tune --resume`); throws
  /// scantune::CacheError when `run_id` is not an interrupted run.
  void reopen_run(std::int64_t run_id);
  std::optional<RunInfo> run(std::int64_t id) const;
  std::vector<RunInfo> list_runs() const;

  // Measurements (appended; never replaced).
  std::int64_t add_measurement(const Measurement& m);
  std::vector<Measurement> list_measurements(const MeasurementFilter& f = {}) const;

  // Baselines: one per (device, baseline, type, op, op_hash, kind, size); a new one
  // replaces the old.
  std::int64_t add_baseline(const Baseline& b);
  std::optional<Baseline> baseline_for(std::int64_t device_id, BaselineKind k,
                                       std::string_view type, std::string_view op,
                                       std::string_view op_hash, std::string_view kind,
                                       std::uint64_t size, std::string_view problem = {}) const;
  std::vector<Baseline> list_baselines() const;

  // Best entries. set_best returns whether the entry was stored.
  bool set_best(const BestEntry& e, BestMode mode = BestMode::Replace);
  /// The entry of the bucket of `n`, else of the nearest bucket (the smaller one on
  /// a tie); nothing when the (model, type, op, op_hash, kind, problem) was never tuned.
  std::optional<BestEntry> best_for(std::string_view model, std::string_view type,
                                    std::string_view op, std::string_view op_hash,
                                    std::string_view kind, std::uint64_t n,
                                    std::string_view problem = {}) const;
  std::vector<BestEntry> list_best(const BestFilter& f = {}) const;

  TableCounts counts() const;
  /// "ok", or the problems PRAGMA integrity_check (full) / quick_check reports.
  std::string check_integrity(bool full = true) const;

  // JSON (see docs/database.md for the format). Exports are deterministic: ids are
  // renumbered 1..n in order, so export -> import into an empty DB -> export is
  // identical.
  nlohmann::json export_json(const ExportFilter& filter = {}) const;
  void export_file(const std::filesystem::path& file, const ExportFilter& filter = {}) const;
  /// Merges an export into this database in one transaction (all or nothing):
  /// devices matched by UUID (else model), runs by uid, measurements appended
  /// (skipping exact duplicates of a known run), baselines and best entries
  /// resolved by the lower ns.
  ImportStats import_json(const nlohmann::json& doc);
  ImportStats import_file(const std::filesystem::path& file);
  /// import_json(export of the database at `other`), the other opened read-only.
  ImportStats merge_from(const std::filesystem::path& other);

  struct Impl; ///< internal (cache/db_impl.hpp)

private:
  explicit TuningDb(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace scantune::db
