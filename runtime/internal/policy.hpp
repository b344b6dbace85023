// policy.hpp: the tunable configuration of one scan kernel (internal: the public
// API names a configuration by its key only).
//
// A Policy names every choice that shapes a generated kernel. Its canonical key
// string is the one name of a configuration everywhere: tuning-database key,
// kernel-cache key, kernel name and CLI text.
//
//   lookback_warp.tpb256.ipt12.vec4.warp_scans           (tile I/O "xpose", no backoff)
//   lookback_thread.tpb128.ipt16.vec4.blelloch.direct.bo200
//   lookback_warp.tpb256.ipt16.vec4.warp_scans.wxpose.cs
//   lookback_bulk.tpb256.ipt32.vec4.warp_scans.st6      (sm_90+: bulk copies, 6 stages)
//   lookback_warp.tpb256.ipt24.vec4.warp_scans.wxpose.loop (one wave of blocks looping)
//   reduce_then_scan.tpb512.ipt8.vec2.hillis_steele
//   sequential                                           (takes no tile parameters)
//
// Fields after the block-scan algorithm are printed only where they differ from
// their defaults (`.direct` or `.wxpose` for the tile I/O, `.cs` for streaming
// cache hints, `.bo<ns>` for a lookback backoff, `.span<N>` for a wider look-back step,
// `.st<N>` for tile stages, `.loop` for a tile loop, `.mb<N>` for a minimum of resident
// blocks per SM), so each policy has exactly one key.
// Policy::parse(key).key() == key for every canonical key.
//
// Example:
//   scantune::Policy p = scantune::Policy::parse("lookback_warp.tpb256.ipt12.vec4.warp_scans");
//   if (auto why = p.invalid_reason(scantune::DataType::Int64)) std::puts(why->c_str());
//   // "vector width 4 x 8 bytes exceeds 16 bytes"
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "scantune/types.hpp"

namespace scantune {

/// How tiles cooperate across the grid.
enum class Algorithm {
  Sequential,     ///< one thread walks all n elements (the baseline)
  SingleBlock,    ///< one block loops over every tile, carrying the prefix
  ReduceThenScan, ///< three launches: tile reductions, scan of partials, downsweep
  Chained,        ///< each tile waits for its predecessor's inclusive prefix
  LookbackThread, ///< decoupled lookback, one thread walking back one tile at a time
  LookbackWarp,   ///< decoupled lookback, a warp inspecting 32 predecessors at a time
  /// Warp lookback in a grid of resident blocks that take tiles by ticket; each
  /// block copies its next tile into shared memory (cp.async) while it scans the
  /// current one, so loads overlap the look-back. Needs a staged tile I/O.
  LookbackPipelined,
  /// Warp look-back with bulk copies (TMA, sm_90 and up): a grid of resident blocks
  /// that take tiles by ticket, each cycling `stages` tiles of shared memory through a
  /// producer warp (bulk loads), a reducer warp (publishes each tile's aggregate as
  /// soon as it lands), a look-back warp and block_threads / 32 consumer warps (scan
  /// a 32 x items_per_thread segment each from a known prefix, bulk-store it). A
  /// block has block_threads + 96 threads. Takes the default block scan and tile I/O.
  LookbackBulk,
};

/// How a block scans the per-thread aggregates of its tile.
enum class BlockScan {
  WarpScans,      ///< warp shuffle scans, then a scan of the warp totals
  HillisSteele,   ///< shared memory, double buffered
  Blelloch,       ///< work-efficient up-sweep / down-sweep in shared memory
  BlellochPadded, ///< Blelloch with bank-conflict-free padding
};

/// How a tile moves between global memory and registers.
enum class TileIO {
  Transpose,     ///< coalesced striped vector loads, shared-memory transpose to a blocked layout
  Direct,        ///< each thread loads its own consecutive items straight from global memory
  WarpTranspose, ///< like Transpose, but each warp transposes its own contiguous segment
                 ///< (a warp barrier instead of block barriers)
};

std::string_view to_string(Algorithm a); ///< "lookback_warp", ...
std::string_view to_string(BlockScan b); ///< "warp_scans", ...
std::string_view to_string(TileIO io);   ///< "xpose", "direct", "wxpose"
/// Inverse of to_string; throw scantune::Error naming the bad text.
Algorithm parse_algorithm(std::string_view s);
BlockScan parse_block_scan(std::string_view s);
TileIO parse_tile_io(std::string_view s);

/// One kernel configuration. Default-constructed, it is a reasonable 32-bit policy.
struct Policy {
  Algorithm algorithm = Algorithm::LookbackWarp;
  int block_threads = 256;   ///< threads per block, a multiple of 32 in [32, 1024]
  int items_per_thread = 12; ///< elements each thread owns in a tile, [1, 32] (64: lookback_bulk)
  int vector_width = 4;      ///< elements per vector load/store; vector_width * sizeof(T) <= 16
  BlockScan block_scan = BlockScan::WarpScans;
  TileIO io = TileIO::Transpose;
  int backoff_ns = 0; ///< sleep between polls of a predecessor (chained/lookback only), 0 = spin
  /// Full-tile loads and stores with the evict-first (streaming) cache hint, `ld/st.global.cs`.
  bool streaming = false;
  /// Predecessor tiles each lane inspects per warp look-back step (lookback_warp and
  /// lookback_pipelined), [1, 8]: a step covers 32 * span tiles in one round trip.
  int lookback_span = 1;
  /// Shared-memory tile stages of lookback_pipelined, [3, 8]: one tile being scanned,
  /// one being reduced, and `stages - 2` copies in flight; of lookback_bulk: tiles
  /// loading, reduced, looking back or being stored (other algorithms: 3, unused).
  int stages = 3;
  /// Chained and look-back kernels with one tile per block (chained, lookback_thread,
  /// lookback_warp): launch at most one wave of blocks, block b scanning tiles b,
  /// b + grid, ... in order, instead of one block per tile, which beyond one wave
  /// takes tiles by ticket (one atomic round trip before a block's loads). A separate
  /// kernel, so that one-tile shapes keep their registers (the loop takes more).
  bool tile_loop = false;
  /// Minimum resident blocks per SM the compiler budgets registers for (the second
  /// argument of `__launch_bounds__`), [0, 32]; 0 leaves it to the compiler.
  int min_blocks = 0;
  /// Look-back algorithms: combine every tile's prefix in one fixed order (a left fold
  /// from the nearest inclusive prefix, always within one look-back window), so float
  /// scans give the same bits on every run (ScannerOptions::reproducible).
  bool reproducible = false;
  /// Suffix scan (Scanner::reverse_inclusive_scan): tiles run from the end of the input,
  /// each read back to front, under the operator with its operands swapped. The route
  /// cache sets it on a forward scan's tuned policy: reverse scans reuse forward shapes.
  bool reverse = false;
  /// lookback_bulk: each consumer warp reads its segment into registers once the tile is
  /// reduced and hands the stage back before the tile's prefix comes, so the stage is
  /// refilled while the prefix is looked up; the warp then stores from registers (flat
  /// scans, xpose tile I/O, at most 32 items a thread, input and output of one width
  /// above a byte).
  bool early_release = false;
  /// lookback_bulk, flat scans: a ticket gives a block this many consecutive tiles, [1, 8].
  /// Only the first looks back; the others follow the block's previous tile, so a ticket
  /// pays one look-back round trip, not one per tile.
  int tiles_per_ticket = 1;

  /// The policy of the one-thread baseline (its key is "sequential").
  static Policy sequential();
  /// Parses a canonical key (or any spelling with the same fields); throws scantune::Error.
  static Policy parse(std::string_view key);

  /// The canonical key, e.g. "lookback_warp.tpb256.ipt12.vec4.warp_scans".
  std::string key() const;
  /// Elements per tile (block_threads * items_per_thread).
  std::size_t tile_items() const;
  /// Static shared memory the kernel needs for element type `t`, in bytes.
  std::size_t shared_bytes(DataType t) const;
  /// Dynamic shared memory of a launch for element type `t`, in bytes: the tile
  /// stages of lookback_pipelined and lookback_bulk (so they may exceed the 48 KiB
  /// static limit), else 0.
  std::size_t dynamic_shared_bytes(DataType t) const;
  /// The same for a scan of `types` (lookback_bulk stages input elements as they are
  /// in memory, and an output wider than them apart).
  std::size_t dynamic_shared_bytes(const ScanTypes& types) const;
  /// Threads per block of a launch: block_threads, plus lookback_bulk's three role warps.
  int launch_threads() const;
  /// The oldest compute capability (major * 10 + minor) the kernel runs on:
  /// 90 for lookback_bulk (bulk copies), else 80.
  int min_arch() const;
  /// Why this policy cannot run for element type `t`, or nothing when it can.
  std::optional<std::string> invalid_reason(DataType t) const;
  /// The same for a scan converting between types (ScanTypes): vectors move the wider
  /// of the input and the output; lookback_bulk copies without converting, and
  /// lookback_pipelined's copies (cp.async) move 4, 8 or 16 bytes of input.
  std::optional<std::string> invalid_reason(const ScanTypes& t) const;
  /// True for algorithms that wait on other tiles (and therefore use status words).
  bool uses_tile_status() const;
  /// True for the single-pass algorithms that launch one block per tile unless
  /// `tile_loop` is set (chained, lookback_thread, lookback_warp).
  bool one_tile_per_block() const;
  /// True for algorithms whose tiles sit in `stages` dynamic shared-memory stages
  /// (lookback_pipelined, lookback_bulk).
  bool stages_tiles() const;

  friend bool operator==(const Policy& a, const Policy& b) { return a.key() == b.key(); }
  friend bool operator!=(const Policy& a, const Policy& b) { return !(a == b); }
};

/// Static shared memory available to one block for a statically sized tile.
inline constexpr std::size_t kMaxStaticSharedBytes = 48 * 1024;
/// The largest dynamic shared memory any supported GPU lets one block opt into
/// (sm_90/sm_100: 227 KiB). A launch checks its own device's limit, which may be lower
/// (sm_80: 163 KiB, sm_86/sm_89: 99 KiB).
inline constexpr std::size_t kMaxDynamicSharedBytes = 227 * 1024;

} // namespace scantune
