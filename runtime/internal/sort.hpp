// LSD radix sort (templates/radix_sort.cuh): its policy, kernel specialization,
// generated source, workspace layout and launches. A problem kind beside the scan
// ones, with its own spec rather than a Heads enumerator: it has no operator or scan
// kind, but a value size, and three kernels whose launches depend on the bit range.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <cuda_runtime_api.h>

#include "codegen.hpp"
#include "scantune/scantune.hpp"
#include "sort_policy.hpp"

namespace scantune::detail {

class WorkspacePool;
struct KernelSet;
struct LaunchTarget;

/// Everything that selects one compiled sort kernel set.
struct SortSpec {
  SortPolicy policy;
  DataType key = DataType::UInt32;
  std::size_t value_bytes = 0; ///< 0 (keys only), 4 or 8

  /// "radix.tpb384.ipt12.rb8|uint32|v4|sort_pairs": cache keys and logs.
  std::string id() const;
};

/// Kernel order in a sort's KernelSet (and its name expressions); a single-launch
/// policy's set holds its one kernel.
enum SortKernel { kSortHistogram, kSortDigitStarts, kSortOnesweep, kSortKernelCount };
inline constexpr int kSortSingleLaunch = 0;

/// The sort kernels of one spec (name expressions in SortKernel order).
GeneratedSource generate_sort(const SortSpec& spec);

/// Passes over [begin_bit, end_bit) with digits of `radix_bits`.
unsigned sort_passes(unsigned begin_bit, unsigned end_bit, int radix_bits);

/// The device workspace of one sort (in the partials buffer, after its header): digit starts of
/// every pass, tickets, look-back status, and the alternate key and value buffers of the ping-pong
/// (byte offsets).
struct SortLayout {
  std::size_t tiles = 0, starts = 0, tickets = 0, status = 0, status_bytes = 0, keys = 0,
              values = 0, bytes = 0;
};
SortLayout sort_layout(const SortPolicy& p, std::size_t key_bytes, std::size_t value_bytes,
                       std::size_t n);

/// Blocks of the histogram kernel: enough to fill the device, each reading fewer than
/// 2^32 keys (its shared counters are 32-bit).
unsigned sort_histogram_grid(const SortPolicy& p, std::size_t n, int sm_count);

/// One sort's type-erased arguments (Scanner::run_sort).
struct SortRequest {
  DataType key = DataType::UInt32;
  const void* keys_in = nullptr;
  void* keys_out = nullptr;
  const void* values_in = nullptr; ///< null: keys only
  void* values_out = nullptr;
  std::size_t value_bytes = 0;
  std::size_t n = 0;
  SortOrder order = SortOrder::Ascending;
  unsigned begin_bit = 0, end_bit = 0;
  cudaStream_t stream = nullptr;
};

/// Throws InvalidArgument for a malformed request (null or overlapping pointers, a
/// value size other than 4 or 8, a bit range outside the key); nothing on the device.
void check_sort(const SortRequest& r);

/// Enqueues the sort of r.n >= 2 keys: zeroing, histogram, digit starts, then per
/// pass the onesweep kernel, the last pass into the outputs; or, for a single-launch
/// policy, the zeroing and one cooperative launch of all of it.
void launch_sort(const KernelSet& kernels, const SortPolicy& policy, const SortRequest& r,
                 WorkspacePool& pool, const LaunchTarget& target);

} // namespace scantune::detail
