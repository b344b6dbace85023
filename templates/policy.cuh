// Device-side mirror of scantune::Policy. Generated sources name the enumerators
// (not numbers), so host and device agree by name; each generated TU restates
// its policy in a static_assert.
#pragma once

namespace scantune {

enum algorithm_id {
  ALG_SEQUENTIAL = 0,
  ALG_SINGLE_BLOCK = 1,
  ALG_REDUCE_THEN_SCAN = 2,
  ALG_CHAINED = 3,
  ALG_LOOKBACK_THREAD = 4,
  ALG_LOOKBACK_WARP = 5,
  ALG_LOOKBACK_PIPELINED = 6,
  ALG_LOOKBACK_BULK = 7
};
enum block_scan_id {
  BS_WARP_SCANS = 0,
  BS_HILLIS_STEELE = 1,
  BS_BLELLOCH = 2,
  BS_BLELLOCH_PADDED = 3
};
enum tile_io_id { IO_TRANSPOSE = 0, IO_DIRECT = 1, IO_WARP_TRANSPOSE = 2 };
// Cache policy of full-tile global accesses: default, or streaming (.cs: evict first).
enum cache_id { CACHE_DEFAULT = 0, CACHE_STREAMING = 1 };
enum scan_kind_id { KIND_INCLUSIVE = 0, KIND_EXCLUSIVE = 1 };

template <int ALG, int TPB, int IPT, int VEC, int BS, int IO, int BACKOFF_NS, int CACHE,
          int LOOKBACK_SPAN, int STAGES, int MIN_BLOCKS = 0, int REPRODUCIBLE = 0, int REVERSE = 0,
          int EARLY_RELEASE = 0, int TILES_PER_TICKET = 1>
struct policy {
  static const int algorithm = ALG;
  static const int block_threads = TPB;
  static const int items_per_thread = IPT;
  static const int vector_width = VEC;
  static const int block_scan = BS;
  static const int tile_io = IO;
  static const int backoff_ns = BACKOFF_NS;
  static const int cache = CACHE;
  // Tiles per lane per warp look-back step (axis_kernel: 4 x span slots per thread
  // per look-back round, axis_scan.cuh).
  static const int lookback_span = LOOKBACK_SPAN;
  static const int stages = STAGES; // lookback_pipelined's / lookback_bulk's shared tile stages
  // __launch_bounds__'s minimum resident blocks per SM; 0 (the generated source
  // omits it) compiles exactly as no minimum.
  static const int min_blocks = MIN_BLOCKS;
  // Look-back folds in one fixed order (tile_status.cuh's lookback_warp): the same
  // bits on every run.
  static const int reproducible = REPRODUCIBLE;
  // Suffix scan (tile_io.cuh): tiles run from the end of the input, each read back to
  // front; the generated source swaps the operator's operands (reversed_op).
  static const int reverse = REVERSE;
  // lookback_bulk's consumers hand a stage back once they hold their segment in
  // registers, before the tile's prefix comes (bulk_kernel).
  static const int early_release = EARLY_RELEASE;
  // lookback_bulk: a ticket gives a block this many consecutive tiles; only the first
  // looks back, the others follow their block's previous tile (bulk_kernel).
  static const int tiles_per_ticket = TILES_PER_TICKET;
  static const int tile_items = TPB * IPT;
  static_assert(TPB % 32 == 0 && TPB >= 32 && TPB <= 1024,
                "block threads: a multiple of 32 in [32, 1024]");
  static_assert(IPT >= 1 && IPT <= 64, "items per thread in [1, 64]");
  static_assert(LOOKBACK_SPAN >= 1 && LOOKBACK_SPAN <= 8, "look-back span in [1, 8]");
  static_assert(STAGES >= 3 && STAGES <= 8, "shared tile stages in [3, 8]");
  static_assert(TILES_PER_TICKET >= 1 && TILES_PER_TICKET <= 8, "tiles per ticket in [1, 8]");
  static_assert(MIN_BLOCKS >= 0 && MIN_BLOCKS <= 32, "minimum blocks per SM in [0, 32]");
  static_assert(VEC >= 1 && IPT % VEC == 0,
                "items per thread must be a multiple of the vector width");
};

} // namespace scantune
