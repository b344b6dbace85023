// Struct-valued custom operators (CustomOp::value_struct): which policies can scan
// their structs, and the shape they run when nothing is tuned.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "policy.hpp"

namespace scantune::detail {

/// The DataType a struct scan's ScanRequest, KernelSpec and ProblemName hold: the
/// value's size comes from the operator (ScanRequest::struct_bytes), the type only
/// keys routes and database rows (with the problem text "@struct<bytes>").
inline constexpr DataType kStructStandIn = DataType::UInt32;

/// Why `p` cannot scan struct values of `bytes` bytes, or nothing: the algorithms
/// whose tiles move elements one vector at a time through registers (sequential,
/// single_block, reduce_then_scan, chained, lookback_thread, lookback_warp), vectors
/// of whole structs up to 16 bytes (12-byte structs: one per access, no cache hints),
/// and the tile's shared memory within the static limit.
std::optional<std::string> struct_invalid_reason(const Policy& p, std::size_t bytes);

/// The untuned shape for `n` struct values of `bytes` bytes: lookback_warp, its tile
/// by size from H100 tunes of 8-, 12- and 16-byte structs (4 bytes: one shape).
Policy default_struct_policy(std::size_t bytes, std::uint64_t n);

} // namespace scantune::detail
