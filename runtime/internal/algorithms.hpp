// Every inter-block algorithm, described once: its traits (which policy fields it
// takes follows from them, policy_fields.hpp), architecture and extra role threads,
// shared-memory layout, extra constraints, and the kernels it launches with their
// template entry points and grid rules. Policy's methods, validation, code
// generation, the launch and the tuner's grid all read this table.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "policy.hpp"
#include "segments.hpp"

namespace scantune::detail {

/// Blocks of one kernel launch.
enum class Grid {
  One,           ///< a single block
  PerTile,       ///< one block per tile
  ResidentWave,  ///< one wave of resident blocks (at most one per tile)
  PerTileOrWave, ///< one per tile, or one wave with the tile loop (tiles by blockIdx when it fits)
};

/// One kernel of an algorithm, in launch order.
struct KernelDesc {
  std::string_view entry;      ///< template in scan_kernels.cuh, e.g. "single_pass_kernel"
  std::string_view loop_entry; ///< the tile-loop variant (Policy::tile_loop), or empty
  Grid grid = Grid::One;
};

struct AlgorithmDesc {
  Algorithm id;
  std::string_view name;        ///< key and CLI spelling: "lookback_warp"
  std::string_view device_enum; ///< enumerator in templates/policy.cuh: "ALG_LOOKBACK_WARP"
  bool tiles;                   ///< takes tile parameters (all but sequential)
  bool uses_tile_status;        ///< waits on other tiles through status words
  bool one_tile_per_block;      ///< one block per tile unless the tile loop is set
  bool stages_tiles;            ///< tiles sit in `stages` dynamic shared-memory stages
  bool warp_lookback;           ///< a warp inspects `lookback_span` x 32 predecessors per step
  bool uses_partials;           ///< a workspace of per-tile partials (reduce-then-scan)
  int min_arch;                 ///< oldest compute capability, major * 10 + minor
  int extra_threads;            ///< role warps' threads beyond block_threads
  int alignment_bytes;          ///< full tiles' start alignment; 0: the vector width
  std::array<KernelDesc, 3> kernels;
  int kernel_count;
  /// Static shared memory of the kernels for elements of `size` bytes.
  std::size_t (*shared_bytes)(const Policy& p, std::size_t size);
  /// Why the policy does not fit this algorithm beyond the per-field rules, or nothing.
  std::optional<std::string> (*constraint)(const Policy& p);
  /// The segmented scan's kernel (templates/scan_kernels.cuh), one tile per block;
  /// empty where the algorithm has none.
  std::string_view segmented_entry = {};
  /// The axis scan's kernel (templates/axis_scan.cuh), one tile per block; empty where
  /// the algorithm has none.
  std::string_view axis_entry = {};
  /// The reduction's kernel (Heads::Reduce), a grid of resident blocks; empty where the
  /// algorithm has none.
  std::string_view reduce_entry = {};
  /// The compaction's kernel (templates/select.cuh), one tile per block, and the
  /// partitions' counting kernel launched before it; empty where the algorithm has none.
  std::string_view select_entry = {};
  std::string_view select_count_entry = {};
  /// The head sources its segmented kernel and the compactions its select kernel take
  /// (bit 1 << Heads value); every one by default.
  unsigned segmented_heads = ~0u;
};

inline constexpr std::size_t kAlgorithmCount = 8;

/// Every algorithm, indexed by Algorithm.
const std::array<AlgorithmDesc, kAlgorithmCount>& algorithms();
/// The description of `a`.
const AlgorithmDesc& describe(Algorithm a);

/// Why `p` cannot run a segmented scan with heads from `heads` (an algorithm whose
/// segmented kernel takes them, the pair block scan warp_scans, no tile loop), or
/// nothing when it can. Heads::Axis asks for the axis kernel.
std::optional<std::string> segmented_invalid_reason(const Policy& p, Heads heads);
/// Why `p` cannot run a problem with `heads` other than a flat scan (segmented, axis,
/// reduction, compaction of `type` elements), or nothing when it can.
std::optional<std::string> problem_invalid_reason(const Policy& p, Heads heads, DataType type);
/// Why `p` cannot run the problem a tuning database names by its accumulator `type` and
/// `problem` text ("" flat, "rows", ..., "@uint8:int32" converting), or nothing when it can:
/// what dispatch and the built-in table check before taking a winner.
std::optional<std::string> stored_problem_invalid_reason(const Policy& p, DataType type,
                                                         std::string_view problem);
/// The reduction's policy for a flat scan's: its block size, vector width and items per
/// thread (vectors per lane in flight: at most 8) on lookback_warp, which has the
/// reduction kernel.
Policy reduce_policy_of(const Policy& flat);

/// Dynamic shared memory of a launch: the tile stages of stages_tiles algorithms.
std::size_t dynamic_shared_bytes(const Policy& p, std::size_t size);
/// The same for a converting scan (templates/scan_kernels.cuh's bulk_kernel layout) or,
/// with `heads`, a segmented one (segmented_bulk_kernel stages flags, keys or offsets'
/// head bits too).
std::size_t dynamic_shared_bytes(const Policy& p, const ScanTypes& types,
                                 Heads heads = Heads::None);
/// Dynamic shared memory a segmented launch stages its heads in beside the tiles: a flag
/// byte or a key per element, a bit per element for CSR offsets.
std::size_t staged_head_bytes(const Policy& p, Heads heads);

/// How kernel `k` of a problem's set (codegen.cpp's order) launches. A partition's count
/// kernel (its second) runs the policy's block threads without the staged tiles; every
/// other kernel the policy's launch threads with them.
struct KernelShape {
  int threads = 0;
  std::size_t dynamic_bytes = 0;
};
KernelShape kernel_shape(const Policy& p, const ScanTypes& types, Heads heads, std::size_t k);
/// Blocks of a partition's count kernel over `tiles` tiles: as many as an SM's 2048 threads
/// hold on each of `sm_count` SMs, at most one a tile, at least one; they stride over the tiles.
std::size_t partition_count_blocks(std::size_t tiles, int threads, int sm_count);

} // namespace scantune::detail
