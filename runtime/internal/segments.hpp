// Where a segmented scan's heads come from: the problem kind beside flat scans in
// kernel specs, routes and dispatch (templates/segmented_scan.cuh's heads_id).
#pragma once

#include <string_view>

#include "scantune/types.hpp"

namespace scantune::detail {

enum class Heads {
  None,     ///< a flat scan
  Flags,    ///< one head flag byte per element
  Periodic, ///< a head every row_length elements (batched rows)
};

/// The heads a Segments describes (None when it describes none).
inline Heads heads_of(const Segments& s) {
  return s.head_flags ? Heads::Flags : s.row_length ? Heads::Periodic : Heads::None;
}

/// Throws InvalidArgument unless `s` gives exactly one of head flags and a row length.
void check_segments(const Segments& s);

/// "" (flat), "flags", "rows": the problem's suffix in keys and labels.
inline std::string_view to_string(Heads h) {
  return h == Heads::Flags ? "flags" : h == Heads::Periodic ? "rows" : "";
}

/// The template argument naming the heads ("scantune::HEADS_FLAGS").
inline std::string_view device_heads_name(Heads h) {
  return h == Heads::Flags ? "scantune::HEADS_FLAGS" : "scantune::HEADS_PERIODIC";
}

} // namespace scantune::detail
