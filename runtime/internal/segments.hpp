// Where a segmented scan's heads come from: the problem kind beside flat scans in
// kernel specs, routes and dispatch (templates/segmented_scan.cuh's heads_id).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "scantune/scantune.hpp"

namespace scantune {
struct ScanRequest;
}

namespace scantune::detail {

enum class Heads {
  None,      ///< a flat scan
  Flags,     ///< one head flag byte per element
  Periodic,  ///< a head every row_length elements (batched rows)
  Keys32,    ///< a head where a 32-bit key differs from the one before
  Keys64,    ///< the same with 64-bit keys
  Offsets32, ///< a head at each of 32-bit CSR begin offsets
  Offsets64, ///< the same with 64-bit offsets
  /// Not a head source: a scan along the middle axis of outer x len x inner (its own
  /// kernel, axis_scan.cuh), a problem kind beside the segmented ones.
  Axis,
  /// Not a scan: a reduction into one element (reduce_kernel), the local step of
  /// distributed scans; its tile shape comes from the flat scan's dispatch.
  Reduce,
  /// Not scans either: stream compaction (templates/select.cuh's select_mode_id), each
  /// a problem kind of its own. Select by a flag byte per element, select by a predicate
  /// (compiled from source like a custom operator), unique (drop consecutive
  /// duplicates), stable two-way partition by flags or by a predicate.
  SelectFlags,
  SelectIf,
  Unique,
  PartitionFlags,
  PartitionIf,
};
inline constexpr std::size_t kHeadsCount = 14;

/// The problem kind of a compaction.
inline Heads compaction_heads(Compaction how) {
  constexpr Heads kinds[] = {Heads::SelectFlags, Heads::SelectIf, Heads::Unique,
                             Heads::PartitionFlags, Heads::PartitionIf};
  return kinds[static_cast<std::size_t>(how)];
}
/// The compaction of a problem kind (`h`: a compaction's).
inline Compaction compaction_of(Heads h) {
  return static_cast<Compaction>(static_cast<int>(h) - static_cast<int>(Heads::SelectFlags));
}
/// A predicate as the custom operator routes and kernel specs key on (its identity is
/// never used).
inline CustomOp predicate_op(const Predicate& p) {
  return {p.name, p.body, "false"};
}

/// Whether `h` is a compaction (select_kernel), one that takes a predicate, or a partition.
inline bool is_compaction(Heads h) {
  return h >= Heads::SelectFlags;
}
inline bool takes_predicate(Heads h) {
  return h == Heads::SelectIf || h == Heads::PartitionIf;
}
inline bool is_partition(Heads h) {
  return h == Heads::PartitionFlags || h == Heads::PartitionIf;
}

/// Bytes a head source reads per element: a flag byte (head flags, a compaction's flags)
/// or a key; 0 for the others (rows, CSR offsets, which are not per element).
inline std::size_t head_bytes_per_element(Heads h) {
  const bool flags = h == Heads::Flags || h == Heads::SelectFlags || h == Heads::PartitionFlags;
  return flags ? 1 : h == Heads::Keys32 ? 4 : h == Heads::Keys64 ? 8 : 0;
}

/// The heads a Segments describes (None when it describes none).
inline Heads heads_of(const Segments& s) {
  const bool wide = s.word_bytes == 8;
  if (s.head_flags) return Heads::Flags;
  if (s.row_length) return Heads::Periodic;
  if (s.keys) return wide ? Heads::Keys64 : Heads::Keys32;
  if (s.offsets) return wide ? Heads::Offsets64 : Heads::Offsets32;
  return Heads::None;
}

/// Throws InvalidArgument unless `s` gives exactly one head source, well formed.
void check_segments(const Segments& s);

/// Makes `r` an axis scan of outer x len x inner elements (inner == 1: rows, a
/// segmented scan); throws InvalidArgument when the count overflows.
void set_axis(ScanRequest& r, std::size_t outer, std::size_t len, std::size_t inner);

/// The problem kind of a request: its compaction, Reduce, Axis, else its head source.
Heads problem_of(const ScanRequest& r);

/// SCANTUNE_CHECK=1 asks for the checks below (debugging; they synchronize).
bool segment_check_requested();
/// Throws InvalidArgument naming the first offset that breaks the CSR contract
/// (offsets[0] == 0, never decreasing, none above n, the last == n).
void check_offsets_contract(const std::vector<std::uint64_t>& offsets, std::size_t n);
/// With SCANTUNE_CHECK=1 (and outside stream capture), reads a request's CSR offsets
/// back from the device and checks them; otherwise nothing.
void check_segments_on_device_data(const ScanRequest& r);

/// "" (flat), "flags", "rows", "keys32", ...: the problem's suffix in keys and labels.
inline std::string_view to_string(Heads h) {
  constexpr std::string_view names[kHeadsCount] = {
      "",     "flags",  "rows",         "keys32",    "keys64", "offsets32",       "offsets64",
      "axis", "reduce", "select_flags", "select_if", "unique", "partition_flags", "partition_if"};
  return names[static_cast<std::size_t>(h)];
}

/// The problem kind a DB `problem` text names (to_string's inverse), or nothing.
inline std::optional<Heads> parse_heads(std::string_view text) {
  for (std::size_t i = 0; i < kHeadsCount; ++i)
    if (to_string(static_cast<Heads>(i)) == text) return static_cast<Heads>(i);
  return std::nullopt;
}

/// The template argument naming the heads ("scantune::HEADS_FLAGS") or the compaction
/// ("scantune::SELECT_FLAGS").
inline std::string_view device_heads_name(Heads h) {
  constexpr std::string_view names[kHeadsCount] = {"",
                                                   "scantune::HEADS_FLAGS",
                                                   "scantune::HEADS_PERIODIC",
                                                   "scantune::HEADS_KEYS32",
                                                   "scantune::HEADS_KEYS64",
                                                   "scantune::HEADS_OFFSETS32",
                                                   "scantune::HEADS_OFFSETS64",
                                                   "",
                                                   "",
                                                   "scantune::SELECT_FLAGS",
                                                   "scantune::SELECT_IF",
                                                   "scantune::SELECT_UNIQUE",
                                                   "scantune::PARTITION_FLAGS",
                                                   "scantune::PARTITION_IF"};
  return names[static_cast<std::size_t>(h)];
}

} // namespace scantune::detail
