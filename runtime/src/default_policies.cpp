#include "default_policies.hpp"

#include <algorithm>

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

Policy default_axis_policy(DataType type) {
  Policy p;
  p.algorithm = Algorithm::LookbackWarp;
  p.block_threads = 256;
  p.items_per_thread = 8;
  p.vector_width = size_of(type) == 4 ? 4 : 2;
  return p;
}

Policy default_select_policy(DataType type) {
  Policy p;
  p.algorithm = Algorithm::LookbackWarp;
  p.block_threads = 256;
  p.items_per_thread = size_of(type) == 4 ? 16 : 8;
  p.vector_width = size_of(type) == 4 ? 4 : 2;
  return p;
}

} // namespace scantune::detail

namespace scantune::detail {

namespace {

// Converting scans of 2^24 and 2^28 elements on the H100 (scantune_types_bench --sweep, 48
// shapes each; docs/performance.md): 256-thread tiles; warp-transposed 32 items of 1 byte;
// pipelined (block-transposed) tiles of 24 items where the input is narrower than 4 bytes
// and the output not wider (1.12-1.21x the accumulator's converted shape); warp-transposed
// 16 items of 8-byte outputs.
Policy large_converting_shape(const ScanTypes& types, int widest) {
  Policy p;
  p.block_threads = 256;
  p.vector_width = 16 / widest;
  const bool pipelined = widest <= 4 && widest > 1 && size_of(types.in) < 4;
  p.algorithm = pipelined ? Algorithm::LookbackPipelined : Algorithm::LookbackWarp;
  p.io = pipelined ? TileIO::Transpose : TileIO::WarpTranspose;
  p.items_per_thread = widest == 1 ? 32 : pipelined ? 24 : 16;
  return p;
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
