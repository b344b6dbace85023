// `scantune bench --sort keys,pairs`: the radix sort on this GPU now. Per key type, mode
// (keys only, or pairs with 4-byte values) and size: the scanner's sort_keys/sort_pairs
// and CUB's DeviceRadixSort::SortKeys/SortPairs, checked against each other once
// (keys and values bit for bit) on keys without -0.0 or NaN, then timed like the select
// bench.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "scantune/scantune.hpp"
#include "sort_policy.hpp"

namespace scantune::tuner {

/// "keys" or "pairs", comma-separated; throws UsageError (tune.hpp) naming a bad one.
std::vector<bool> parse_sort_modes(std::string_view list);

struct SortBenchRow {
  DataType type = DataType::UInt32;
  bool pairs = false;
  std::uint64_t n = 0;
  double scantune_ns = 0, cub_ns = 0;
  std::string policy; ///< what ran: --policy's, else the dispatch's (Scanner::sort_plan)
};

/// Runs the benchmark on the current device with the dispatch of the tuning database at
/// `db_path` (empty: the default one), or for a key type in `policies` with that policy;
/// `log` hears progress lines.
std::vector<SortBenchRow> run_sort_bench(const std::vector<DataType>& types,
                                         const std::vector<bool>& modes,
                                         const std::vector<std::uint64_t>& sizes,
                                         const std::map<DataType, detail::SortPolicy>& policies,
                                         const std::string& db_path,
                                         const std::function<void(const std::string&)>& log);

/// A markdown table: times, keys per second, GB/s of one read and one write of the keys
/// (and values), and CUB's time over scantune's.
std::string sort_bench_markdown(const std::vector<SortBenchRow>& rows);

} // namespace scantune::tuner
