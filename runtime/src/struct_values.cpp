#include "struct_values.hpp"

#include <fmt/format.h>

#include "algorithms.hpp"

namespace scantune::detail {

std::optional<std::string> struct_invalid_reason(const Policy& p, std::size_t bytes) {
  switch (p.algorithm) {
  case Algorithm::LookbackPipelined:
  case Algorithm::LookbackBulk:
    return fmt::format("{} copies tiles in fixed-width chunks; struct values run on "
                       "sequential, single_block, reduce_then_scan, chained, lookback_thread "
                       "or lookback_warp",
                       describe(p.algorithm).name);
  default:
    break;
  }
  // The rules of every field at 4-byte width, then the struct's own vector and tile sizes.
  if (auto why = p.invalid_reason(ScanTypes{kStructStandIn, kStructStandIn, kStructStandIn}))
    return why;
  if (!describe(p.algorithm).tiles) return std::nullopt;
  const std::size_t vec = static_cast<std::size_t>(p.vector_width) * bytes;
  if (vec > 16 || (vec != 12 && (vec & (vec - 1)) != 0))
    return fmt::format("vector width {} x {}-byte struct is not one access of 4, 8, 12 or 16 "
                       "bytes",
                       p.vector_width, bytes);
  if (vec == 12 && p.streaming)
    return std::string("12-byte structs take no cache hints (no 12-byte hinted access exists)");
  const std::size_t shared = describe(p.algorithm).shared_bytes(p, bytes);
  if (shared > kMaxStaticSharedBytes)
    return fmt::format("needs {} bytes of shared memory for {}-byte structs (limit {})", shared,
                       bytes, kMaxStaticSharedBytes);
  return std::nullopt;
}

Policy default_struct_policy(std::size_t bytes) {
  Policy p;
  p.algorithm = Algorithm::LookbackWarp;
  p.block_scan = BlockScan::WarpScans;
  p.io = TileIO::Transpose;
  p.block_threads = bytes == 4 ? 128 : 256;
  p.items_per_thread = bytes == 4 ? 24 : bytes == 8 ? 12 : 8;
  p.vector_width = bytes == 12 ? 1 : static_cast<int>(16 / bytes);
  return p;
}

} // namespace scantune::detail
