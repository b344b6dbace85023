// `scantune bench`: on the current GPU, per size, the scanner's tuned dispatch
// (what an application's call runs), CUB DeviceScan and device memcpy, plus one
// representative policy per seed algorithm and a fixed policy when asked. Segmented
// scans (--segments) time the dispatch, CUB's scan by key and memcpy. Everything
// is verified once, then timed like the tuner times candidates (GpuEvaluator).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "policy.hpp"
#include "scantune/scantune.hpp"
#include "tuner/gpu/gpu_evaluator.hpp"
#include "tuner/report/bench_report.hpp"

namespace scantune::tuner {

/// The algorithm series bench knows, in order: sequential, the four block scans
/// of single_block (hillis_steele, blelloch, blelloch_padded, warp_scans),
/// reduce_then_scan, chained, lookback_thread, lookback_warp.
const std::vector<std::string>& bench_algorithm_names();
/// "all", "" (none) or a comma-separated list of bench_algorithm_names(); throws
/// UsageError (tune.hpp) naming an unknown entry.
std::vector<std::string> parse_bench_algorithms(std::string_view list);
/// The policy each named series runs for `type` (valid for it).
std::vector<std::pair<std::string, Policy>>
representative_policies(DataType type, const std::vector<std::string>& names);

/// Parses a --segments SPEC: "rows:L" (a batched scan of rows of L elements),
/// "flags:L" (a head flag every L elements) or "flags:random" (random lengths,
/// segmentation.hpp), "keys:L|random", "keys64:..", "offsets:..", "offsets64:.." (the
/// same segments as keys or CSR offsets), "axis:LxC" (C >= 2 columns of L rows); L and C
/// are N or 2^K, at least 1. "" is flat. Throws UsageError naming the SPEC.
Segmentation parse_segments(std::string_view spec);
/// Parses `scantune tune --segments`: one SPEC or several, comma-separated
/// ("rows:16,rows:4096"), each a problem of its own (its length class).
std::vector<Segmentation> parse_segments_list(std::string_view specs);

/// An algorithm series is not timed at n (nor above) when one call would take
/// longer than this: its time at the previous size scaled linearly (any algorithm;
/// chained is slow at 2^30), or, at the first size, a conservative a-priori guess
/// for the slow ones (sequential: 500 ns per element; single_block: 20 GB/s).
inline constexpr double kBenchMaxCallNs = 50e6;
/// The predicted ns of one call of `policy` at n, from (prev_n, prev_ns) when
/// prev_ns > 0; 0 (no limit) without a previous time for the parallel algorithms.
double predicted_call_ns(const Policy& policy, DataType type, std::uint64_t n, std::uint64_t prev_n,
                         double prev_ns);

struct BenchOptions {
  DataType type = DataType::Int32; ///< the accumulator
  /// A converting scan's types (acc == type): timed flat, without a CUB series.
  std::optional<ScanTypes> converts;
  Op op = Op::Sum;
  std::optional<CustomOp> custom; ///< replaces `op` when set
  ScanKind kind = ScanKind::Inclusive;
  std::vector<std::uint64_t> sizes; ///< ascending
  std::vector<std::string> algorithms;
  std::optional<Policy> policy; ///< timed as the series "policy" (valid for `type`)
  Segmentation segments;        ///< flat, or the segmented scans timed (dispatch and CUB)
  int device = -1;              ///< made current by the caller
  std::string db_path;          ///< the tuning DB the dispatch reads; empty = default
  GpuEvaluatorOptions timing;   ///< hot buffers, input seed
};

/// Throws UsageError for options that do not go together: segmented scans with
/// algorithm series (most algorithms have no segmented kernel), a policy that
/// cannot run segmented, or a custom operator (no host reference); converting types
/// segmented or with a custom operator, or a policy invalid for them.
void check_bench_options(const BenchOptions& o);

/// Runs the benchmark on the current device; `log` hears progress lines.
BenchReport run_bench(const BenchOptions& o, const std::function<void(const std::string&)>& log);

} // namespace scantune::tuner
