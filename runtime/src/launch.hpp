// Launches one scan with a loaded kernel set: grid sizing, misalignment shift,
// workspace, and the 1 (single-pass) or 3 (reduce-then-scan) launches.
#pragma once

#include "kernel_registry.hpp"
#include "workspace.hpp"

namespace scantune::detail {

/// Tiles a policy lays over n elements of a pointer misaligned by `shift` elements.
std::size_t tile_count(const Policy& p, std::size_t n, unsigned shift);

/// Input misalignment in elements relative to the policy's vector width.
unsigned misalignment(const void* p, std::size_t element_size, int vector_width);

/// Whether `stream` is being captured into a CUDA graph.
bool capturing(cudaStream_t stream);

/// Launches the scan. `sm_count` sizes the persistent grid of lookback_pipelined.
void launch_scan(const KernelSet& kernels, const Policy& policy, const ScanRequest& request,
                 WorkspacePool& pool, int sm_count);

} // namespace scantune::detail
