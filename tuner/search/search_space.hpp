// The search space: every policy the tuner may time for one element type, and the
// constraints that exclude points before (policy rules) and after compilation
// (threads, registers, spills reported by cudaFuncGetAttributes).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

#include "base/size_bucket.hpp"
#include "policy.hpp"

namespace scantune::tuner {

/// The grid. Each list holds the values of one dimension; enumerate() takes their
/// product and drops the invalid combinations.
struct SpaceOptions {
  std::vector<Algorithm> algorithms;  ///< default: single_block, reduce_then_scan, lookback_*
                                      ///< (thread, warp, pipelined, bulk)
  std::vector<BlockScan> block_scans; ///< default: all four
  std::vector<int> block_threads;     ///< default: 64, 128, 256, 512, 1024
  std::vector<int> items_per_thread;  ///< default: a spread of 1..32
  /// Shapes timed for lookback_pipelined beside the two lists above: its mid-size
  /// winners on the H100 (2^22..2^23) take 384 threads or 10 items per thread, which
  /// the other algorithms do not need (their winners sit on the grid). Adding them
  /// to the lists would grow every algorithm's share of the search by a third.
  /// Giving --block-threads or --items-per-thread clears the matching list.
  std::vector<int> pipelined_block_threads;    ///< default: 384
  std::vector<int> pipelined_items_per_thread; ///< default: 10
  /// lookback_bulk's extra items per thread where elements are 1 or 2 bytes: 16 KB byte
  /// tiles halve the per-tile hand-offs and look-backs that held byte sums at 0.86x
  /// memcpy (0.97x on 32 KB tiles at 2^28 on the H100). Cleared by --items-per-thread.
  std::vector<int> bulk_items_per_thread; ///< default: 64
  std::vector<int> vector_bytes;          ///< bytes per vector access; default 4, 8, 16
  std::vector<TileIO> ios;                ///< default: transpose, direct, warp transpose
  std::vector<bool> streaming;            ///< cache hints: default {false, true}
  std::vector<int> lookback_spans;        ///< warp look-backs only; default 1
  std::vector<int> stages;                ///< lookback_pipelined's tile stages; default 3
  std::vector<int> bulk_stages;           ///< lookback_bulk's tile stages; default 4, 6, 7, 8
  std::vector<int> backoffs_ns;           ///< look-back/chained only; default 0 and 200
  std::vector<bool> tile_loops; ///< one-tile-per-block kernels only; default {false, true}
  /// Values of the fields without a member above, by field name; a field missing here
  /// takes its SpaceField::default_values.
  std::map<std::string, std::vector<int>, std::less<>> other_fields;
  /// The refinement also times each winner whose registers bind its residency with more
  /// blocks in its launch bounds (residency.hpp). On by default and with `--min-blocks
  /// auto`; a --min-blocks list without `auto` turns it off.
  bool residency_neighbours = true;
  /// Size limits of the variants that only make sense for small inputs: above
  /// these, the one-block algorithm and the Hillis-Steele block scan are not
  /// timed (unless listed explicitly with --algorithms, which lifts the limit).
  std::uint64_t single_block_max_n = std::uint64_t{1} << 16;
  std::uint64_t hillis_steele_max_n = std::uint64_t{1} << 20;
  /// The persistent look-ahead kernel pays for its resident grid only on large
  /// inputs (it wins from 2^21 up on the H100): below this it is not timed either.
  std::uint64_t pipelined_min_n = std::uint64_t{1} << 20;
  /// The bulk-copy kernel (sm_90+) likewise: it won from 2^25 up on the H100.
  std::uint64_t bulk_min_n = std::uint64_t{1} << 22;
  /// A tile loop differs from one tile per block only in a grid larger than one wave:
  /// below this (one wave on the H100 for the shapes that win there) it is not timed.
  std::uint64_t tile_loop_min_n = std::uint64_t{1} << 21;
};

/// One dimension of the grid: a policy field's values and its `scantune tune` option.
struct SpaceField {
  std::string_view field; ///< the field's name in runtime/src/policy_fields.cpp
  /// Its values for `algorithm` (used where the algorithm takes the field).
  std::vector<int> (*values)(const SpaceOptions& space, Algorithm algorithm,
                             const ScanTypes& types);
  bool adjacent;           ///< neighbours: one step in the sorted list, not every value
  int neighbour_rank;      ///< the order in which neighbours() varies the fields
  std::string_view option; ///< "--backoff", or empty for none
  std::string_view help;
  /// Parses the option's list into `space`; throws scantune::Error naming `option`.
  void (*apply)(SpaceOptions& space, std::string_view text, std::string_view option);
  std::vector<int> default_values; ///< of a field kept in SpaceOptions::other_fields
};

/// The grid's dimensions, in enumeration order (the first varies slowest).
const std::vector<SpaceField>& space_fields();

/// The default grid (slow seed variants excluded: sequential and chained).
SpaceOptions default_space();

/// Applies an --algorithms list: comma-separated inter-block algorithm names
/// ("lookback_warp") and block-scan names ("hillis_steele"), "default", or "all"
/// (every algorithm including sequential and chained, every block scan, no size
/// limits). Names of one kind replace that dimension; throws scantune::Error
/// naming an unknown entry.
void apply_algorithms(SpaceOptions& space, std::string_view list);

/// Every valid policy of the grid for `types` (Policy::invalid_reason), without
/// duplicates, in a stable order (the order of the dimensions' lists). "sequential" is
/// included once when the sequential algorithm is listed. Vector widths count elements
/// of the wider of the input and the output: up to 16 for 1-byte types.
std::vector<Policy> enumerate(const ScanTypes& types, const SpaceOptions& space);
inline std::vector<Policy> enumerate(DataType type, const SpaceOptions& space) {
  return enumerate(ScanTypes{type, type, type}, space);
}

/// Whether `policy` is timed at size n (the small-input limits above).
bool applies_at(const Policy& policy, std::uint64_t n, const SpaceOptions& space);

/// Local memory per thread (bytes) that a kernel may use and still be timed. NVRTC's
/// ptxas aims some look-back shapes at 32 registers and then spills 4-8 bytes (nvcc
/// compiles the same source without a spill, and a register cap of 33 or 48 removes it):
/// an artifact of its occupancy target that timing judges, not a reason to skip them.
inline constexpr int kMaxTimedSpillBytes = 16;

/// Why a compiled kernel set is not worth timing: more threads than the kernel
/// can launch, registers that do not fit the block, more than kMaxTimedSpillBytes of
/// local memory per thread, or more shared memory (static plus the launch's `dynamic_bytes`) than
/// the device's per-block limit `shared_limit`. Nothing when every kernel of the set is fine.
std::optional<std::string> kernel_constraint(const Policy& policy,
                                             const std::vector<cudaFuncAttributes>& kernels,
                                             std::size_t dynamic_bytes = 0,
                                             std::size_t shared_limit = kMaxDynamicSharedBytes);

/// The grid neighbours of `policy` that are valid for `type`: one dimension moved
/// by one step in its list (block threads, items per thread, vector width), or
/// changed to another value (block scan, tile I/O, backoff, look-back variant).
std::vector<Policy> neighbours(const Policy& policy, const ScanTypes& types,
                               const SpaceOptions& space);
inline std::vector<Policy> neighbours(const Policy& policy, DataType type,
                                      const SpaceOptions& space) {
  return neighbours(policy, ScanTypes{type, type, type}, space);
}

/// Parses a size list: "2^10:2^30:1" (powers of two from 2^10 to 2^30, step 1 in
/// the exponent; step 0.5 adds 1.5 x 2^k between them), "2^20", "1.5x2^20",
/// "1000000", or a comma-separated list of those. Sorted, unique. Throws scantune::Error on bad
/// text or sizes outside [1, 2^40].
std::vector<std::uint64_t> parse_sizes(std::string_view text);

/// Parses a --tile-io list ("xpose,direct,wxpose"); throws scantune::Error.
std::vector<TileIO> parse_tile_ios(std::string_view text);
/// Parses a --cache list ("default,streaming"); throws scantune::Error.
std::vector<bool> parse_cache_hints(std::string_view text);
/// Parses a --tile-loop list ("off,on"); throws scantune::Error.
std::vector<bool> parse_tile_loops(std::string_view text);
/// --early-release: "off", "on" (lookback_bulk's early stage release).
std::vector<bool> parse_early_release(std::string_view text);

/// Parses an integer list of one dimension: "64,128,256" or "1:32" (every value)
/// or "64:1024:x2" (geometric). Throws scantune::Error naming `what`.
std::vector<int> parse_int_list(std::string_view text, std::string_view what);

/// "2^20", "1.5x2^20" (a size bucket's largest size), else the decimal number.
using db::size_label;

} // namespace scantune::tuner
