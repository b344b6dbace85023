#include "default_policies.hpp"

namespace scantune::detail {

Policy default_policy(DataType type, std::size_t /*n*/) {
  // Single-pass warp look-back with 16-byte transposed tiles of ~12 KB (4-byte)
  // and ~16 KB (8-byte): one launch at every n.
  Policy p;
  p.algorithm = Algorithm::LookbackWarp;
  p.block_threads = 256;
  p.block_scan = BlockScan::WarpScans;
  p.io = TileIO::Transpose;
  if (size_of(type) == 4) {
    p.items_per_thread = 12;
    p.vector_width = 4;
  } else {
    p.items_per_thread = 8;
    p.vector_width = 2;
  }
  return p;
}

}  // namespace scantune::detail
