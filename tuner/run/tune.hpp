// `scantune tune`: for each (type, op, kind), search the policy space with a
// strategy, verify and time candidates on the GPU (or replay a recorded database),
// measure the memcpy and CUB baselines, and store the winner of every size bucket.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "policy.hpp"
#include "scantune/scantune.hpp"
#include "tuner/gpu/segmentation.hpp"
#include "tuner/report/progress.hpp"
#include "tuner/search/problem.hpp"
#include "tuner/search/search_space.hpp"

namespace scantune::tuner {

/// A problem with the options (the CLI exits 2 with its message).
struct UsageError : Error {
  using Error::Error;
};

struct TuneOptions {
  /// The scans' types: uniform ones ({int32, int32, int32}) or converting ones
  /// (uint8:int32), each tuned as a problem of its own.
  std::vector<ScanTypes> types{ScanTypes{}};
  std::vector<Op> ops{Op::Sum};
  std::vector<CustomOp> custom_ops; ///< tuned for every type in `types`
  std::vector<ScanKind> kinds{ScanKind::Inclusive};
  std::vector<std::uint64_t> sizes; ///< empty: 2^10..2^30, bounded by free device memory
  std::string strategy = "halving";
  SpaceOptions space = default_space();
  double budget_s = 0;     ///< whole run; 0 = no limit
  std::string db_path;     ///< empty: db::default_db_path()
  std::string simulate_db; ///< non-empty: replay this recorded DB instead of timing
  std::string against_db;  ///< non-empty: duel each winner with this DB's winner
  bool resume = false;     ///< continue the last interrupted run of this GPU model
  /// Skip the size buckets that already have a winner for this GPU model (`--all`
  /// without --force): running the same command again picks up where it stopped.
  bool skip_tuned = false;
  bool dry_run = false; ///< print the size of the search space, measure nothing
  bool hot = false;     ///< time on a hot L2 (no input rotation)
  double time_limit_factor = 2.5;
  int device = -1;          ///< CUDA ordinal; -1 = current
  std::uint64_t seed = 1;   ///< input data
  std::string command_line; ///< stored with the run
  /// GpuEvaluatorOptions::compile_worker: the CLI names itself.
  std::string compile_worker;
  Progress::Mode progress = Progress::Mode::Lines;
  /// Segmented problems (`--segments` SPECs of parse_segments, comma-separated):
  /// each option's problems once per segmentation; empty: flat. They are stored under
  /// their own problem kind and length class ("rows.len_le256"), beside the flat
  /// winners; sizes whose calls dispatch classes apart are left out (runs_at).
  std::vector<Segmentation> segments;
};

/// Asks a running run_tune to stop after the current measurement, as Ctrl-C does
/// (async-signal-safe: the CLI's SIGINT handler calls it).
void request_interrupt() noexcept;
bool interrupt_requested() noexcept;
/// Forgets an earlier interrupt (a process that tunes again, e.g. a test).
void clear_interrupt() noexcept;

/// The space's policies for a problem: a segmented one keeps those with a segmented
/// kernel (lookback_warp with warp_scans, no tile loop); an axis scan the distinct
/// block, rows-per-thread and vector shapes of those, default_axis_policy of its shape
/// first. Throws UsageError when none is left.
std::vector<Policy> candidates_for(const Problem& p, const SpaceOptions& space);

/// Runs the tuning and returns the process exit code: 0 ok, 1 failure, 77 no GPU
/// (with a message on stderr), 130 interrupted (what was measured is stored and
/// the run is marked interrupted; --resume continues it). Throws scantune::Error
/// on bad options (the CLI maps it to exit 2 where it is a usage problem).
int run_tune(const TuneOptions& options, std::FILE* out = stdout);

} // namespace scantune::tuner
