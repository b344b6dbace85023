// The algorithm table and the shared-memory layouts of the kernels
// (templates/scan_kernels.cuh declares the same arrays).
#include "algorithms.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "shape_class.hpp"

namespace scantune::detail {
namespace {

std::size_t next_pow2(std::size_t n) {
  std::size_t p = 1;
  while (p < n)
    p <<= 1;
  return p;
}

std::size_t no_shared(const Policy&, std::size_t) {
  return 0;
}

// The block scan's arrays; `staged`: lookback_pipelined's second set of warp
// prefixes (two call sites) and the tile prefix.
std::size_t block_scan_bytes(const Policy& p, std::size_t size, bool staged) {
  const std::size_t tpb = static_cast<std::size_t>(p.block_threads);
  switch (p.block_scan) {
  case BlockScan::WarpScans:
    return (staged ? 2 * (tpb / 32) + 1 : tpb / 32) * size;
  case BlockScan::HillisSteele:
    return 2 * tpb * size;
  case BlockScan::Blelloch:
    return (next_pow2(tpb) + 1) * size;
  case BlockScan::BlellochPadded:
    return (next_pow2(tpb) + next_pow2(tpb) / 32 + 1) * size;
  }
  return 0;
}

// A tile in static shared memory (unless loaded directly), the block scan's
// arrays, the ticket, generation and broadcast prefix.
std::size_t tile_shared(const Policy& p, std::size_t size) {
  const std::size_t tile = p.io != TileIO::Direct ? p.tile_items() * size : 16;
  return tile + block_scan_bytes(p, size, false) + 16 + size;
}

// lookback_pipelined: its tiles are dynamic (dynamic_shared_bytes).
std::size_t pipelined_shared(const Policy& p, std::size_t size) {
  return 16 + block_scan_bytes(p, size, true) + 16 + size;
}

// Per stage: 4 mbarriers, the tile index, each consumer's prefix, aggregate and prefix.
std::size_t bulk_shared(const Policy& p, std::size_t size) {
  // Four barriers, the tile, each consumer's segment prefix, the aggregate and the
  // prefix; an early release passes prefixes through a ring of twice the stages.
  const std::size_t per_stage = 4 * 8 + 4 +
                                (static_cast<std::size_t>(p.block_threads) / 32 + 2) * size +
                                (p.early_release ? 2 * (8 + size) : 0);
  return static_cast<std::size_t>(p.stages) * per_stage + 16;
}

std::optional<std::string> no_constraint(const Policy&) {
  return std::nullopt;
}

std::optional<std::string> pipelined_constraint(const Policy& p) {
  if (p.io == TileIO::Direct)
    return std::string("lookback_pipelined stages tiles in shared memory: it needs the xpose or "
                       "wxpose tile I/O, not direct");
  return std::nullopt;
}

// Its consumers scan shared memory and its copies bypass registers, so the block scan
// and the cache hints are not choices. The tile I/O is how a consumer warp takes its
// segment: xpose, a lane per vector of each row, one warp scan a row; direct, a lane per
// run of consecutive vectors, one warp scan a segment.
std::optional<std::string> bulk_constraint(const Policy& p) {
  if (p.block_scan != BlockScan::WarpScans || p.io == TileIO::WarpTranspose || p.streaming)
    return std::string("lookback_bulk takes the default block scan (warp_scans), the xpose or "
                       "direct tile I/O and no cache hints");
  if (p.launch_threads() > 1024)
    return fmt::format("lookback_bulk runs block threads + 96 = {} threads per block, more "
                       "than 1024",
                       p.launch_threads());
  return std::nullopt;
}

constexpr KernelDesc kOnePerTile{"single_pass_kernel", "single_pass_loop_kernel",
                                 Grid::PerTileOrWave};

// Columns: tiles, tile status, one tile per block, staged tiles, warp look-back,
// partials; min_arch, extra threads, alignment bytes; kernels.
// clang-format off
const std::array<AlgorithmDesc, kAlgorithmCount> kAlgorithms{{
    {Algorithm::Sequential, "sequential", "ALG_SEQUENTIAL", false, false, false, false, false,
     false, 80, 0, 0, {{{"sequential_kernel", "", Grid::One}}}, 1, no_shared, no_constraint},
    {Algorithm::SingleBlock, "single_block", "ALG_SINGLE_BLOCK", true, false, false, false, false,
     false, 80, 0, 0, {{{"single_block_kernel", "", Grid::One}}}, 1, tile_shared, no_constraint},
    {Algorithm::ReduceThenScan, "reduce_then_scan", "ALG_REDUCE_THEN_SCAN", true, false, false,
     false, false, true, 80, 0, 0,
     {{{"rts_reduce_kernel", "", Grid::PerTile},
       {"rts_partials_kernel", "", Grid::One},
       {"rts_downsweep_kernel", "", Grid::PerTile}}},
     3, tile_shared, no_constraint},
    {Algorithm::Chained, "chained", "ALG_CHAINED", true, true, true, false, false, false, 80, 0,
     0, {{kOnePerTile}}, 1, tile_shared, no_constraint},
    {Algorithm::LookbackThread, "lookback_thread", "ALG_LOOKBACK_THREAD", true, true, true, false,
     false, false, 80, 0, 0, {{kOnePerTile}}, 1, tile_shared, no_constraint},
    {Algorithm::LookbackWarp, "lookback_warp", "ALG_LOOKBACK_WARP", true, true, true, false, true,
     false, 80, 0, 0, {{kOnePerTile}}, 1, tile_shared, no_constraint, "segmented_kernel",
     "axis_kernel", "reduce_kernel", "select_kernel", "select_count_kernel"},
    {Algorithm::LookbackPipelined, "lookback_pipelined", "ALG_LOOKBACK_PIPELINED", true, true,
     false, true, true, false, 80, 0, 0, {{{"pipelined_kernel", "", Grid::ResidentWave}}}, 1,
     pipelined_shared, pipelined_constraint},
    // Producer, reducer and look-back warps beside the consumers; 16-byte bulk copies.
    // Segmented: head flags and keys staged beside the values, offsets as head bits;
    // compaction: select and partition by flags (a partition counts first).
    {Algorithm::LookbackBulk, "lookback_bulk", "ALG_LOOKBACK_BULK", true, true, false, true, true,
     false, 90, 96, 16, {{{"bulk_kernel", "", Grid::ResidentWave}}}, 1, bulk_shared,
     bulk_constraint, "segmented_bulk_kernel", "", "", "select_bulk_kernel", "select_count_kernel",
     1u << int(Heads::Flags) | 1u << int(Heads::Keys32) | 1u << int(Heads::Keys64) |
         1u << int(Heads::Offsets32) | 1u << int(Heads::Offsets64) |
         1u << int(Heads::SelectFlags) | 1u << int(Heads::PartitionFlags)},
}};
// clang-format on

} // namespace

const std::array<AlgorithmDesc, kAlgorithmCount>& algorithms() {
  return kAlgorithms;
}

const AlgorithmDesc& describe(Algorithm a) {
  return kAlgorithms.at(static_cast<std::size_t>(a));
}

std::optional<std::string> segmented_invalid_reason(const Policy& p, Heads heads) {
  const AlgorithmDesc& a = describe(p.algorithm);
  if (heads == Heads::Axis ? a.axis_entry.empty() : a.segmented_entry.empty())
    return fmt::format("{} has no {} kernel", a.name, heads == Heads::Axis ? "axis" : "segmented");
  if (heads != Heads::Axis && !(a.segmented_heads >> int(heads) & 1u))
    return fmt::format("{} has no segmented kernel over {} (it takes head flags, keys and offsets)",
                       a.name, to_string(heads));
  if (p.block_scan != BlockScan::WarpScans)
    return std::string("segmented scans take the warp_scans block scan");
  if (p.algorithm == Algorithm::LookbackBulk && p.io != TileIO::Transpose)
    return std::string("lookback_bulk's segmented kernel takes the xpose tile I/O");
  if (p.tiles_per_ticket != 1)
    return std::string("segmented scans take one tile a ticket (no .tk<N>)");
  if (p.tile_loop && heads != Heads::Axis) // axis scans' loop takes whole chains
    return std::string("segmented scans other than axis scans take no tile loop");
  return std::nullopt;
}

// Compaction gathers its selected items in a shared-memory tile: the staged tile I/Os,
// whose tile the policy's shared-memory check counts, keep it within the limit.
// lookback_bulk's consumers rank and store rows of 4- and 8-byte items.
std::optional<std::string> select_invalid_reason(const Policy& p, Heads how, DataType type) {
  const AlgorithmDesc& a = describe(p.algorithm);
  if (a.select_entry.empty()) return fmt::format("{} has no compaction kernel", a.name);
  if (!(a.segmented_heads >> int(how) & 1u))
    return fmt::format("{} has no {} kernel (it selects and partitions by flags)", a.name,
                       to_string(how));
  if (p.algorithm == Algorithm::LookbackBulk && size_of(type) < 4)
    return fmt::format("{} compacts 4- and 8-byte items, not {}", a.name, to_string(type));
  if (p.tile_loop || p.io == TileIO::Direct)
    return std::string("compaction takes a staged tile I/O (xpose or wxpose) without a tile loop");
  if (p.tiles_per_ticket != 1) return std::string("compaction takes one tile a ticket (no .tk<N>)");
  return std::nullopt;
}

std::optional<std::string> problem_invalid_reason(const Policy& p, Heads heads, DataType type) {
  if (is_compaction(heads)) return select_invalid_reason(p, heads, type);
  if (heads != Heads::Reduce) return segmented_invalid_reason(p, heads);
  if (describe(p.algorithm).reduce_entry.empty())
    return fmt::format("{} has no reduction kernel", describe(p.algorithm).name);
  return std::nullopt;
}

std::optional<std::string> stored_problem_invalid_reason(const Policy& p, DataType type,
                                                         std::string_view problem) {
  if (!problem.empty() && problem[0] == '@') { // converting: vectors of the wider side
    const ScanTypes types = parse_scan_types(problem.substr(1));
    if (types.acc != type)
      return fmt::format("problem {} does not accumulate in {}", problem, to_string(type));
    return p.invalid_reason(types);
  }
  std::string unknown;
  const std::optional<ClassedHeads> h = parse_classed_heads(problem, &unknown);
  if (!h) return unknown;
  const ScanTypes types{type, type, type};
  if (auto why = p.invalid_reason(types)) return why;
  if (h->heads == Heads::None) return std::nullopt;
  if (auto why = problem_invalid_reason(p, h->heads, type)) return why;
  const std::size_t shared = p.shared_bytes(type) + dynamic_shared_bytes(p, types, h->heads);
  if (shared > kMaxDynamicSharedBytes)
    return fmt::format("needs {} bytes of shared memory for {} with staged heads (limit {})",
                       shared, problem, kMaxDynamicSharedBytes);
  return std::nullopt;
}

Policy reduce_policy_of(const Policy& flat) {
  Policy p;
  p.block_threads = flat.block_threads;
  p.items_per_thread = flat.items_per_thread;
  p.vector_width = flat.vector_width;
  p.streaming = flat.streaming;
  // reduce_kernel holds items_per_thread / vector_width vectors per lane in flight:
  // at most 8 (128 bytes), as lookback_bulk's 32-item tiles would take 32 of 4 bytes.
  while (p.items_per_thread / p.vector_width > 8 && (p.items_per_thread / 2) % p.vector_width == 0)
    p.items_per_thread /= 2;
  return p;
}

std::size_t dynamic_shared_bytes(const Policy& p, std::size_t size) {
  if (!describe(p.algorithm).stages_tiles) return 0;
  return static_cast<std::size_t>(p.stages) * p.tile_items() * size;
}

std::size_t staged_head_bytes(const Policy& p, Heads heads) {
  const AlgorithmDesc& a = describe(p.algorithm);
  if (!a.stages_tiles || a.segmented_entry.empty()) return 0;
  if (heads == Heads::Offsets32 || heads == Heads::Offsets64) // a head bit per element
    return static_cast<std::size_t>(p.stages) * p.tile_items() / 8;
  return dynamic_shared_bytes(p, head_bytes_per_element(heads));
}

std::size_t dynamic_shared_bytes(const Policy& p, const ScanTypes& types, Heads heads) {
  if (heads != Heads::None)
    return dynamic_shared_bytes(p, size_of(types.acc)) + staged_head_bytes(p, heads);
  if (p.algorithm != Algorithm::LookbackBulk) return dynamic_shared_bytes(p, size_of(types.acc));
  const std::size_t in = size_of(types.in), out = size_of(types.out);
  // S stages of input, then two output segments per consumer warp where the output is wider.
  return dynamic_shared_bytes(p, in) + (out > in ? 2 * p.tile_items() * out : 0);
}

KernelShape kernel_shape(const Policy& p, const ScanTypes& types, Heads heads, std::size_t k) {
  if (is_partition(heads) && k == 1) return {p.block_threads, 0};
  return {p.launch_threads(), dynamic_shared_bytes(p, types, heads)};
}

std::size_t partition_count_blocks(std::size_t tiles, int threads, int sm_count) {
  const auto per_sm = static_cast<std::size_t>(std::max(1, 2048 / std::max(threads, 1)));
  return std::max<std::size_t>(
      1, std::min(tiles, per_sm * static_cast<std::size_t>(std::max(sm_count, 1))));
}

} // namespace scantune::detail
