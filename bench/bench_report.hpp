// bench/bench_report.hpp: results of scantune_bench and their markdown, CSV and JSON forms.
#pragma once

#include <cstddef>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "policy.hpp"

namespace bench {

/// The four things timed for each (type, size).
enum Method : int { kMemcpy = 0, kCub = 1, kPolicy = 2, kDispatch = 3, kNumMethods = 4 };
const char* method_name(Method m); ///< "memcpy", "cub", "scantune", "dispatch"

struct Measurement {
  bool valid = false;     ///< timed successfully
  double ns_per_call = 0; ///< median over batches of (batch time / calls in the batch)
  double min_ns = 0;      ///< fastest batch average
  double max_ns = 0;      ///< slowest batch average
  long calls_per_batch = 0;
  int batches = 0;
  std::string error; ///< what() of the exception a call threw, if any
};

struct Row {
  scantune::DataType type = scantune::DataType::Int32;
  std::size_t n = 0;
  std::size_t elem_bytes = 0;
  int pairs = 1; ///< input/output buffer pairs rotated through
  std::size_t cub_temp_bytes = 0;
  std::string policy;          ///< hand-picked policy of the `scantune` column
  std::string dispatch_policy; ///< what Scanner::choose_policy says the default call runs
  std::string check = "off";   ///< "ok", "FAIL" or "off" (--no-verify)
  Measurement m[kNumMethods];

  /// Bytes moved by one call: n elements read + n elements written.
  double bytes_per_call() const {
    return 2.0 * static_cast<double>(n) * static_cast<double>(elem_bytes);
  }
  /// GB/s (1e9 bytes per second) of method `k`, or 0 when it was not measured.
  double gbps(Method k) const;
};

/// A (type, size) that was not run, and why.
struct Skip {
  scantune::DataType type = scantune::DataType::Int32;
  std::size_t n = 0;
  std::string reason;
};

/// Everything the header of the report says about the setup.
struct RunInfo {
  std::string device_name;
  int device = 0;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::size_t l2_bytes = 0;
  std::size_t mem_total = 0;
  std::size_t mem_free = 0; ///< at start
  double peak_gbps = 0;     ///< 2 x memory clock x bus width; 0 if unknown
  int driver_version = 0;   ///< cudaDriverGetVersion, e.g. 13000
  int runtime_version = 0;  ///< cudaRuntimeGetVersion
  int cub_version = 0;      ///< CUB_VERSION, e.g. 300001
  std::string date;         ///< UTC, ISO 8601
  std::string command;
  std::string kind; ///< "inclusive" / "exclusive"
  bool hot = false;
  std::string rotation; ///< how the rotation was chosen, in words
  int batches = 0;
  double min_batch_ms = 0;
  bool verify = true;
  std::string input;                                  ///< the input data, in words
  std::map<scantune::DataType, std::string> policies; ///< hand-picked policy per type run
};

/// "2^20" for powers of two, the decimal count otherwise.
std::string size_label(std::size_t n);
/// "13.0" from 13000.
std::string cuda_version_string(int v);

void print_preamble(std::FILE* f, const RunInfo& info);
void print_table_header(std::FILE* f, scantune::DataType t, const std::string& policy);
void print_row(std::FILE* f, const Row& r);
void print_skips(std::FILE* f, const std::vector<Skip>& skips, scantune::DataType t);
void print_summary(std::FILE* f, const std::vector<Row>& rows);

/// Write the results; return false (after printing why to stderr) on I/O failure.
bool write_csv(const std::string& path, const RunInfo& info, const std::vector<Row>& rows);
bool write_json(const std::string& path, const RunInfo& info, const std::vector<Row>& rows,
                const std::vector<Skip>& skips);

} // namespace bench
