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
  bool indices = false;        ///< the values are the keys' positions, made by the first pass
  /// With 8-byte indices: the positions travel as 4-byte words, the last pass writes them
  /// 8 bytes wide (fewer than 2^32 keys; sort_widens).
  bool widened = false;

  /// Bytes a value takes between passes (in the tiles and the workspace).
  std::size_t carried_bytes() const { return widened ? 4 : value_bytes; }
  /// "radix.tpb384.ipt12.rb8|uint32|v4|sort_pairs" (sort_indices, sort_indices_widened,
  /// sort_keys): cache keys and logs.
  std::string id() const;
};

/// Whether a sort of n keys that makes 8-byte indices carries them as 4-byte positions
/// (SortSpec::widened): whenever the positions fit.
inline bool sort_widens(bool indices, std::size_t value_bytes, std::size_t n) {
  return indices && value_bytes == 8 && n <= (std::size_t{1} << 32);
}

/// Kernel order in a sort's KernelSet (and its name expressions); a single-launch
/// policy's set holds its one kernel.
enum SortKernel { kSortHistogram, kSortDigitStarts, kSortOnesweep, kSortKernelCount };
inline constexpr int kSortSingleLaunch = 0;

/// The sort kernels of one spec (name expressions in SortKernel order).
GeneratedSource generate_sort(const SortSpec& spec);

/// Passes over [begin_bit, end_bit) with digits of `radix_bits`.
unsigned sort_passes(unsigned begin_bit, unsigned end_bit, int radix_bits);

/// The device workspace of one sort: in the partials buffer, after its header, the digit
/// starts of every pass, 8-byte tickets (tiles drawn; above them, whether it is skipped) and
/// the alternate key and value buffers of the ping-pong (byte offsets; `zeroed`: the
/// bytes from `starts` a launch-a-pass sort zeroes); apart,
/// in the stream's sort status buffer, the control block (kSortControlBytes) and the
/// `status_bytes` of look-back status words (with look_back_groups, a group total's
/// words after each kSortLookBackGroup tiles' words).
struct SortLayout {
  std::size_t tiles = 0, starts = 0, tickets = 0, zeroed = 0, keys = 0, values = 0, bytes = 0,
              status_bytes = 0;
};
SortLayout sort_layout(const SortPolicy& p, std::size_t key_bytes, std::size_t value_bytes,
                       std::size_t n);

/// Tiles in a group of the single launch's grouped look-back (SortPolicy::
/// look_back_groups; onesweep_tile::GROUP in radix_sort.cuh).
inline constexpr std::size_t kSortLookBackGroup = 8;

/// Pass p of a sort tags its status words `base + p` (22 bits: RADIX_TAG_SHIFT in
/// radix_sort.cuh). A stream's status words are zeroed when their buffer is allocated,
/// not once a sort: each sort takes tags no word carries yet (`next`, 1 in a zeroed
/// buffer), so a word an earlier sort left reads as not published; when the tags run
/// out the buffer is zeroed again (`zero_first`) and they start over.
struct SortTags {
  unsigned base = 1;
  bool zero_first = false;
};
inline constexpr unsigned kSortTagLimit = 1u << 22;
SortTags take_sort_tags(unsigned& next, unsigned passes);

/// The sort status buffer's control block, for the single launch: its grid barrier's
/// counter, then two digit histograms of kSortHistWords (passes x digits of any key at
/// 4-8 bits) that a stream's launches alternate between, each zeroing the other one
/// for the next: no launch needs a memset before it.
inline constexpr std::size_t kSortHistWords = 2048;
inline constexpr std::size_t kSortBarrierBytes = 256;
inline constexpr std::size_t kSortControlBytes = kSortBarrierBytes + 2 * kSortHistWords * 8;

/// Blocks of the histogram kernel: enough to fill the device, each reading fewer than
/// 2^32 keys (its shared counters are 32-bit).
unsigned sort_histogram_grid(const SortPolicy& p, std::size_t n, int sm_count);

/// One sort's type-erased arguments (Scanner::run_sort).
struct SortRequest {
  DataType key = DataType::UInt32;
  const void* keys_in = nullptr;
  void* keys_out = nullptr;
  const void* values_in = nullptr; ///< null: keys only, or with values_out their positions
  void* values_out = nullptr;
  std::size_t value_bytes = 0;
  std::size_t n = 0;
  SortOrder order = SortOrder::Ascending;
  unsigned begin_bit = 0, end_bit = 0;
  cudaStream_t stream = nullptr;
  bool wide_indices = false; ///< tests: 8-byte indices through every pass, as past 2^32 keys

  /// Bytes that move with each key: values, or indices (0: keys only).
  std::size_t carried_bytes() const { return values_out ? value_bytes : 0; }
  /// Whether the sort makes its values: each key's input position (sort_with_indices).
  bool makes_indices() const { return values_out && !values_in; }
};

/// Throws InvalidArgument for a malformed request (null or overlapping pointers, a
/// value size other than 4 or 8, a bit range outside the key); nothing on the device.
void check_sort(const SortRequest& r);

/// Enqueues the sort of r.n >= 2 keys with the kernels of `spec`: zeroing, histogram,
/// digit starts, then per pass the onesweep kernel (which returns at once where the pass
/// is skipped: radix_skipped_passes in radix_sort.cuh), the last pass into the outputs;
/// or, for a single-launch policy, one cooperative launch of all of it.
void launch_sort(const KernelSet& kernels, const SortSpec& spec, const SortRequest& r,
                 WorkspacePool& pool, const LaunchTarget& target);

} // namespace scantune::detail
