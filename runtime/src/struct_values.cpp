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

Policy default_struct_policy(std::size_t bytes, std::uint64_t n) {
  // Winners of `scantune tune --custom-op columns_float32x2_sum` (x3, x4, float64x2)
  // on the H100, each checked against the single shape that served every size before
  // on five operators (docs/decisions.md, "Struct scans' default shapes by size"):
  // where it lost on some, the old shape stays (8 bytes at 2^19-2^21, 12 below 2^19).
  const char* key = "lookback_warp.tpb128.ipt24.vec4.warp_scans";
  if (bytes == 8)
    key = n < (1u << 19)   ? "lookback_warp.tpb512.ipt6.vec1.warp_scans.wxpose"
          : n < (1u << 21) ? "lookback_warp.tpb256.ipt12.vec2.warp_scans"
          : n < (1u << 24) ? "lookback_warp.tpb128.ipt12.vec2.warp_scans.wxpose.cs"
                           : "lookback_warp.tpb256.ipt20.vec2.blelloch.wxpose.bo200";
  else if (bytes > 8 && n < (1u << 19))
    key = bytes == 12 ? "lookback_warp.tpb256.ipt8.vec1.warp_scans"
                      : "lookback_warp.tpb1024.ipt2.vec1.warp_scans.wxpose";
  else if (bytes > 8)
    key = n < (1u << 24) ? "lookback_warp.tpb128.ipt12.vec1.warp_scans.wxpose.cs"
                         : "lookback_warp.tpb128.ipt20.vec1.warp_scans.wxpose.cs";
  Policy p = Policy::parse(key);
  if (bytes == 12) p.streaming = false; // no 12-byte access takes a cache hint
  return p;
}

} // namespace scantune::detail
