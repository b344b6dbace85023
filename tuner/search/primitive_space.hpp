// The search spaces of compaction and radix sort: a compaction's candidates are scan
// policies its kernel takes (the scan engine's grid, narrowed to its tile shape), a
// sort's the product of the sort policy's fields (detail::sort_fields), each filtered
// by the policy's own constraints (problem_invalid_reason, SortPolicy::invalid_reason).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "policy.hpp"
#include "segments.hpp"
#include "sort_policy.hpp"
#include "tuner/search/search_space.hpp"

namespace scantune::tuner {

/// The compaction grid: lookback_warp and lookback_bulk (the algorithms with a
/// compaction kernel; bulk selects and partitions by flags only, in its default stage
/// counts) with warp_scans, the staged tile I/Os, 16-byte vectors, no cache hint,
/// backoff or tile loop; block threads 64..512 and items per thread 8..24. The scan options
/// (--block-threads, --items-per-thread, --vector-bytes, --tile-io, ...) replace a list.
SpaceOptions select_space();

/// Every valid compaction policy of `space` for elements of `type` (for 1- and 2-byte
/// elements the items per thread include 32).
std::vector<Policy> select_candidates(DataType type, detail::Heads how, SpaceOptions space);

/// The sort grid: each sort field's values by name.
using SortSpace = std::map<std::string, std::vector<int>, std::less<>>;
/// Each field's default search values (SortField::search).
SortSpace default_sort_space();
/// Replaces the list of the field whose option is `option` by `text` ("256,384",
/// "8:16"); false when no sort field has that option. Throws scantune::Error naming
/// the option for a bad list.
bool apply_sort_option(SortSpace& space, std::string_view option, std::string_view text);

/// Every valid sort policy of `space` for `key` keys and `value_bytes` values, in
/// the fields' order (the first varies slowest).
std::vector<detail::SortPolicy> sort_candidates(DataType key, std::size_t value_bytes,
                                                const SortSpace& space);

} // namespace scantune::tuner
