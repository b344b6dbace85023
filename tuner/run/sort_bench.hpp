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
  unsigned key_bits = 0; ///< keys in [0, 2^key_bits); 0: random bit patterns
  std::uint64_t n = 0;
  double scantune_ns = 0, cub_ns = 0;
  std::string policy; ///< what ran: --policy's, else the dispatch's (Scanner::sort_plan)
};

/// Throws UsageError unless `key_bits` (bench --key-bits) is 0, or below the width of
/// every one of `types`, all of them integers.
void check_sort_key_bits(unsigned key_bits, const std::vector<DataType>& types);

/// Runs the benchmark on the current device with the dispatch of the tuning database at
/// `db_path` (empty: the default one), or for a key type in `policies` with that policy,
/// on random keys, or with `key_bits` on keys in [0, 2^key_bits) (both sorts still sort
/// every bit); `log` hears progress lines.
std::vector<SortBenchRow> run_sort_bench(const std::vector<DataType>& types,
                                         const std::vector<bool>& modes,
                                         const std::vector<std::uint64_t>& sizes,
                                         const std::map<DataType, detail::SortPolicy>& policies,
                                         unsigned key_bits, const std::string& db_path,
                                         const std::function<void(const std::string&)>& log);

/// A markdown table: times, keys per second, GB/s of one read and one write of the keys
/// (and values), and CUB's time over scantune's.
std::string sort_bench_markdown(const std::vector<SortBenchRow>& rows);

} // namespace scantune::tuner
