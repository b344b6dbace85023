// The heuristic policy: the dispatcher's last fallback, for GPUs whose
// architecture has neither tuning-database entries nor a built-in table.
#pragma once

#include "policy.hpp"

namespace scantune::detail {

/// The policy a scan of `n` elements of `type` runs when nothing else is known.
Policy default_policy(DataType type, std::size_t n);

/// An axis scan's column length and column count (0: unknown, taken as long and wide).
struct AxisShape {
  std::size_t len = 0, inner = 0;
};

/// Lanes an axis tile gives a row of `inner` columns read `vec` at a time: a power of
/// two, at most 32 (templates/axis_scan.cuh, locate()).
std::size_t axis_row_lanes(std::size_t inner, std::size_t vec);

/// The fewest lanes a row takes where a tile loop (`.loop`) narrows rows so that each
/// block scans whole chains (launch.cpp): 128 bytes of `value_bytes` values, or the
/// whole row where it is narrower.
std::size_t axis_loop_lanes(std::size_t inner, std::size_t vec, std::size_t value_bytes);

/// Whether a tile loop can take whole chains of `shape` at all: columns longer than a
/// tile of policy `p` at axis_loop_lanes (else every column is one chunk, no loop).
bool axis_loop_chains(const Policy& p, AxisShape shape, std::size_t value_bytes);

/// The same for an axis scan (templates/axis_scan.cuh), whose threads hold
/// items_per_thread rows x vector_width columns: 8 x 16 bytes, not the flat tile's 24
/// x 4-byte items, which would hold 96 values in registers. Columns of at most 8 rows
/// get a tile of as many rows, narrow arrays narrower vectors (see the definition). The
/// dispatcher passes its length class's largest shape (axis_class_shape).
Policy default_axis_policy(DataType type, AxisShape shape = {});

/// The same for compaction (select_kernel), untuned: 16-byte vectors, 16 KB tiles (2048
/// 8-byte, 4096 4-byte, 8192 2-byte items) or, bytes, 8192 items (a thread's selection
/// is a 32-bit mask: at most 32 items a thread).
Policy default_select_policy(DataType type);

/// A converting scan's policy from its accumulator's (`tuned`): vectors of up to 16
/// bytes of the wider of input and output, and a shape that can run `types`.
Policy converted_policy(const Policy& tuned, const ScanTypes& types, std::size_t n);

} // namespace scantune::detail
