// Length classes: the shape of a batched, CSR-segmented or axis scan beyond n. Their
// best configuration depends on how long a segment (a row, a column) is, not only on
// n: 2^24 elements as 4 rows of 2^22 and as 2^22 rows of 4 are different problems. So
// the problem text of each kind whose segment length is known at dispatch carries a
// coarse class of it (docs/decisions.md): "rows.len_le256", "offsets32.len_gt4096",
// "axis.len_le16.inner_le32". Flags and keys stay unclassed: their lengths are known
// only after a pass over the data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "default_policies.hpp"
#include "segments.hpp"

namespace scantune {
struct ScanRequest;
}

namespace scantune::detail {

/// A problem's length class; {0, 0}: unclassed (flat scans, flags, keys, compactions,
/// and entries stored before classes existed).
struct ShapeClass {
  int len = 0;   ///< 0: none; 1..kLenClasses: length <= 2, 4, 8, 16, 256, 4096, above
  int inner = 0; ///< axis scans: 0: none; 1..kInnerClasses: inner <= 32, <= 64, above

  bool classed() const { return len != 0; }
  friend bool operator==(ShapeClass a, ShapeClass b) {
    return a.len == b.len && a.inner == b.inner;
  }
  friend bool operator!=(ShapeClass a, ShapeClass b) { return !(a == b); }
};
inline constexpr int kLenClasses = 7;
inline constexpr int kInnerClasses = 3;

/// Whether problems of kind `h` are classed: rows, offsets and axis scans.
bool takes_shape_class(Heads h);
/// The class of segments of `len` elements (a row length, an average CSR segment).
ShapeClass length_class(std::uint64_t len);
/// The class of an axis scan along `len` elements with `inner` columns.
ShapeClass axis_class(std::uint64_t len, std::uint64_t inner);
/// The largest shape of axis class `c` (0 where the class has no bound), which the
/// default axis policy of the whole class is made for.
AxisShape axis_class_shape(ShapeClass c);
/// The class of a request of kind problem_of(r): from its row length, its average
/// segment length (n / num_segments) or its axis; unclassed for the other kinds.
/// Defined beside problem_of (scanner.cpp).
ShapeClass shape_class_of(const ScanRequest& r);

/// The problem text of kind `h` in class `c`: "rows", "rows.len_le256",
/// "axis.len_le16.inner_le32" (`c` ignored unless `h` takes a class).
std::string classed_problem_text(Heads h, ShapeClass c);

/// A problem kind and its class, parsed from a problem text.
struct ClassedHeads {
  Heads heads = Heads::None;
  ShapeClass shape;
};
/// Parses a problem text made by classed_problem_text; nothing for any other text, with
/// the reason in `why` when given ("axis.len_le16: an axis class names len and inner").
std::optional<ClassedHeads> parse_classed_heads(std::string_view text, std::string* why = nullptr);

/// A dense index of (kind, class) for the route cache's lock-free slots: the kinds
/// unclassed, then each classed kind's classes; below kProblemSlots.
std::size_t problem_slot(Heads h, ShapeClass c);
inline constexpr std::size_t kProblemSlots =
    kHeadsCount + 3 * kLenClasses + kLenClasses * kInnerClasses;

} // namespace scantune::detail
