// Segmentations of the bench input (segmentation.hpp).
#include "tuner/gpu/segmentation.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "scan_request.hpp"
#include "scantune/scantune.hpp"
#include "tuner/gpu/input_values.hpp"

namespace scantune::tuner {

namespace {

// The class random offsets are tuned in: the dispatcher's at this size, where they
// average over many segments.
constexpr std::uint64_t kRandomClassElements = std::uint64_t{1} << 30;

std::string word_suffix(const Segmentation& s) {
  return s.word_bytes == 8 ? "64" : "";
}

} // namespace

std::string Segmentation::spec() const {
  const std::string len = random ? "random" : fmt::format("{}", length);
  switch (kind) {
  case Kind::Rows:
    return fmt::format("rows:{}", length);
  case Kind::Flags:
    return fmt::format("flags:{}", length);
  case Kind::RandomFlags:
    return "flags:random";
  case Kind::Keys:
    return fmt::format("keys{}:{}", word_suffix(*this), len);
  case Kind::Offsets:
    return fmt::format("offsets{}:{}", word_suffix(*this), len);
  case Kind::Axis:
    return fmt::format("axis:{}x{}", length, inner);
  case Kind::Flat:
    break;
  }
  return "";
}

std::uint64_t Segmentation::extra_bytes_per_element() const {
  return detail::head_bytes_per_element(heads());
}

std::uint64_t Segmentation::device_bytes_per_element() const {
  if (flat() || axis()) return 0;
  const bool words = kind == Kind::Keys || kind == Kind::Offsets;
  return 4 + (has_flags() ? 1 : 0) + (words ? static_cast<std::uint64_t>(word_bytes) : 0);
}

detail::Heads Segmentation::heads() const {
  using detail::Heads;
  const bool wide = word_bytes == 8;
  switch (kind) {
  case Kind::Rows:
    return Heads::Periodic;
  case Kind::Flags:
  case Kind::RandomFlags:
    return Heads::Flags;
  case Kind::Keys:
    return wide ? Heads::Keys64 : Heads::Keys32;
  case Kind::Offsets:
    return wide ? Heads::Offsets64 : Heads::Offsets32;
  case Kind::Axis:
    return Heads::Axis;
  case Kind::Flat:
    break;
  }
  return Heads::None;
}

std::uint64_t Segmentation::elements(std::uint64_t n) const {
  if (!axis()) return n;
  const std::uint64_t slice = length * inner;
  return slice ? n / slice * slice : 0;
}

detail::ShapeClass Segmentation::shape_at(std::uint64_t n, std::uint64_t seed) const {
  // The request's pointers are never read: shape_class_of looks at counts only.
  static const std::uint64_t placeholder = 0;
  ScanRequest r;
  r.n = n;
  switch (kind) {
  case Kind::Rows:
    r.segments = Segments::rows(length);
    break;
  case Kind::Offsets:
    r.segments.offsets = &placeholder;
    r.segments.num_segments = segment_count(*this, seed, n);
    r.segments.word_bytes = word_bytes;
    break;
  case Kind::Axis:
    detail::set_axis(r, elements(n) / std::max<std::uint64_t>(length * inner, 1), length, inner);
    break;
  default:
    return {};
  }
  return detail::shape_class_of(r);
}

detail::ShapeClass Segmentation::shape() const {
  if (kind == Kind::Offsets && random) return shape_at(kRandomClassElements, 1);
  return shape_at(axis() ? length * inner : length, 1);
}

bool Segmentation::runs_at(std::uint64_t n, std::uint64_t seed) const {
  if (axis()) return elements(n) > 0;
  return kind != Kind::Offsets || shape_at(n, seed) == shape();
}

std::uint64_t random_segment_length(std::uint64_t seed, std::uint64_t k) {
  // The top 53 bits of a hash: u uniform in [0, 1) exactly representable. A seed
  // stream apart from the input values' (input_values.hpp), so flags and values are
  // independent.
  const std::uint64_t h = mix64(k ^ mix64(seed ^ 0x5E6D5E6D5E6D5E6Dull));
  const double u = static_cast<double>(h >> 11) * 0x1.0p-53;
  const auto len = static_cast<std::uint64_t>(std::exp2(u * kRandomSegmentBits));
  return std::clamp<std::uint64_t>(len, 1, (std::uint64_t{1} << kRandomSegmentBits) - 1);
}

std::vector<std::uint8_t> head_flags(const Segmentation& s, std::uint64_t seed, std::size_t n) {
  if (s.flat() || s.axis()) throw Error("head_flags: " + s.spec() + " has no head flags");
  std::vector<std::uint8_t> heads(n, 0);
  if (s.random_lengths()) {
    std::uint64_t k = 0;
    for (std::size_t i = 0; i < n; i += random_segment_length(seed, k++))
      heads[i] = 1;
  } else {
    if (s.length == 0) throw Error("head_flags: segments of 0 elements");
    for (std::size_t i = 0; i < n; i += s.length)
      heads[i] = 1;
  }
  return heads;
}

std::uint64_t segment_count(const Segmentation& s, std::uint64_t seed, std::uint64_t n) {
  if (!s.random_lengths()) return s.length ? (n + s.length - 1) / s.length : 0;
  std::uint64_t k = 0;
  for (std::uint64_t i = 0; i < n; ++k)
    i += random_segment_length(seed, k);
  return k;
}

namespace {

template <class K>
std::vector<K> keys_of(const std::vector<std::uint8_t>& heads) {
  std::vector<K> keys(heads.size());
  K key = 0;
  for (std::size_t i = 0; i < heads.size(); ++i) {
    if (i > 0 && heads[i]) ++key;
    keys[i] = key;
  }
  return keys;
}

} // namespace

std::vector<std::int32_t> segment_keys(const std::vector<std::uint8_t>& heads) {
  const std::vector<std::uint32_t> keys = keys_of<std::uint32_t>(heads); // wraps, as unsigned
  return std::vector<std::int32_t>(keys.begin(), keys.end());
}

std::vector<std::uint64_t> segment_keys64(const std::vector<std::uint8_t>& heads) {
  return keys_of<std::uint64_t>(heads);
}

std::vector<std::uint64_t> segment_starts(const std::vector<std::uint8_t>& heads) {
  std::vector<std::uint64_t> starts;
  for (std::size_t i = 0; i < heads.size(); ++i)
    if (i == 0 || heads[i]) starts.push_back(i);
  return starts;
}

} // namespace scantune::tuner
