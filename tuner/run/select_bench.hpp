// `scantune bench --select`: stream compaction on this GPU now. Per element type, pattern
// and size: the scanner's compaction (its dispatch, or a given policy), CUB's (DeviceSelect
// Flagged or Unique, DevicePartition::Flagged), and a device memcpy moving the bytes the
// compaction moves (values and flags read, the kept values written). Both compactions are
// checked against each other once, then timed like the tuner times its baselines.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "policy.hpp"
#include "scantune/scantune.hpp"

namespace scantune::tuner {

/// A compaction and the items it keeps: "flags:P" (select_flagged, each item flagged with
/// probability P, independently), "clustered:P" (select_flagged, each block of 256 items
/// split at a hashed point into two runs, each run flagged with probability P),
/// "unique:P" (unique, each item unlike the one before with probability P) or
/// "partition:P" (partition_flagged, flagged as flags:P).
struct SelectPattern {
  Compaction how = Compaction::SelectFlagged;
  bool clustered = false;
  double fraction = 0.5;
  std::string text;
};
/// A comma-separated list of patterns; throws UsageError (tune.hpp) naming a bad one.
std::vector<SelectPattern> parse_select_patterns(std::string_view list);

struct SelectBenchRow {
  DataType type = DataType::Int32;
  std::string pattern;
  std::uint64_t n = 0, selected = 0;
  double scantune_ns = 0, cub_ns = 0, memcpy_ns = 0;
  std::string policy; ///< what ran: --policy, else the dispatch's (Scanner::select_plan)
  Compaction how = Compaction::SelectFlagged;
};

/// Runs the benchmark on the current device (the scanner reads `db_path`, empty = the
/// default database; a type in `policies` runs that compaction policy instead of the
/// dispatch's); `log` hears progress lines.
std::vector<SelectBenchRow> run_select_bench(const std::vector<DataType>& types,
                                             const std::vector<SelectPattern>& patterns,
                                             const std::vector<std::uint64_t>& sizes,
                                             const std::string& db_path,
                                             const std::map<DataType, Policy>& policies,
                                             const std::function<void(const std::string&)>& log);

/// A markdown table of the rows: times, scantune's speed against CUB's and memcpy's.
std::string select_bench_markdown(const std::vector<SelectBenchRow>& rows);

/// Bytes a compaction moves (bench_report's GB/s): n values and (but for unique) n flags
/// read, the kept values written (a partition's: all n).
double select_bytes_moved(const SelectBenchRow& r);

/// What `bench --select --json` writes: an array of one document per type and pattern,
/// in the rows' order, shaped as a scan bench's (bench_report.hpp) so that
/// scripts/ab_summary.py reads it: {"format": "scantune-bench", "version": 1, "type",
/// "select": pattern, "sizes", "series": [{"name": "tuned" | "cub" | "memcpy",
/// "points": [{"size", "ns", "gbs", "policy", "selected"}]}]}.
nlohmann::json select_bench_to_json(const std::vector<SelectBenchRow>& rows);

} // namespace scantune::tuner
