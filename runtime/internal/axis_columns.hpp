// Axis scans over a few columns, run as scans of structs: when the inner columns of an
// outer x len x inner scan fill 8 to 16 bytes, each matrix is a flat scan of len
// structs of `inner` elements, combined element by element. The axis kernel's tile
// (rows x 32 vector columns) runs nearly empty there: H100, float32 (2^24, 4) summed
// along dim 0 took 20 ms, 0.01x a copy (docs/performance.md, batched and axis scans).
#pragma once

#include <cstddef>
#include <string_view>

#include "scantune/scantune.hpp"

namespace scantune::detail {

/// The struct-valued operator combining `inner` elements of `type` with the built-in
/// `op` element by element (one per (type, op, inner), kept for the process), or null
/// where `type` is narrower than 4 bytes or the columns do not fill 8 to 16 bytes.
const CustomOp* columns_struct_op(DataType type, Op op, std::size_t inner);

/// The operator columns_struct_op names `name` (`columns_float32x4_sum`: type, columns,
/// operator), so the tools can tune and time the struct scan an axis scan becomes; null
/// where `name` is not one.
const CustomOp* columns_struct_op_named(std::string_view name);

} // namespace scantune::detail
