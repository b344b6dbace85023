#include "shape_class.hpp"

#include <array>

#include <fmt/format.h>

namespace scantune::detail {
namespace {

// Few classes keep tuning affordable: one tuning per class and size bucket. A row of
// up to 16 elements sits inside one thread's items, up to 256 inside one warp's or
// block's tile, up to 4096 inside a few tiles; longer ones span many tiles and scan
// like flat runs. Columns of 2, 4 or 8 rows have axis tiles of as many rows
// (default_axis_policy), so those classes are apart.
constexpr std::array<std::uint64_t, kLenClasses - 1> kLenBounds = {2, 4, 8, 16, 256, 4096};
constexpr std::array<std::string_view, kLenClasses> kLenNames = {
    "len_le2", "len_le4", "len_le8", "len_le16", "len_le256", "len_le4096", "len_gt4096"};
// Axis columns: one per lane of a warp, two, or more (the axis tile's vector width).
constexpr std::array<std::uint64_t, kInnerClasses - 1> kInnerBounds = {32, 64};
constexpr std::array<std::string_view, kInnerClasses> kInnerNames = {"inner_le32", "inner_le64",
                                                                     "inner_gt64"};

template <std::size_t N>
int index_of(const std::array<std::string_view, N>& names, std::string_view text) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == text) return static_cast<int>(i) + 1;
  return 0;
}

template <std::size_t N>
std::string expected(const std::array<std::string_view, N>& names) {
  return fmt::format("{}", fmt::join(names, ", "));
}

std::optional<ClassedHeads> refuse(std::string* why, std::string reason) {
  if (why) *why = std::move(reason);
  return std::nullopt;
}

} // namespace

bool takes_shape_class(Heads h) {
  return h == Heads::Periodic || h == Heads::Offsets32 || h == Heads::Offsets64 || h == Heads::Axis;
}

ShapeClass length_class(std::uint64_t len) {
  int c = 1;
  while (c < kLenClasses && len > kLenBounds[static_cast<std::size_t>(c - 1)])
    ++c;
  return {c, 0};
}

ShapeClass axis_class(std::uint64_t len, std::uint64_t inner) {
  int c = 1;
  while (c < kInnerClasses && inner > kInnerBounds[static_cast<std::size_t>(c - 1)])
    ++c;
  return {length_class(len).len, c};
}

AxisShape axis_class_shape(ShapeClass c) {
  AxisShape s;
  if (c.len >= 1 && c.len < kLenClasses) s.len = kLenBounds[static_cast<std::size_t>(c.len - 1)];
  if (c.inner >= 1 && c.inner < kInnerClasses)
    s.inner = kInnerBounds[static_cast<std::size_t>(c.inner - 1)];
  return s;
}

std::string classed_problem_text(Heads h, ShapeClass c) {
  std::string text(to_string(h));
  if (!takes_shape_class(h) || !c.classed()) return text;
  text += fmt::format(".{}", kLenNames[static_cast<std::size_t>(c.len - 1)]);
  if (h == Heads::Axis)
    text += fmt::format(".{}", kInnerNames[static_cast<std::size_t>(c.inner - 1)]);
  return text;
}

std::optional<ClassedHeads> parse_classed_heads(std::string_view text, std::string* why) {
  const std::size_t dot = text.find('.');
  const std::string_view kind = text.substr(0, dot);
  const std::optional<Heads> h = parse_heads(kind);
  if (!h) return refuse(why, fmt::format("unknown problem '{}'", text));
  ClassedHeads out{*h, {}};
  if (dot == std::string_view::npos) return out;
  if (!takes_shape_class(*h))
    return refuse(why, fmt::format("problem '{}': a {} problem has no length class", text,
                                   kind.empty() ? "flat" : kind));
  std::string_view rest = text.substr(dot + 1);
  const std::size_t dot2 = rest.find('.');
  out.shape.len = index_of(kLenNames, rest.substr(0, dot2));
  if (!out.shape.len)
    return refuse(why, fmt::format("problem '{}': unknown length class '{}' (expected {})", text,
                                   rest.substr(0, dot2), expected(kLenNames)));
  if (*h != Heads::Axis) {
    if (dot2 == std::string_view::npos) return out;
    return refuse(why,
                  fmt::format("problem '{}': a {} problem's class is its length only", text, kind));
  }
  if (dot2 == std::string_view::npos)
    return refuse(why, fmt::format("problem '{}': an axis class names its length and its inner "
                                   "columns, as in axis.len_le16.inner_le32",
                                   text));
  out.shape.inner = index_of(kInnerNames, rest.substr(dot2 + 1));
  if (!out.shape.inner)
    return refuse(why, fmt::format("problem '{}': unknown inner class '{}' (expected {})", text,
                                   rest.substr(dot2 + 1), expected(kInnerNames)));
  return out;
}

std::size_t problem_slot(Heads h, ShapeClass c) {
  const auto heads = static_cast<std::size_t>(h);
  if (!takes_shape_class(h) || !c.classed()) return heads;
  const auto len = static_cast<std::size_t>(c.len - 1);
  const std::size_t first = kHeadsCount; // rows, offsets32, offsets64: kLenClasses each
  switch (h) {
  case Heads::Periodic:
    return first + len;
  case Heads::Offsets32:
    return first + kLenClasses + len;
  case Heads::Offsets64:
    return first + 2 * kLenClasses + len;
  default: // axis
    return first + 3 * kLenClasses + len * kInnerClasses + static_cast<std::size_t>(c.inner - 1);
  }
}

} // namespace scantune::detail
