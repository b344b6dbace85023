// Search strategies: which candidates to measure, at which sizes and how hard, to
// find the fastest policy of every size bucket. One file per strategy.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "tuner/search/evaluator.hpp"
#include "tuner/search/problem.hpp"
#include "tuner/search/search_space.hpp"

namespace scantune::tuner {

struct SearchContext {
  Problem problem;
  SpaceOptions space;
  std::vector<Policy> candidates;   ///< enumerate(problem.types(), space)
  std::vector<std::uint64_t> sizes; ///< ascending
  Evaluator* evaluator = nullptr;
  /// Time limit per candidate: a measurement at size n gets limit_ns = factor x the
  /// best median seen at n so far (0 = no limit).
  double time_limit_factor = 2.5;
  /// True once the time budget is spent: strategies stop exploring and conclude
  /// with what they have measured.
  std::function<bool()> out_of_time = [] { return false; };
};

/// What a strategy concludes for one size: its finalists measured with
/// Effort::Confirm at that size (failures included). The caller picks the winner.
struct SizeOutcome {
  std::uint64_t size = 0;
  std::vector<Result> finalists;
};

class Strategy {
public:
  virtual ~Strategy() = default;
  virtual std::string_view name() const = 0;
  /// Measurements a full run will make (an estimate where it depends on results):
  /// the --dry-run report and the progress bar's total.
  virtual std::size_t planned_measurements(const SearchContext& ctx) const = 0;
  /// One outcome per ctx.sizes entry, in order.
  virtual std::vector<SizeOutcome> run(SearchContext& ctx) = 0;
};

/// "halving" (default) or "exhaustive"; throws scantune::Error listing the names.
std::unique_ptr<Strategy> make_strategy(std::string_view name);
std::vector<std::string_view> strategy_names();

/// The candidates the halving strategy screens first: per algorithm, warp scans,
/// warp-transposed tile I/O where it has it, default cache hint, no backoff, span 1, one
/// tile per block and 3 stages (lookback_bulk: 7), each tile shape at its widest vector;
/// refinement visits the other values as neighbours. All of `candidates` when none fits.
std::vector<Policy> halving_core(const std::vector<Policy>& candidates);

/// The fastest Ok result (by Result::rank), or null when none is Ok.
const Result* fastest(const std::vector<Result>& results);

} // namespace scantune::tuner
