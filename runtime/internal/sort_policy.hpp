// The radix sort's policy and its problem kinds. One description of its fields
// (sort_fields) gives its key, its parsing, the tuner's search space and the options of
// `scantune tune --sort`; the shared-memory constraint is the policy's own
// (invalid_reason). Host arithmetic only: the built-in table's generator checks its sort
// rows with it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scantune/scantune.hpp"

namespace scantune::detail {

/// A radix sort's tile shape, digit width and register budget; key
/// "radix.tpb384.ipt12.rb8" (".mb3" when the onesweep kernel asks for 3 resident blocks).
struct SortPolicy {
  int block_threads = 384;
  int items_per_thread = 12;
  int radix_bits = 8;
  int min_blocks = 1;       ///< resident blocks per SM the onesweep kernel's registers allow
  int early_counts = 0;     ///< 1: a tile publishes its digit counts before ranking
  int single_launch = 0;    ///< 1: the whole sort in one cooperative launch
  int look_back_groups = 0; ///< 1: the single launch's tiles look back by groups of tiles

  int tile_items() const { return block_threads * items_per_thread; }
  std::string key() const;
  /// Throws InvalidArgument naming the key when it is not one key() writes.
  static SortPolicy parse(std::string_view key);
  /// Static shared memory of its onesweep kernel (or single launch) for keys of
  /// `key_bytes` and values of `value_bytes`: radix_sort.cuh's layout restated.
  std::size_t shared_bytes(std::size_t key_bytes, std::size_t value_bytes) const;
  /// Why this policy cannot sort keys of `key_bytes` with values of `value_bytes`
  /// (shared memory, shape), or nothing.
  std::optional<std::string> invalid_reason(std::size_t key_bytes, std::size_t value_bytes) const;
  friend bool operator==(const SortPolicy& a, const SortPolicy& b) { return a.key() == b.key(); }
};

/// One field of a SortPolicy: its place in the key, its range, the values the tuner
/// searches by default and its `scantune tune` option.
struct SortField {
  std::string_view name;   ///< "block_threads"
  std::string_view prefix; ///< its key token's prefix: "tpb"
  int SortPolicy::*member;
  int min, max, multiple_of;     ///< what the kernel takes (radix_sort.cuh)
  std::vector<int> search;       ///< the tuner's default values
  std::string_view option, help; ///< "--block-threads"
  /// Left out of the key at SortPolicy's default value (keys of earlier policies stay
  /// valid).
  bool optional = false;
};

/// The fields in key order.
const std::vector<SortField>& sort_fields();

/// The untuned policy of a key type and value size (0: keys only).
SortPolicy default_sort_policy(DataType key, std::size_t value_bytes);

/// The value sizes a sort moves: 0 (keys only), 4 and 8.
inline constexpr std::size_t kSortValueBytes[] = {0, 4, 8};

/// The tuning database's `problem` text of a sort: "sort_keys", "sort_pairs4",
/// "sort_pairs8" (its `type` is the key type; `op` and `kind` hold sum inclusive, as
/// for compactions, which have neither either).
std::string sort_problem(std::size_t value_bytes);
/// The value size a sort's problem text names, or nothing for another text.
std::optional<std::size_t> parse_sort_problem(std::string_view text);

} // namespace scantune::detail
