// Segmentations of the bench input (segmentation.hpp).
#include "tuner/gpu/segmentation.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "scantune/scantune.hpp"
#include "tuner/gpu/input_values.hpp"

namespace scantune::tuner {

std::string Segmentation::spec() const {
  switch (kind) {
  case Kind::Rows:
    return fmt::format("rows:{}", length);
  case Kind::Flags:
    return fmt::format("flags:{}", length);
  case Kind::RandomFlags:
    return "flags:random";
  case Kind::Flat:
    break;
  }
  return "";
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
  if (s.flat()) throw Error("head_flags: a flat scan has no segments");
  std::vector<std::uint8_t> heads(n, 0);
  if (s.kind == Segmentation::Kind::RandomFlags) {
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

std::vector<std::int32_t> segment_keys(const std::vector<std::uint8_t>& heads) {
  std::vector<std::int32_t> keys(heads.size());
  std::uint32_t key = 0;
  for (std::size_t i = 0; i < heads.size(); ++i) {
    if (i > 0 && heads[i]) ++key;
    keys[i] = static_cast<std::int32_t>(key);
  }
  return keys;
}

} // namespace scantune::tuner
