#include "launch.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "algorithms.hpp"
#include "cuda_check.hpp"
#include "default_policies.hpp"

namespace scantune::detail {

std::size_t tile_count(const Policy& p, std::size_t n, unsigned shift) {
  const std::size_t tile = p.tile_items();
  return (n + shift + tile - 1) / tile;
}

int tile_alignment(const Policy& p, DataType in) {
  const int bytes = describe(p.algorithm).alignment_bytes;
  return bytes ? bytes / static_cast<int>(size_of(in)) : p.vector_width;
}

unsigned misalignment(const void* p, std::size_t element_size, int vector_width) {
  return static_cast<unsigned>((reinterpret_cast<std::uintptr_t>(p) / element_size) %
                               static_cast<std::uintptr_t>(vector_width));
}

bool capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) != cudaSuccess) {
    // The legacy stream while another thread captures: the launch reports it.
    cudaGetLastError();
    return false;
  }
  return status == cudaStreamCaptureStatusActive;
}

bool programmatic_launch(int arch, bool enabled) {
  if (!enabled || arch < 90) return false;
  const char* v = std::getenv("SCANTUNE_PDL");
  return !(v && std::string_view(v) == "0");
}

bool tiles_by_block_from_env() {
  const char* v = std::getenv("SCANTUNE_TICKETS");
  return !(v && std::string_view(v) == "1");
}

std::size_t workspace_bytes(const Policy& p, const ScanTypes& types, std::size_t n) {
  if (p.algorithm == Algorithm::Sequential || n == 0) return 0;
  // The worst misalignment of the input shifts the tiles by up to alignment - 1.
  const std::size_t tiles =
      tile_count(p, n, static_cast<unsigned>(tile_alignment(p, types.in) - 1));
  if (p.uses_tile_status()) return WorkspacePool::status_bytes(tiles);
  if (p.algorithm == Algorithm::ReduceThenScan)
    return WorkspacePool::partial_bytes(tiles, size_of(types.acc));
  return 0;
}

bool geometry_needs_resident(const Policy& p, bool tiles_by_block) {
  const AlgorithmDesc& a = describe(p.algorithm);
  for (int k = 0; k < a.kernel_count; ++k)
    if (a.kernels[k].grid == Grid::ResidentWave ||
        (a.kernels[k].grid == Grid::PerTileOrWave && tiles_by_block))
      return true;
  return false;
}

LaunchGeometry launch_geometry(const Policy& p, std::size_t tiles, std::size_t resident,
                               bool tiles_by_block) {
  LaunchGeometry g;
  const AlgorithmDesc& a = describe(p.algorithm);
  for (int k = 0; k < a.kernel_count; ++k) {
    std::size_t grid = 1;
    switch (a.kernels[k].grid) {
    case Grid::One:
      break;
    case Grid::PerTile:
      grid = tiles;
      break;
    case Grid::ResidentWave:
      grid = std::min(tiles, resident);
      break;
    case Grid::PerTileOrWave:
      // In a grid that fits on the device at once a waiting block never keeps the
      // block it waits for from being dispatched, so its tiles may follow blockIdx
      // (no ticket round trip first); a tile loop shrinks any grid to one that fits.
      grid = tiles;
      if (tiles_by_block) {
        if (p.tile_loop) grid = std::min(tiles, resident);
        if (grid <= resident) g.flags |= kFlagTilesByBlock;
      }
      break;
    }
    g.launches[g.count++] = {static_cast<unsigned>(grid),
                             static_cast<unsigned>(p.launch_threads())};
  }
  return g;
}

// Blocks of `kernels`' first kernel that fit on the device at once (asked once).
std::size_t resident_blocks(const KernelSet& kernels, int block_threads, std::size_t dynamic_bytes,
                            int sm_count) {
  int per_sm = kernels.resident_per_sm.load(std::memory_order_relaxed);
  if (per_sm == 0) {
    SCANTUNE_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, reinterpret_cast<const void*>(kernels.kernels.at(0)), block_threads,
        dynamic_bytes));
    per_sm = std::max(per_sm, 1);
    kernels.resident_per_sm.store(per_sm, std::memory_order_relaxed);
  }
  return static_cast<std::size_t>(per_sm) * static_cast<std::size_t>(std::max(sm_count, 1));
}

namespace {

// A block may use more than 48 KiB of shared memory only after its kernel opts in,
// per device, up to the device's own limit (checked here, with the policy named).
void opt_in_shared(const KernelSet& kernels, const Policy& policy, DataType type,
                   std::size_t dynamic_bytes) {
  const std::size_t total = kernels.attributes.at(0).sharedSizeBytes + dynamic_bytes;
  if (total <= kMaxStaticSharedBytes) return;
  int device = 0;
  SCANTUNE_CUDA_TRY(cudaGetDevice(&device));
  const unsigned long long bit = device < 64 ? 1ull << device : 0ull;
  if (bit != 0 && (kernels.shared_opt_in.load(std::memory_order_acquire) & bit) != 0) return;
  int limit = 0;
  SCANTUNE_CUDA_TRY(
      cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (total > static_cast<std::size_t>(limit))
    fail<Unsupported>("policy {} needs {} bytes of shared memory per block for {} ({} tile "
                      "stages); this GPU allows {}",
                      policy.key(), total, to_string(type), policy.stages, limit);
  SCANTUNE_CUDA_TRY(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernels.kernels.at(0)),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(dynamic_bytes)));
  kernels.shared_opt_in.fetch_or(bit, std::memory_order_release);
}

// Warps down a column that holds `need` warps' rows: a power of two, else all.
std::size_t warps_down(std::size_t need, std::size_t warps) {
  std::size_t down = 1;
  while (down < need && 2 * down <= warps)
    down *= 2;
  return down < need ? warps : down;
}

// An axis scan's tiles, as templates/axis_scan.cuh's locate() lays them out: a row takes
// lpr lanes (a power of two, at most 32, enough for the columns), a warp 32 / lpr row
// groups of IPT rows; as few warps down a column as hold it (a power of two), else all,
// the block's groups of them side by side on consecutive slices (lpr * vec columns of a
// matrix, running on into the next). `columns`: status slots per tile (32 * VEC,
// whatever lpr is), needed only where a column has more than one chunk.
// Columns of at most IPT rows lie within a thread's rows (in_thread), IPT / len of
// them a thread: the tile then runs down the rows of all matrices in a row, as few
// warps down them as hold them (locate_rows).
// `lpr`: axis_row_lanes, or fewer where a tile loop takes whole chains (axis_launch).
struct AxisTiles {
  std::size_t tiles = 0, columns = 0, chunks = 0, chains = 0;
  bool in_thread = false;
};
AxisTiles axis_tiles(const Policy& p, const ScanRequest& r, std::size_t lpr) {
  const auto vec = static_cast<std::size_t>(p.vector_width);
  const auto warps = static_cast<std::size_t>(p.block_threads / 32);
  const auto ipt = static_cast<std::size_t>(p.items_per_thread);
  const std::size_t warp_rows = ipt * (32 / lpr), cols = lpr * vec;
  const std::size_t slices_per_matrix = (r.axis.inner + cols - 1) / cols;
  if (r.axis.len && r.axis.len <= ipt) {
    const std::size_t group_rows = (32 / lpr) * (ipt / r.axis.len * r.axis.len);
    const std::size_t all_rows = r.n / r.axis.inner;
    const std::size_t down = warps_down((all_rows + group_rows - 1) / group_rows, warps);
    const std::size_t rows = down * group_rows, groups = warps / down;
    const std::size_t chains = (slices_per_matrix + groups - 1) / groups;
    return {(all_rows + rows - 1) / rows * chains, 32 * vec, 1, chains, true};
  }
  const std::size_t down = warps_down((r.axis.len + warp_rows - 1) / warp_rows, warps);
  const std::size_t groups = warps / down, rows = down * warp_rows;
  const std::size_t chunks = (r.axis.len + rows - 1) / rows;
  const std::size_t slices = r.n / (r.axis.len * r.axis.inner) * slices_per_matrix;
  const std::size_t chains = (slices + groups - 1) / groups;
  return {chains * chunks, 32 * vec, chunks, chains};
}

// An axis scan's tiles as launched. A tile loop (FLAG_AXIS_CHAINS: each block scans whole
// chains) halves the lanes a row from the tile's own while there are fewer chains than
// resident blocks, down to axis_loop_lanes, and is taken where the chains then fill every
// SM and columns take more than one chunk: `lanes` a row and a grid of at most the
// resident blocks, one a chain. Else the look-back tiles (lanes 0).
struct AxisLaunch {
  AxisTiles tiles;
  unsigned lanes = 0;
  std::size_t grid = 0;
};
AxisLaunch axis_launch(const KernelSet& kernels, const Policy& p, const ScanRequest& r,
                       const LaunchTarget& target) {
  const auto vec = static_cast<std::size_t>(p.vector_width);
  std::size_t lpr = axis_row_lanes(r.axis.inner, vec);
  AxisLaunch a;
  a.tiles = axis_tiles(p, r, lpr);
  if (!p.tile_loop || a.tiles.chunks == 1) return a;
  const std::size_t resident = resident_blocks(kernels, p.launch_threads(), 0, target.sm_count);
  const std::size_t floor = axis_loop_lanes(r.axis.inner, vec, size_of(r.type));
  AxisTiles chains = a.tiles;
  while (lpr > floor && chains.chains < resident) {
    lpr /= 2;
    chains = axis_tiles(p, r, lpr);
  }
  if (chains.chunks == 1 || chains.chains < static_cast<std::size_t>(target.sm_count)) return a;
  a.tiles = chains;
  a.lanes = static_cast<unsigned>(lpr);
  a.grid = std::min(chains.chains, resident);
  return a;
}

// Words of an axis tile's column slot, packed: the words its value takes (axis_tile::SLOT).
std::size_t axis_slot_words(std::size_t value_bytes) {
  return value_bytes <= 4 ? 1 : (value_bytes + 3) / 4;
}

// Vector accesses along an axis scan's rows need rows and both pointers aligned to them.
unsigned axis_flags(const Policy& p, const ScanRequest& r) {
  const std::size_t size = size_of(r.type), vec = static_cast<std::size_t>(p.vector_width);
  const bool aligned = r.axis.inner % vec == 0 && misalignment(r.in, size, p.vector_width) == 0 &&
                       misalignment(r.out, size, p.vector_width) == 0;
  return aligned ? kFlagAxisVectors : 0u;
}

} // namespace

void launch_scan(const KernelSet& kernels, const Policy& policy, const ScanRequest& r,
                 WorkspacePool& pool, const LaunchTarget& target) {
  const std::size_t size = r.acc_bytes();
  const int align = tile_alignment(policy, r.in_type());
  const bool axis = r.axis.inner != 0;
  // Reversed, full tiles end on a vector boundary: the tiling is shifted by what
  // the end of the input lacks to reach one.
  const unsigned in_mis = misalignment(r.in, r.in_bytes(), align);
  const auto a = static_cast<unsigned>(align);
  const unsigned end_gap = (a - (in_mis + static_cast<unsigned>(r.n % a)) % a) % a;
  const AxisLaunch al = axis ? axis_launch(kernels, policy, r, target) : AxisLaunch{};
  const AxisTiles& at = al.tiles;
  // An axis scan's tiling has no shift: a tile loop over chains takes its lanes a row there.
  const unsigned shift = axis ? al.lanes : policy.reverse ? end_gap : in_mis;
  unsigned flags = axis                                                  ? axis_flags(policy, r)
                   : misalignment(r.out, r.out_bytes(), align) == in_mis ? kFlagOutVectors
                                                                         : 0u;
  if (r.seeded) flags |= kFlagSeeded;
  if (r.struct_bytes() && r.kind == ScanKind::Exclusive) flags |= kFlagStartIdentity;
  if (r.start) flags |= kFlagStartOnDevice;
  unsigned long long n = r.n;
  alignas(16) unsigned char init[16] = {}; // the largest value: a 16-byte struct
  if ((r.kind == ScanKind::Exclusive || r.seeded) && r.init) std::memcpy(init, r.init, size);
  const std::size_t tiles = axis                               ? at.tiles
                            : describe(policy.algorithm).tiles ? tile_count(policy, r.n, shift)
                                                               : 1;
  if (tiles > static_cast<std::size_t>(INT_MAX))
    fail("n = {} needs {} tiles with policy {}, more than one launch can hold ({})", r.n, tiles,
         policy.key(), INT_MAX);

  // Checked before any workspace is taken or captured: a refused policy leaves nothing behind.
  const std::size_t dynamic_bytes = (r.converts ? dynamic_shared_bytes(policy, *r.converts)
                                                : dynamic_shared_bytes(policy, size)) +
                                    (axis ? 0 : staged_head_bytes(policy, heads_of(r.segments)));
  if (dynamic_bytes) opt_in_shared(kernels, policy, r.type, dynamic_bytes);

  // A reduction: one grid of resident blocks, each folding a run of vectors into a partial
  // (at most 4 per SM: enough loads in flight, few partials for the last block to fold).
  const std::size_t reduce_grid =
      r.reduce
          ? std::max<std::size_t>(1, std::min({tiles, 4 * static_cast<std::size_t>(target.sm_count),
                                               resident_blocks(kernels, policy.launch_threads(), 0,
                                                               target.sm_count)}))
          : 0;
  const bool single_pass = !r.reduce && policy.uses_tile_status();
  const bool rts = r.reduce || describe(policy.algorithm).uses_partials;
  // An axis scan keeps one status slot per tile and column, where columns have chunks
  // to look back over; where they have one, no tile waits on another and the kernel
  // takes no ticket (FLAG_AXIS_ONE_CHUNK): no workspace at all.
  // A tile loop over chains (FLAG_AXIS_CHAINS) looks back nothing either.
  const bool one_chunk = axis && at.chunks == 1;
  if (one_chunk) flags |= kFlagAxisOneChunk | (at.in_thread ? kFlagAxisInThread : 0u);
  if (al.lanes) flags |= kFlagAxisChains;
  const std::size_t status_bytes =
      !single_pass || one_chunk || al.lanes ? 0
      : axis ? WorkspacePool::packed_status_bytes(tiles * at.columns, axis_slot_words(size))
             : WorkspacePool::status_bytes(tiles);
  const std::size_t partial_bytes =
      rts ? WorkspacePool::partial_bytes(r.reduce ? reduce_grid : tiles, size) : 0;
  void* ws = nullptr;
  WorkspacePool::Lease lease;
  const bool captured = !r.workspace.ptr && capturing(r.stream);
  if (r.workspace.ptr && (status_bytes || partial_bytes)) {
    const std::size_t bytes = std::max(status_bytes, partial_bytes);
    if (r.workspace.bytes < bytes)
      fail("the caller's workspace has {} bytes; policy {} needs {} at n = {} "
           "(Scanner::workspace_bytes)",
           r.workspace.bytes, policy.key(), bytes, r.n);
    ws = r.workspace.ptr;
  } else if (captured && (status_bytes || partial_bytes)) {
    // Under stream capture the call gets its own workspace inside the graph (an
    // allocation node, a memset, the launches, a free node): each graph launch is
    // then independent of the stream's workspace and of other launches.
    const std::size_t bytes = std::max(status_bytes, partial_bytes);
    SCANTUNE_CUDA_TRY(cudaMallocAsync(&ws, bytes, r.stream));
    SCANTUNE_CUDA_TRY(cudaMemsetAsync(ws, 0, bytes, r.stream));
  } else if (status_bytes || partial_bytes) {
    lease = pool.acquire(r.stream, status_bytes, partial_bytes);
    ws = single_pass ? lease.status->ptr : lease.partials->ptr;
  }
  const void* in = r.in;
  void* out = r.out;
  // templates/segmented_scan.cuh's segment_args; flat kernels take only the first eight
  // arguments (a launch reads as many as the kernel declares).
  struct {
    const void* flags;
    unsigned long long period;
    const void* keys;
    const void* offsets;
    unsigned long long num_segments, axis_len, axis_inner;
    void* num_selected;
  } segments{r.segments.head_flags, r.segments.row_length,   r.segments.keys,
             r.segments.offsets,    r.segments.num_segments, r.axis.len,
             r.axis.inner,          r.num_selected};
  const void* start = r.start;
  void* args[] = {&in,    &out, &n,     init,     const_cast<unsigned*>(&shift),
                  &flags, &ws,  &start, &segments};

  // Every kernel waits for the stream's previous grid before touching memory, so the
  // attribute only lets its launch overlap that grid's tail (scan_kernels.cuh).
  cudaLaunchAttribute pdl[1] = {};
  pdl[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  pdl[0].val.programmaticStreamSerializationAllowed = 1;
  auto launch = [&](std::size_t k, unsigned grid, unsigned block, std::size_t dynamic) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(grid);
    config.blockDim = dim3(block);
    config.dynamicSmemBytes = dynamic;
    config.stream = r.stream;
    config.attrs = pdl;
    config.numAttrs = target.programmatic ? 1 : 0;
    const cudaError_t e =
        cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(kernels.kernels.at(k)), args);
    if (e != cudaSuccess)
      fail<CudaError>("launch of {} ({} blocks x {} threads) failed: {}", policy.key(), grid, block,
                      cudaGetErrorString(e));
  };
  if (r.reduce) {
    launch(0, static_cast<unsigned>(reduce_grid), static_cast<unsigned>(policy.block_threads),
           dynamic_bytes);
    if (captured && ws) SCANTUNE_CUDA_TRY(cudaFreeAsync(ws, r.stream));
    return;
  }
  const std::size_t resident =
      geometry_needs_resident(policy, target.tiles_by_block)
          ? resident_blocks(kernels, policy.launch_threads(), dynamic_bytes, target.sm_count)
          : 0;
  // An axis scan's tile loop is axis_launch's: its look-back tiles take one a block.
  Policy tiling = policy;
  tiling.tile_loop = tiling.tile_loop && !axis;
  LaunchGeometry geometry = launch_geometry(tiling, tiles, resident, target.tiles_by_block);
  flags |= geometry.flags;
  if (al.lanes) geometry.launches[0].grid = static_cast<unsigned>(al.grid);
  // A partition counts its selected items first (its second kernel): its rejected items
  // are stored after all the selected ones.
  if (is_partition(r.compaction)) {
    const KernelShape count = kernel_shape(policy, scan_types(r.type), r.compaction, 1);
    launch(1, static_cast<unsigned>(partition_count_blocks(tiles, count.threads, target.sm_count)),
           static_cast<unsigned>(count.threads), count.dynamic_bytes);
  }
  for (int k = 0; k < geometry.count; ++k)
    launch(static_cast<std::size_t>(k), geometry.launches[k].grid, geometry.launches[k].block,
           dynamic_bytes);
  if (captured && ws) SCANTUNE_CUDA_TRY(cudaFreeAsync(ws, r.stream));
}

} // namespace scantune::detail
