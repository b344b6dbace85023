// How `scantune bench --segments` splits its input into segments: none (a flat
// scan), rows of a batched scan, or head flags (periodic, or random lengths from a
// power law). Host code: the head flags and the segment keys CUB's scan by key
// takes are built here once and uploaded by the GPU evaluator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "segments.hpp"
#include "shape_class.hpp"

namespace scantune::tuner {

struct Segmentation {
  enum class Kind { Flat, Rows, Flags, RandomFlags };
  Kind kind = Kind::Flat;
  std::uint64_t length = 0; ///< Rows, Flags: elements per segment

  bool flat() const { return kind == Kind::Flat; }
  /// Whether the scan reads a head flag byte per element (rows need none).
  bool has_flags() const { return kind == Kind::Flags || kind == Kind::RandomFlags; }
  /// "rows:L", "flags:L", "flags:random"; "" when flat (the --segments SPEC).
  std::string spec() const;
  /// Useful bytes a scan reads per element besides its values: the flag byte.
  std::uint64_t extra_bytes_per_element() const { return has_flags() ? 1 : 0; }
  /// Device bytes per element the evaluator adds: the flags, and CUB's int32 keys.
  std::uint64_t device_bytes_per_element() const { return flat() ? 0 : 4 + (has_flags() ? 1 : 0); }
  /// The library's problem kind: none (flat), flags, or periodic heads (rows).
  detail::Heads heads() const {
    return flat()        ? detail::Heads::None
           : has_flags() ? detail::Heads::Flags
                         : detail::Heads::Periodic;
  }
  /// Rows: the class of their length, the dispatcher's for such calls; else none
  /// (flags: the dispatcher sees no segment length).
  detail::ShapeClass shape() const {
    return kind == Kind::Rows ? detail::length_class(length) : detail::ShapeClass{};
  }
  /// The tuning DB's `problem` text ("", "flags", "rows.len_le256").
  std::string problem() const { return detail::classed_problem_text(heads(), shape()); }
};

/// flags:random draws segment lengths floor(2^(u * kRandomSegmentBits)), u uniform
/// in [0, 1): log2 of the length is uniform, so lengths follow the power law
/// p(len) ~ 1/len on [1, 2^20): 5% of the segments have one element, half have
/// fewer than 1024, and most elements sit in the few long ones (mean about 75 000).
inline constexpr int kRandomSegmentBits = 20;

/// The length of the k-th random segment for `seed`, in [1, 2^kRandomSegmentBits).
std::uint64_t random_segment_length(std::uint64_t seed, std::uint64_t k);

/// Head flags of elements [0, n): 1 where a segment starts (element 0 always),
/// else 0. Rows get theirs too (every length-th element), for the reference and
/// the keys. Not for flat.
std::vector<std::uint8_t> head_flags(const Segmentation& s, std::uint64_t seed, std::size_t n);

/// The segment index of each element (the inclusive scan of the heads, minus one):
/// the keys of CUB's scan by key. Wraps modulo 2^32, which keeps neighbours of
/// different segments different.
std::vector<std::int32_t> segment_keys(const std::vector<std::uint8_t>& heads);

} // namespace scantune::tuner
