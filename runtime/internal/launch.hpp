// Launches one scan with a loaded kernel set: grid sizing, misalignment shift,
// workspace, and the 1 (single-pass) or 3 (reduce-then-scan) launches.
#pragma once

#include "kernel_registry.hpp"
#include "scan_request.hpp"
#include "workspace.hpp"

namespace scantune::detail {

/// Tiles a policy lays over n elements of a pointer misaligned by `shift` elements.
std::size_t tile_count(const Policy& p, std::size_t n, unsigned shift);

/// Elements every full tile's start is aligned to: the vector width, or 16 bytes of
/// input elements of type `in` for lookback_bulk's bulk copies.
int tile_alignment(const Policy& p, DataType in);

/// Input misalignment in elements relative to the policy's vector width.
unsigned misalignment(const void* p, std::size_t element_size, int vector_width);

/// Device workspace a call of n elements needs with this policy, for any
/// misalignment of its pointers (Scanner::workspace_bytes), for a scan of `types`.
std::size_t workspace_bytes(const Policy& p, const ScanTypes& types, std::size_t n);

/// Whether `stream` is being captured into a CUDA graph.
bool capturing(cudaStream_t stream);

/// The device a scan is launched on, as the launch needs it.
struct LaunchTarget {
  int sm_count = 0;          ///< sizes the resident grids of lookback_pipelined and _bulk
  bool programmatic = false; ///< programmatic dependent launch (sm_90+, see scan_kernels.cuh)
  /// Single-pass grids that fit on the device at once take their tiles from blockIdx
  /// instead of waiting for a ticket (scan_kernels.cuh); off with SCANTUNE_TICKETS=1.
  bool tiles_by_block = true;
};

/// Bits of the kernels' `flags` argument (FLAG_* in templates/scan_kernels.cuh).
inline constexpr unsigned kFlagOutVectors = 1u, kFlagTilesByBlock = 2u, kFlagAxisVectors = 4u,
                          kFlagSeeded = 8u, kFlagStartOnDevice = 16u, kFlagStartIdentity = 32u,
                          kFlagAxisOneChunk = 64u, kFlagAxisInThread = 128u, kFlagAxisChains = 256u;

/// Whether launches on a device of compute capability `arch` (e.g. 90) use
/// programmatic dependent launch: sm_90 and up, unless SCANTUNE_PDL=0 or `enabled` is false.
bool programmatic_launch(int arch, bool enabled);

/// LaunchTarget::tiles_by_block: true unless SCANTUNE_TICKETS=1.
bool tiles_by_block_from_env();

/// One kernel launch of a scan: blocks and threads per block.
struct KernelLaunch {
  unsigned grid = 0, block = 0;
};

/// The launches of one scan, in order, and the kernel flags they add.
struct LaunchGeometry {
  KernelLaunch launches[3];
  int count = 0;
  unsigned flags = 0; ///< kFlagTilesByBlock where a single-pass grid fits on the device
};

/// Blocks of `kernels`' first kernel that fit on the device at once (asked of the
/// device once a kernel set).
std::size_t resident_blocks(const KernelSet& kernels, int block_threads, std::size_t dynamic_bytes,
                            int sm_count);

/// Whether launch_geometry reads `resident` (blocks of the first kernel that fit on the
/// device at once), so that launch_scan asks the device only where it matters.
bool geometry_needs_resident(const Policy& p, bool tiles_by_block);

/// The launches of `p` over `tiles` tiles: a pure function of the policy, the tile
/// count and the device's resident blocks, so that it is testable without a GPU.
LaunchGeometry launch_geometry(const Policy& p, std::size_t tiles, std::size_t resident,
                               bool tiles_by_block);

/// Launches the scan.
void launch_scan(const KernelSet& kernels, const Policy& policy, const ScanRequest& request,
                 WorkspacePool& pool, const LaunchTarget& target);

} // namespace scantune::detail
