#include "default_policies.hpp"

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
