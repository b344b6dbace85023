// The policy field table and the rules that need more than a range.
#include "policy_fields.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace scantune::detail {
namespace {

constexpr std::string_view kBlockScanNames[] = {"warp_scans", "hillis_steele", "blelloch",
                                                "blelloch_padded"};
constexpr std::string_view kBlockScanDevice[] = {"BS_WARP_SCANS", "BS_HILLIS_STEELE", "BS_BLELLOCH",
                                                 "BS_BLELLOCH_PADDED"};
constexpr std::string_view kTileIONames[] = {"xpose", "direct", "wxpose"};
constexpr std::string_view kTileIODevice[] = {"IO_TRANSPOSE", "IO_DIRECT", "IO_WARP_TRANSPOSE"};
constexpr std::string_view kCacheDevice[] = {"CACHE_DEFAULT", "CACHE_STREAMING"};

bool tiles(const AlgorithmDesc& a) {
  return a.tiles;
}
// Reduce-then-scan scans its partials with the same tile code, which must stay forward.
bool reverses(const AlgorithmDesc& a) {
  return a.tiles && !a.uses_partials;
}
bool tile_status(const AlgorithmDesc& a) {
  return a.uses_tile_status;
}
bool warp_lookback(const AlgorithmDesc& a) {
  return a.warp_lookback;
}
bool stages_tiles(const AlgorithmDesc& a) {
  return a.stages_tiles;
}
bool one_tile_per_block(const AlgorithmDesc& a) {
  return a.one_tile_per_block;
}
bool bulk(const AlgorithmDesc& a) {
  return a.id == Algorithm::LookbackBulk;
}

std::optional<std::string> block_threads_rule(const Policy& p, const ScanTypes&) {
  if (p.block_threads % 32 != 0)
    return fmt::format("block threads {} is not a multiple of 32 in [32, 1024]", p.block_threads);
  return std::nullopt;
}

// Past 32 items a thread, only lookback_bulk's consumers avoid holding every item in
// registers (they read a lane's elements again for the second pass).
std::optional<std::string> items_rule(const Policy& p, const ScanTypes&) {
  if (p.items_per_thread > 32 && p.algorithm != Algorithm::LookbackBulk)
    return fmt::format("items per thread {} above 32 apply only to lookback_bulk",
                       p.items_per_thread);
  return std::nullopt;
}

std::optional<std::string> min_blocks_rule(const Policy& p, const ScanTypes&) {
  if (p.min_blocks * p.launch_threads() > 2048)
    return fmt::format("{} blocks x {} threads exceed the 2048 threads an SM holds", p.min_blocks,
                       p.launch_threads());
  return std::nullopt;
}

// Vectors move elements as they are in memory: the wider of the input and the output.
std::optional<std::string> vector_rule(const Policy& p, const ScanTypes& t) {
  const int v = p.vector_width;
  const std::size_t size = std::max(size_of(t.in), size_of(t.out));
  if ((v & (v - 1)) != 0) return fmt::format("vector width {} is not a power of two", v);
  if (static_cast<std::size_t>(v) * size > 16)
    return fmt::format("vector width {} x {} bytes exceeds 16 bytes", v, size);
  if (p.items_per_thread % v != 0)
    return fmt::format("items per thread {} is not a multiple of the vector width {}",
                       p.items_per_thread, v);
  return std::nullopt;
}

// Consumers that hold their segment in registers, rows of vectors, and store it: byte sums
// into bytes keep their packed scan, a converting width its own output buffers, and over
// 32 items a thread the second pass re-reads the stage.
std::optional<std::string> early_release_rule(const Policy& p, const ScanTypes& t) {
  if (!p.early_release) return std::nullopt;
  if (p.io != TileIO::Transpose || p.items_per_thread > 32)
    return fmt::format("an early stage release needs the xpose tile I/O and at most 32 items a "
                       "thread, not {} and {}",
                       to_string(p.io), p.items_per_thread);
  if (size_of(t.in) != size_of(t.out) || size_of(t.out) == 1)
    return fmt::format("an early stage release needs input and output of one width above a "
                       "byte, not {} -> {}",
                       to_string(t.in), to_string(t.out));
  return std::nullopt;
}

// Accessors of one Policy member as an int (enums and flags by their number).
#define SCANTUNE_FIELD_ACCESS(member, type)                                                        \
  [](const Policy& p) { return static_cast<int>(p.member); },                                      \
      [](Policy& p, int v) { p.member = static_cast<type>(v); }

// Key order. Each row: name, name in messages, key form, token, usage in errors;
// key names, device names, default, sequential's value, range and its message;
// which algorithms take it and the message otherwise; further rules, template slot,
// omitted at its default, asserted, asserted as a number; the Policy member.
// clang-format off
const std::vector<FieldDesc> kFields{
    {"block_threads", "block threads", KeyForm::Always, "tpb", "",
     nullptr, nullptr, 256, 1, 32, 1024, "block threads {} is not a multiple of 32 in [32, 1024]",
     tiles, "",
     block_threads_rule, 1, false, true, false, SCANTUNE_FIELD_ACCESS(block_threads, int)},
    {"items_per_thread", "items per thread", KeyForm::Always, "ipt", "",
     nullptr, nullptr, 12, 1, 1, 64, "items per thread {} is outside [1, 64]",
     tiles, "",
     items_rule, 2, false, true, false, SCANTUNE_FIELD_ACCESS(items_per_thread, int)},
    {"vector_width", "vector width", KeyForm::Always, "vec", "",
     nullptr, nullptr, 4, 1, 1, 1 << 30, "vector width {} is not a power of two",
     tiles, "",
     vector_rule, 3, false, true, false, SCANTUNE_FIELD_ACCESS(vector_width, int)},
    {"block_scan", "block-scan algorithm", KeyForm::Always, "", "",
     kBlockScanNames, kBlockScanDevice, 0, 0, 0, 3, "",
     tiles, "",
     nullptr, 4, false, false, false, SCANTUNE_FIELD_ACCESS(block_scan, BlockScan)},
    {"tile_io", "tile I/O", KeyForm::EnumName, "", "[.xpose|.direct|.wxpose]",
     kTileIONames, kTileIODevice, 0, 1, 0, 2, "",
     tiles, "",
     nullptr, 5, false, true, false, SCANTUNE_FIELD_ACCESS(io, TileIO)},
    {"cache", "cache hint", KeyForm::Flag, "cs", "[.cs]",
     nullptr, kCacheDevice, 0, 0, 0, 1, "",
     tiles, "",
     nullptr, 7, false, true, true, SCANTUNE_FIELD_ACCESS(streaming, bool)},
    {"backoff_ns", "backoff", KeyForm::Number, "bo", "[.bo<ns>]",
     nullptr, nullptr, 0, 0, 0, 1000000, "backoff {} ns is outside [0, 1000000]",
     tile_status, "a backoff applies only to chained and look-back algorithms",
     nullptr, 6, false, true, false, SCANTUNE_FIELD_ACCESS(backoff_ns, int)},
    {"lookback_span", "look-back span", KeyForm::Number, "span", "[.span<N>]",
     nullptr, nullptr, 1, 1, 1, 8, "look-back span {} is outside [1, 8]",
     warp_lookback,
     "a look-back span applies only to lookback_warp, lookback_pipelined and lookback_bulk",
     nullptr, 8, false, true, false, SCANTUNE_FIELD_ACCESS(lookback_span, int)},
    {"stages", "shared-memory stages", KeyForm::Number, "st", "[.st<N>]",
     nullptr, nullptr, 3, 3, 3, 8, "{} shared-memory stages is outside [3, 8]",
     stages_tiles, "shared-memory stages apply only to lookback_pipelined and lookback_bulk",
     nullptr, 9, false, true, false, SCANTUNE_FIELD_ACCESS(stages, int)},
    {"tiles_per_ticket", "tiles per ticket", KeyForm::Number, "tk", "[.tk<N>]",
     nullptr, nullptr, 1, 1, 1, 8, "tiles per ticket {} is outside [1, 8]",
     bulk, "tiles per ticket apply only to lookback_bulk",
     nullptr, 14, true, true, false, SCANTUNE_FIELD_ACCESS(tiles_per_ticket, int)},
    // A kernel of its own (KernelDesc::loop_entry), not a template argument.
    {"tile_loop", "tile loop", KeyForm::Flag, "loop", "[.loop]",
     nullptr, nullptr, 0, 0, 0, 1, "",
     one_tile_per_block, "a tile loop applies only to chained, lookback_thread and lookback_warp "
                         "(one tile per block)",
     nullptr, 0, false, false, false, SCANTUNE_FIELD_ACCESS(tile_loop, bool)},
    {"min_blocks", "minimum blocks per SM", KeyForm::Number, "mb", "[.mb<N>]",
     nullptr, nullptr, 0, 0, 0, 32, "minimum blocks per SM {} is outside [0, 32]",
     tiles, "",
     min_blocks_rule, 10, true, true, false, SCANTUNE_FIELD_ACCESS(min_blocks, int)},
    {"reproducible", "reproducible combination order", KeyForm::Flag, "repro", "[.repro]",
     nullptr, nullptr, 0, 0, 0, 1, "",
     tile_status, "a reproducible look-back applies only to chained and look-back algorithms",
     nullptr, 11, true, true, true, SCANTUNE_FIELD_ACCESS(reproducible, bool)},
    {"reverse", "reverse (suffix) scan", KeyForm::Flag, "rev", "[.rev]",
     nullptr, nullptr, 0, 0, 0, 1, "",
     reverses, "a reverse scan applies only to single-block, chained and look-back algorithms",
     nullptr, 12, true, true, true, SCANTUNE_FIELD_ACCESS(reverse, bool)},
    {"early_release", "early stage release", KeyForm::Flag, "early", "[.early]",
     nullptr, nullptr, 0, 0, 0, 1, "",
     bulk, "an early stage release applies only to lookback_bulk",
     early_release_rule, 13, true, true, true, SCANTUNE_FIELD_ACCESS(early_release, bool)},
};
// clang-format on

#undef SCANTUNE_FIELD_ACCESS

} // namespace

const std::vector<FieldDesc>& policy_fields() {
  return kFields;
}

const FieldDesc& field_named(std::string_view name) {
  for (const FieldDesc& f : kFields)
    if (f.name == name) return f;
  throw std::out_of_range("no policy field " + std::string(name));
}

std::string key_value(const FieldDesc& f, int value) {
  return f.names ? std::string(f.names[value]) : std::to_string(value);
}

std::string device_value(const FieldDesc& f, int value) {
  return f.device_names ? fmt::format("scantune::{}", f.device_names[value])
                        : std::to_string(value);
}

std::optional<std::string> field_problem(const Policy& p, const ScanTypes& t) {
  const AlgorithmDesc& a = describe(p.algorithm);
  for (const FieldDesc& f : kFields) {
    const int v = f.get(p);
    if (v < f.min || v > f.max) return fmt::format(fmt::runtime(f.range_message), v);
    if (f.check)
      if (auto why = f.check(p, t)) return why;
    if (v != f.default_value && !f.takes(a))
      return fmt::format("{}, not {}", f.applies_message, a.name);
  }
  return std::nullopt;
}

} // namespace scantune::detail
