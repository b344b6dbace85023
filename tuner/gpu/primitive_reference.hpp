// Inputs and host references of the tuned compactions and radix sorts (host code):
// elements as the bytes of their type: sorts' keys one of the six 4- and 8-byte types,
// compactions' items any element type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "scantune/scantune.hpp"
#include "segments.hpp"

namespace scantune::tuner {

/// A compaction's input (runs of two equal items and more, half the items flagged, by
/// a counter hash of `seed`) and what it must give: the selected items in input order
/// (unique: the first of each run), a partition's rejected ones after them.
struct SelectCase {
  std::vector<std::uint8_t> items, flags, expected;
  std::uint64_t selected =
      0; ///< the count it must report (items of `expected` before rejected ones)
};
SelectCase select_case(DataType type, detail::Heads how, std::uint64_t n, std::uint64_t seed);

/// A sort's input (Wide keys: no -0.0 or NaN; values their own index, 4 or 8 bytes)
/// and its stable ascending order, computed by a host LSD radix sort.
struct SortCase {
  std::vector<std::uint8_t> keys, values, expected_keys, expected_values;
};
SortCase sort_case(DataType key, std::size_t value_bytes, std::uint64_t n, std::uint64_t seed);

} // namespace scantune::tuner
