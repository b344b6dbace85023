// `scantune bench --sort keys,pairs,pairs8,indices`: the radix sort on this GPU now. Per
// key type, mode (keys only, pairs with 4- or 8-byte values, or 8-byte indices made by
// the sort) and size: the scanner's sort_keys/sort_pairs/sort_with_indices and CUB's
// DeviceRadixSort::SortKeys/SortPairs (for indices, SortPairs of 8-byte positions made
// beforehand, as torch.sort does, the making not timed), checked against each other once
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

/// What moves with the keys: nothing, 4- or 8-byte values, or 8-byte indices made by the
/// sort.
enum class SortMode { Keys, Pairs, Pairs8, Indices };

/// "keys", "pairs", "pairs8" or "indices", comma-separated; throws UsageError (tune.hpp)
/// naming a bad one.
std::vector<SortMode> parse_sort_modes(std::string_view list);

/// Bytes a value of `mode` takes (0, 4, 8).
std::size_t sort_value_bytes(SortMode mode);

struct SortBenchRow {
  DataType type = DataType::UInt32;
  SortMode mode = SortMode::Keys;
  unsigned key_bits = 0; ///< keys in [0, 2^key_bits); 0: random bit patterns
  std::uint64_t n = 0;
  double scantune_ns = 0, cub_ns = 0;
  std::string policy; ///< what ran: --policy's, else the dispatch's (ScannerAccess::sort_choice)
};

/// Throws UsageError unless `key_bits` (bench --key-bits) is 0, or below the width of
/// every one of `types`, all of them integers.
void check_sort_key_bits(unsigned key_bits, const std::vector<DataType>& types);

/// Runs the benchmark on the current device with the dispatch of the tuning database at
/// `db_path` (empty: the default one), or for a key type in `policies` with that policy,
/// on random keys, or with `key_bits` on keys in [0, 2^key_bits) (both sorts still sort
/// every bit); `log` hears progress lines.
std::vector<SortBenchRow> run_sort_bench(const std::vector<DataType>& types,
                                         const std::vector<SortMode>& modes,
                                         const std::vector<std::uint64_t>& sizes,
                                         const std::map<DataType, detail::SortPolicy>& policies,
                                         unsigned key_bits, const std::string& db_path,
                                         const std::function<void(const std::string&)>& log);

/// A markdown table: times, keys per second, GB/s of one read and one write of the keys
/// (and values), and CUB's time over scantune's.
std::string sort_bench_markdown(const std::vector<SortBenchRow>& rows);

} // namespace scantune::tuner
