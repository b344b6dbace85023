// The radix sort's policy fields, key, constraints and problem texts
// (runtime/internal/sort_policy.hpp).
#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "errors.hpp"
#include "policy.hpp"
#include "sort_policy.hpp"
#include "strings.hpp"

namespace scantune::detail {
namespace {

bool parse_field(std::string_view token, std::string_view prefix, int& value) {
  if (token.substr(0, prefix.size()) != prefix) return false;
  const std::string_view digits = token.substr(prefix.size());
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return ec == std::errc() && end == digits.data() + digits.size() && !digits.empty();
}

std::size_t round_up(std::size_t x, std::size_t to) {
  return (x + to - 1) / to * to;
}

constexpr std::string_view kSortKeys = "sort_keys", kSortPairs = "sort_pairs";

} // namespace

const std::vector<SortField>& sort_fields() {
  // The search: the default's neighbourhood. Tiles of 4608 4-byte items (18 KiB
  // exchanged) or 3072 8-byte ones won on the H100; 8-bit digits take the fewest
  // passes, 7-bit ones halve the warps' counters.
  static const std::vector<SortField> fields = {
      {"block_threads",
       "tpb",
       &SortPolicy::block_threads,
       64,
       1024,
       32,
       {256, 384, 512},
       "--block-threads",
       "threads per block (multiples of 32 in [64, 1024])"},
      {"items_per_thread",
       "ipt",
       &SortPolicy::items_per_thread,
       1,
       32,
       1,
       {8, 12, 16, 20},
       "--items-per-thread",
       "keys per thread in a tile ([1, 32])"},
      {"radix_bits",
       "rb",
       &SortPolicy::radix_bits,
       4,
       8,
       1,
       {7, 8},
       "--radix-bits",
       "bits of a digit: one pass each ([4, 8])"},
      // Three 384-thread blocks per SM (56 registers) sorted 2^28 uint32 keys 8% and pairs
      // 30% faster on the H100, and 2^20 keys no faster (docs/decisions.md, radix sort);
      // two won 8-byte keys and pairs at 2^20-2^28 once full tiles dropped their item
      // tests ("Full tiles without item tests").
      {"min_blocks",
       "mb",
       &SortPolicy::min_blocks,
       1,
       4,
       1,
       {1, 2, 3},
       "--min-blocks",
       "resident blocks per SM the onesweep kernel's registers allow ([1, 4])",
       true},
      // Each warp counting its digits before the ranking publishes the tile's counts a
      // ranking's time before it looks back and lets the ranking start from the warps'
      // offsets: the H100 tune takes it for uint32 and uint64 keys from 2^22, not for
      // 4-byte pairs above 2^22 (docs/decisions.md, "Early counts per warp").
      {"early_counts",
       "ec",
       &SortPolicy::early_counts,
       0,
       1,
       1,
       {0, 1},
       "--early-counts",
       "1: publish a tile's digit counts before ranking it ([0, 1])",
       true},
      // Small sorts pay for each operation: 2^16 keys took 50 us in eleven of them (7.5 us
      // a onesweep pass), 30 us in one cooperative launch; from 2^22 a launch a pass wins
      // (docs/decisions.md, "Small sorts in one cooperative launch").
      {"single_launch",
       "sl",
       &SortPolicy::single_launch,
       0,
       1,
       1,
       {0, 1},
       "--single-launch",
       "1: histogram and every pass in one cooperative launch ([0, 1])",
       true},
      // In the single launch every tile of a pass looks back at once: by groups of 8
      // tiles, a tile waits twice on a few loads instead of walking back 4 tiles a round
      // trip; it ran H200 sorts of 2^16 keys 3-7% faster and 2^18 uint64 keys 3-6%
      // slower (docs/decisions.md, "The single launch looks back by groups").
      {"look_back_groups",
       "lg",
       &SortPolicy::look_back_groups,
       0,
       1,
       1,
       {0, 1},
       "--look-back-groups",
       "1: with --single-launch 1, tiles look back by groups of tiles ([0, 1])",
       true},
  };
  return fields;
}

std::string SortPolicy::key() const {
  std::string key = "radix";
  for (const SortField& f : sort_fields())
    if (!f.optional || this->*f.member != SortPolicy{}.*f.member)
      key += fmt::format(".{}{}", f.prefix, this->*f.member);
  return key;
}

SortPolicy SortPolicy::parse(std::string_view key) {
  const auto parts = split(key, '.');
  SortPolicy p;
  bool ok = !parts.empty() && parts[0] == "radix";
  std::size_t next = 1;
  for (const SortField& f : sort_fields()) {
    if (!ok) break;
    if (next < parts.size() && parse_field(parts[next], f.prefix, p.*f.member))
      ++next;
    else
      ok = f.optional;
  }
  if (!ok || next != parts.size()) {
    std::string expected = "radix";
    for (const SortField& f : sort_fields())
      expected += fmt::format(f.optional ? "[.{}<n>]" : ".{}<n>", f.prefix);
    fail("sort policy key '{}': expected {}", key, expected);
  }
  return p;
}

// Static shared memory of radix_onesweep_kernel (onesweep_smem in radix_sort.cuh), or
// of radix_single_launch_kernel: that, or the histogram's counters where larger, and
// the digit starts.
std::size_t SortPolicy::shared_bytes(std::size_t key_bytes, std::size_t value_bytes) const {
  const std::size_t radix = std::size_t{1} << radix_bits;
  const std::size_t counters = static_cast<std::size_t>(block_threads / 32) * radix * 4;
  const std::size_t items =
      static_cast<std::size_t>(tile_items()) * (value_bytes > key_bytes ? value_bytes : key_bytes);
  // onesweep_smem::SEPARATE: room beside the counters for the rest, and in the single
  // launch for its digit starts (onesweep_smem's BESIDE).
  const std::size_t beside = single_launch ? radix * 8 : 0;
  const bool separate = counters + items + radix * 16 + 32 + beside <= kMaxStaticSharedBytes;
  const std::size_t exchange = separate ? items : std::max(counters, items);
  const std::size_t apart = separate ? counters : 4;
  // base, count and start after the 8-aligned counters; tag, tile and pass bits; 16-byte
  // alignment.
  const std::size_t digits = round_up(exchange + apart, 8) + radix * (8 + 4 + 4);
  const std::size_t tile = round_up(round_up(digits, 8) + 8 + 4 + 4, 16);
  if (!single_launch) return tile;
  const std::size_t passes = (8 * key_bytes + radix_bits - 1) / radix_bits;
  return round_up(std::max(tile, passes * radix * 4), 16) + radix * 8;
}

std::optional<std::string> SortPolicy::invalid_reason(std::size_t key_bytes,
                                                      std::size_t value_bytes) const {
  for (const SortField& f : sort_fields()) {
    const int v = this->*f.member;
    if (v < f.min || v > f.max || v % f.multiple_of)
      return f.multiple_of > 1 ? fmt::format("{} {} is not a multiple of {} in [{}, {}]", f.name, v,
                                             f.multiple_of, f.min, f.max)
                               : fmt::format("{} {} is outside [{}, {}]", f.name, v, f.min, f.max);
  }
  if (look_back_groups && !single_launch)
    return "look_back_groups 1 needs single_launch 1 (only there does every tile look back at "
           "once)";
  const std::size_t smem = shared_bytes(key_bytes, value_bytes);
  if (smem > kMaxStaticSharedBytes)
    return fmt::format("the tile needs {} bytes of shared memory for {}-byte keys and {}-byte "
                       "values, more than {}",
                       smem, key_bytes, value_bytes, kMaxStaticSharedBytes);
  return std::nullopt;
}

SortPolicy default_sort_policy(DataType key, std::size_t value_bytes) {
  // 4608 items of 4 bytes (18 KiB exchanged) or 3072 of 8 (24 KiB) per tile; three
  // 384-thread blocks per SM for 4-byte keys, early counts for 8-byte ones (the
  // min_blocks and early_counts fields' measurements).
  if (size_of(key) == 4 && value_bytes <= 4) return {384, 12, 8, 3};
  if (size_of(key) == 8) return {256, 12, 8, 1, 1};
  return {256, 12, 8};
}

std::string sort_problem(std::size_t value_bytes) {
  return value_bytes ? fmt::format("{}{}", kSortPairs, value_bytes) : std::string(kSortKeys);
}

std::optional<std::size_t> parse_sort_problem(std::string_view text) {
  for (std::size_t v : kSortValueBytes)
    if (text == sort_problem(v)) return v;
  return std::nullopt;
}

} // namespace scantune::detail
