// `scantune bench --regret`: does the dispatcher serve sizes between the tuned
// buckets well? At each size n, the policy the scanner dispatches and the tuned
// candidates near n (the winners of the buckets on either side and their top
// measured policies) are timed in alternation; regret = dispatched / best - 1.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cache/tuning_db.hpp"
#include "policy.hpp"
#include "tuner/report/regret_report.hpp"
#include "tuner/search/evaluator.hpp"
#include "tuner/search/problem.hpp"

namespace scantune::tuner {

/// The winners of `problem` (a flat scan) on device `model`, by size ascending.
std::vector<db::BestEntry> tuned_entries(const db::TuningDb& db, const std::string& model,
                                         const Problem& problem);

/// The default sizes: every tuned size, and between two consecutive ones a and b
/// the points a quarter and three quarters of the way (1.25 x 2^k and 1.75 x 2^k
/// between 2^k and 2^(k+1)), which fall on either side of a bucket boundary.
std::vector<std::uint64_t> regret_sizes(const std::vector<std::uint64_t>& tuned);

/// The candidates at n: the winners of the nearest tuned sizes below and above n
/// (one when n was tuned), then the `top` fastest Ok policies measured there, in
/// that order, distinct; single-block policies only up to their tuned bucket, as
/// the dispatcher uses them (detail::applies_to).
std::vector<Policy> regret_candidates(const db::TuningDb& db,
                                      const std::vector<db::BestEntry>& tuned, std::uint64_t n,
                                      int top);

/// Times `dispatched` and the candidates at n in alternation (duel: `rounds` rounds,
/// 0: duel_rounds(n); medians) and returns the point; the best is the fastest of them
/// all, re-timed against the dispatched one in a second duel of the two, whose times
/// the point keeps (the dispatched one is the best when it wins that duel).
RegretPoint regret_at(Evaluator& eval, std::uint64_t n, const Policy& dispatched,
                      const std::vector<Policy>& candidates, int rounds = 0);

struct RegretOptions {
  Problem problem;
  std::vector<std::uint64_t> sizes; ///< empty: regret_sizes of the tuned sizes
  int top = 3;
  int rounds = 0;      ///< duel rounds; 0: duel_rounds(n)
  int device = -1;     ///< made current by the caller
  std::string db_path; ///< empty: the default database
  bool hot = false;
  std::uint64_t seed = 1;
};

/// Runs on the current device against its own tuned entries; throws UsageError
/// when the database has none for the problem. `log` hears progress lines.
RegretReport run_regret(const RegretOptions& o, const std::function<void(const std::string&)>& log);

} // namespace scantune::tuner
