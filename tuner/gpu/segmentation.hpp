// How `scantune bench --segments` splits its input into segments: none (a flat
// scan), rows of a batched scan, head flags, keys or CSR offsets (periodic, or random
// lengths from a power law), or columns of an axis scan. Host code: the heads, keys,
// offsets and the segment keys CUB's scan by key takes are built here once and
// uploaded by the GPU evaluator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "segments.hpp"
#include "shape_class.hpp"

namespace scantune::tuner {

struct Segmentation {
  /// Keys and Offsets: the segments of Flags (length L) or of RandomFlags (`random`),
  /// given as segment ids or CSR begin offsets of `word_bytes`. Axis: a scan along the
  /// middle axis of outer x length x inner, outer = n / (length * inner).
  enum class Kind { Flat, Rows, Flags, RandomFlags, Keys, Offsets, Axis };
  Kind kind = Kind::Flat;
  std::uint64_t length = 0; ///< Rows, Flags, Keys, Offsets: elements per segment; Axis: rows
  bool random = false;      ///< Keys, Offsets: flags:random's power-law lengths
  int word_bytes = 4;       ///< Keys, Offsets: bytes of a key or an offset
  std::uint64_t inner = 0;  ///< Axis: columns

  bool flat() const { return kind == Kind::Flat; }
  bool axis() const { return kind == Kind::Axis; }
  /// Whether the scan reads a head flag byte per element (rows need none).
  bool has_flags() const { return kind == Kind::Flags || kind == Kind::RandomFlags; }
  /// Whether segment lengths are drawn from the power law (flags:random and its kin).
  bool random_lengths() const { return kind == Kind::RandomFlags || random; }
  /// "rows:L", "flags:L", "flags:random", "keys64:L", "offsets:random", "axis:LxC"; ""
  /// when flat (the --segments SPEC).
  std::string spec() const;
  /// Useful bytes a scan reads per element besides its values: a flag byte, a key.
  std::uint64_t extra_bytes_per_element() const;
  /// Device bytes per element the evaluator adds: flags, keys or offsets (at most one a
  /// element), and CUB's int32 keys.
  std::uint64_t device_bytes_per_element() const;
  /// The library's problem kind.
  detail::Heads heads() const;
  /// Elements a scan of n runs: axis scans round n down to whole outer slices.
  std::uint64_t elements(std::uint64_t n) const;
  /// The dispatcher's class of this segmentation's call over n elements (input seed
  /// `seed`): shape_class_of of the request it makes.
  detail::ShapeClass shape_at(std::uint64_t n, std::uint64_t seed) const;
  /// The problem's class: rows and offsets of L elements the class of L, random offsets
  /// their class at 2^30 elements, axis scans the class of (L, C); else none (flags and
  /// keys: the dispatcher sees no segment length).
  detail::ShapeClass shape() const;
  /// Whether a call of n elements is this problem as dispatch keys it: axis scans need
  /// a whole outer slice, offsets a call of the problem's class.
  bool runs_at(std::uint64_t n, std::uint64_t seed) const;
  /// The tuning DB's `problem` text ("", "flags", "rows.len_le256", "axis.len_le4.inner_gt64").
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
/// the keys and offsets. Not for flat or axis scans.
std::vector<std::uint8_t> head_flags(const Segmentation& s, std::uint64_t seed, std::size_t n);

/// Segments starting in [0, n): the length of the offsets minus one.
std::uint64_t segment_count(const Segmentation& s, std::uint64_t seed, std::uint64_t n);

/// The segment index of each element (the inclusive scan of the heads, minus one):
/// the keys of CUB's scan by key. Wraps modulo 2^32, which keeps neighbours of
/// different segments different.
std::vector<std::int32_t> segment_keys(const std::vector<std::uint8_t>& heads);
/// The same segment indices as 64-bit keys (no wrap).
std::vector<std::uint64_t> segment_keys64(const std::vector<std::uint8_t>& heads);
/// The CSR begin offsets of the heads: each head's index (0 first), without the end.
std::vector<std::uint64_t> segment_starts(const std::vector<std::uint8_t>& heads);

} // namespace scantune::tuner
