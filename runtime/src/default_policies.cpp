#include "default_policies.hpp"

#include <algorithm>
#include <optional>

namespace scantune::detail {

Policy default_policy(DataType type, std::size_t /*n*/) {
  // Single-pass warp look-back, 16-byte vectors through a transposed 12 KB (4-byte)
  // or 24 KB (8-byte) tile: one launch at every n. Picked by a hand sweep on the
  // H100 (docs/performance.md): at 2^28, lookback_warp.tpb128.ipt24.vec4.warp_scans
  // 0.89x CUB on int32 (tpb256.ipt12: 0.85x); lookback_warp.tpb256.ipt12.vec2.warp_scans
  // 0.97x CUB on float64 (tpb256.ipt8: 0.86x).
  Policy p;
  p.algorithm = Algorithm::LookbackWarp;
  p.block_scan = BlockScan::WarpScans;
  p.io = TileIO::Transpose;
  if (size_of(type) == 4) {
    p.block_threads = 128;
    p.items_per_thread = 24;
    p.vector_width = 4;
  } else {
    p.block_threads = 256;
    p.items_per_thread = 12;
    p.vector_width = 2;
  }
  return p;
}

namespace {

std::size_t pow2_at_least(std::size_t x) {
  std::size_t p = 1;
  while (p < x)
    p *= 2;
  return p;
}

} // namespace

std::size_t axis_row_lanes(std::size_t inner, std::size_t vec) {
  std::size_t lpr = 1;
  while (lpr < 32 && lpr * vec < inner)
    lpr *= 2;
  return lpr;
}

std::size_t axis_loop_lanes(std::size_t inner, std::size_t vec, std::size_t value_bytes) {
  // Narrower, blocks read a 32-byte sector a row each, apart in time: a third of the
  // speed on the H200 (docs/decisions.md, "Axis tile loops take whole chains").
  const std::size_t floor = std::max<std::size_t>(1, 128 / (vec * value_bytes));
  return std::min(axis_row_lanes(inner, vec), floor);
}

bool axis_loop_chains(const Policy& p, AxisShape shape, std::size_t value_bytes) {
  const auto vec = static_cast<std::size_t>(p.vector_width);
  const std::size_t rows = static_cast<std::size_t>(p.block_threads / 32 * p.items_per_thread) *
                           (32 / axis_loop_lanes(shape.inner, vec, value_bytes));
  return shape.len > rows;
}

Policy default_axis_policy(DataType type, AxisShape shape) {
  // 8 rows x a 16-byte vector per thread, 256 threads: a 64 x 128 (4-byte) tile, and
  // a look-back window of 8 (4-byte) or 16 (8-byte) chunks per round trip. Narrower
  // columns split each warp into row groups (templates/axis_scan.cuh), so the vector
  // stays 16 bytes unless it is wider than a row.
  Policy p;
  p.algorithm = Algorithm::LookbackWarp;
  p.block_threads = 256;
  p.items_per_thread = 8;
  p.vector_width = size_of(type) == 4 ? 4 : 2;
  if (shape.inner)
    while (p.vector_width > 1 && static_cast<std::size_t>(p.vector_width / 2) >= shape.inner)
      p.vector_width /= 2;
  // Columns of at most 8 rows: as many rows per thread (a power of two, at least the
  // vector's width, as every policy has), so each thread holds whole columns and nothing
  // is looked back. (Columns shorter than a tile's 64 rows take fewer warps each, side
  // by side: the kernel fits the tile to the column.)
  if (shape.len && shape.len <= 8)
    p.items_per_thread = std::max(p.vector_width, static_cast<int>(pow2_at_least(shape.len)));
  return p;
}

Policy default_select_policy(DataType type) {
  Policy p;
  p.algorithm = Algorithm::LookbackWarp;
  p.block_threads = 256;
  const int size = static_cast<int>(size_of(type));
  p.items_per_thread = std::min(32, 64 / size);
  p.vector_width = 16 / size;
  return p;
}

} // namespace scantune::detail

namespace scantune::detail {

namespace {

// Converting scans of 2^24 to 2^30 elements on the H100 (scantune_types_bench, --sweep of
// 48 shapes each; docs/performance.md), by the widths of input and output: bytes, 256 x 32
// warp-transposed; 2-byte inputs, pipelined 256 x 24 (1.2x the accumulator's converted
// shape; its stages need a block barrier per tile where the output is wider, which bytes
// into 4-byte outputs pay with 0.69x of a copy against 0.75x here for 128 x 24);
// 8-byte outputs, 256 x 16 warp-transposed.
Policy large_converting_shape(const ScanTypes& types, int widest) {
  Policy p;
  p.vector_width = 16 / widest;
  p.block_threads = 256;
  p.io = TileIO::WarpTranspose;
  if (widest == 1) {
    p.items_per_thread = 32;
  } else if (widest == 8) {
    p.items_per_thread = 16;
  } else if (size_of(types.in) == 2) {
    p.algorithm = Algorithm::LookbackPipelined;
    p.items_per_thread = 24;
    p.io = TileIO::Transpose;
  } else {
    p.block_threads = 128;
    p.items_per_thread = 24;
    p.io = TileIO::Transpose;
  }
  return p;
}

// lookback_bulk stages converting tiles as they are in memory (H100, 2^28 sums,
// scantune_types_bench --sweep, docs/performance.md): int8 0.230 ms against 0.337 for
// the warp-transposed shape, int16 0.382 against 0.441, uint8 into int32 0.495 against
// 0.603, bfloat16 through float 0.401 against 0.447. Half into float and int32 into
// int64 stay on their shapes (bulk was no faster there).
std::optional<Policy> bulk_converting_shape(const ScanTypes& types) {
  const std::size_t in = size_of(types.in), out = size_of(types.out);
  const bool narrow_int = types.in == DataType::Int8 || types.in == DataType::UInt8 ||
                          types.in == DataType::Int16 || types.in == DataType::UInt16;
  Policy p;
  p.algorithm = Algorithm::LookbackBulk;
  p.block_threads = 256;
  p.vector_width = static_cast<int>(16 / std::max(in, out));
  p.items_per_thread = 32;
  p.stages = 6;
  if (in == out && narrow_int) return p;
  if (in == out && in == 2) { // half, bfloat16
    p.items_per_thread = 16;
    return p;
  }
  if (in == 1 && out == 4 && narrow_int) {
    p.stages = 8;
    return p;
  }
  return std::nullopt;
}

} // namespace

Policy converted_policy(const Policy& tuned, const ScanTypes& types, std::size_t n) {
  // The accumulator's tuned shape, with vectors of up to 16 bytes of the wider of the
  // input and the output, and at least one such vector per thread: its tile of 1- or
  // 2-byte elements would otherwise move a quarter or half of the bytes per load.
  if (tuned.algorithm == Algorithm::Sequential) return tuned;
  const int widest = static_cast<int>(std::max(size_of(types.in), size_of(types.out)));
  auto shaped = [&](Policy p) {
    p.vector_width = 16 / widest;
    p.items_per_thread =
        std::min(32, (p.items_per_thread + p.vector_width - 1) / p.vector_width * p.vector_width);
    return p;
  };
  Policy p = shaped(tuned);
  if (n >= (std::size_t{1} << 22)) { // large: the shapes measured for converting scans
    p = large_converting_shape(types, widest);
    // Where the accumulator's own choice is lookback_bulk (so this GPU has bulk copies).
    const std::optional<Policy> bulk = bulk_converting_shape(types);
    if (bulk && n >= (std::size_t{1} << 25) && tuned.algorithm == Algorithm::LookbackBulk)
      p = *bulk;
    p.reverse = tuned.reverse;
    p.reproducible = tuned.reproducible;
  }
  if (p.invalid_reason(types)) { // the default shape (lookback_warp) runs every direction
    Policy d = default_policy(types.acc, n);
    d.reverse = tuned.reverse;
    d.reproducible = tuned.reproducible;
    p = shaped(d);
  }
  while (p.invalid_reason(types) && p.vector_width > 1)
    p.vector_width /= 2;
  return p;
}

} // namespace scantune::detail
