// Sets of kernel specializations shared by the compile (CPU) and GPU suites.
#pragma once

#include <tuple>
#include <utility>
#include <vector>

#include "codegen.hpp"

namespace scantune::test {

inline const std::vector<DataType>& all_types() {
  static const std::vector<DataType> v{DataType::Int32,  DataType::UInt32,  DataType::Int64,
                                       DataType::UInt64, DataType::Float32, DataType::Float64};
  return v;
}
/// The converting types the typed calls make: narrow types alone and the widening pairs.
inline const std::vector<ScanTypes>& converting_types() {
  static const std::vector<ScanTypes> v = [] {
    using D = DataType;
    std::vector<ScanTypes> t;
    for (D d : {D::Int8, D::UInt8, D::Int16, D::UInt16, D::Float16, D::BFloat16})
      t.push_back(scan_types(d));
    const std::pair<D, D> pairs[] = {
        {D::UInt8, D::Int32},      {D::UInt8, D::Int64},     {D::Int8, D::Int64},
        {D::Int32, D::Int64},      {D::UInt32, D::UInt64},   {D::Float16, D::Float32},
        {D::BFloat16, D::Float32}, {D::Float32, D::Float64}, {D::Int16, D::Float32}};
    for (auto [in, out] : pairs)
      t.push_back(scan_types(in, out));
    return t;
  }();
  return v;
}
inline const std::vector<Algorithm>& tile_algorithms() {
  static const std::vector<Algorithm> v{Algorithm::SingleBlock,  Algorithm::ReduceThenScan,
                                        Algorithm::Chained,      Algorithm::LookbackThread,
                                        Algorithm::LookbackWarp, Algorithm::LookbackPipelined,
                                        Algorithm::LookbackBulk};
  return v;
}
inline const std::vector<BlockScan>& all_block_scans() {
  static const std::vector<BlockScan> v{BlockScan::WarpScans, BlockScan::HillisSteele,
                                        BlockScan::Blelloch, BlockScan::BlellochPadded};
  return v;
}
/// Every inter-block algorithm with every block scan it takes (lookback_bulk: one).
inline std::vector<std::tuple<Algorithm, BlockScan>> algorithm_block_scans() {
  std::vector<std::tuple<Algorithm, BlockScan>> v;
  for (Algorithm a : tile_algorithms())
    for (BlockScan bs : all_block_scans())
      if (a != Algorithm::LookbackBulk || bs == BlockScan::WarpScans) v.emplace_back(a, bs);
  return v;
}
inline bool is_float(DataType t) {
  return t == DataType::Float32 || t == DataType::Float64;
}
/// Operators valid for a type (bitwise only for integers).
inline std::vector<Op> ops_for(DataType t) {
  if (is_float(t)) return {Op::Sum, Op::Product, Op::Min, Op::Max};
  return {Op::Sum, Op::Product, Op::Min, Op::Max, Op::BitAnd, Op::BitOr, Op::BitXor};
}
/// Every tile I/O.
inline std::vector<TileIO> all_tile_ios() {
  return {TileIO::Transpose, TileIO::Direct, TileIO::WarpTranspose};
}
inline Policy make_policy(Algorithm a, int tpb, int ipt, int vec, BlockScan bs, TileIO io,
                          int backoff = 0, bool streaming = false) {
  Policy p;
  p.algorithm = a;
  p.block_threads = tpb;
  p.items_per_thread = ipt;
  p.vector_width = vec;
  p.block_scan = bs;
  // The pipelined look-back stages tiles in shared memory: "direct" becomes the
  // warp transpose, so every matrix that asks for direct I/O covers both stagings.
  p.io = a == Algorithm::LookbackPipelined && io == TileIO::Direct ? TileIO::WarpTranspose : io;
  p.backoff_ns = backoff;
  p.streaming = streaming;
  if (a == Algorithm::LookbackBulk) { // no choices there; direct: a lane per run of vectors
    p.block_scan = BlockScan::WarpScans;
    p.io = io == TileIO::Direct ? TileIO::Direct : TileIO::Transpose;
    p.streaming = false;
  }
  return p;
}

/// A spread of tile shapes for `t`: small and large blocks, 1..16 items, each
/// vector width, both tile I/O paths, a non-power-of-two block, tile loops. For the pipelined
/// and bulk look-backs also 4 and 5 stages, and stages above 48 KB (dynamic shared
/// memory opted into: 3 x 16 KB for 8-byte types at tpb256, 3 x 32 KB for 4-byte at
/// tpb512; lookback_bulk also 8 x 16 KB, and lane runs of 3 vectors).
inline std::vector<Policy> shape_spread(Algorithm a, BlockScan bs, DataType t) {
  const bool wide = size_of(t) == 8;
  std::vector<Policy> v{
      make_policy(a, 64, 1, 1, bs, TileIO::Transpose),
      make_policy(a, 96, 3, 1, bs, TileIO::Direct),
      make_policy(a, 128, 4, wide ? 2 : 4, bs, TileIO::Direct,
                  a == Algorithm::LookbackWarp ? 100 : 0),
      make_policy(a, 256, wide ? 8 : 12, wide ? 2 : 4, bs, TileIO::Transpose),
      make_policy(a, 512, wide ? 4 : 16, 2, bs, TileIO::Transpose),
      make_policy(a, 160, 6, 2, bs, TileIO::WarpTranspose, 0, true),
  };
  // Wider warp look-back steps (an odd span exercises the lane/slot mapping).
  if (a == Algorithm::LookbackWarp || a == Algorithm::LookbackPipelined ||
      a == Algorithm::LookbackBulk) {
    v[2].lookback_span = 3;
    v[5].lookback_span = 4;
  }
  if (v[0].one_tile_per_block()) { // the looping kernel (one tile per block at these sizes)
    v[0].tile_loop = true;
    v[3].tile_loop = true;
  }
  if (a == Algorithm::LookbackPipelined || a == Algorithm::LookbackBulk) {
    v[1].stages = 4;
    v[5].stages = 5;
  }
  v[4].min_blocks = 2;                // a __launch_bounds__ minimum of resident blocks
  if (a == Algorithm::LookbackBulk) { // 8 stages of 16 KB: more than fit in 48 KB
    v.push_back(make_policy(a, 256, wide ? 8 : 16, wide ? 2 : 4, bs, TileIO::Transpose));
    v.back().stages = 8;
    // Lane runs of 3 vectors (rotated reads, a run's head and tail; every rotation:
    // GpuTest.BulkLaneRunsKeepOrderAtEveryRotation).
    v.push_back(make_policy(a, 64, wide ? 6 : 12, wide ? 2 : 4, bs, TileIO::Direct));
    // Consumers that hand the stage back before the prefix: small tiles cycle the rings.
    Policy early = v[0];
    early.early_release = true;
    v.push_back(early);
    early = v[3];
    early.early_release = true;
    early.stages = 6;
    v.push_back(early);
    // Tickets of several tiles, the last one ending part-way at some sizes.
    Policy ticket = v[0];
    ticket.tiles_per_ticket = 3;
    ticket.stages = 7;
    v.push_back(ticket);
    ticket.early_release = true;
    ticket.tiles_per_ticket = 2;
    v.push_back(ticket);
  }
  return v;
}

} // namespace scantune::test
