// Choosing the winner of one size (winner.hpp).
#include "tuner/run/winner.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "tuner/search/strategy.hpp"

namespace scantune::tuner {

int duel_rounds(std::uint64_t n) {
  return n < (std::uint64_t{1} << 17) ? 7 : 3;
}

std::vector<Result> duel(Evaluator& eval, const std::vector<Policy>& policies, std::uint64_t n,
                         int rounds) {
  if (rounds <= 0) rounds = duel_rounds(n);
  std::vector<std::vector<Result>> runs(policies.size());
  for (int r = 0; r < rounds; ++r)
    for (std::size_t i = 0; i < policies.size(); ++i)
      if (r == 0 || runs[i].back().ok())
        runs[i].push_back(eval.measure(policies[i], n, Effort::Confirm, 0));
  std::vector<Result> out;
  for (auto& rs : runs) {
    Result r = rs.back();
    std::vector<double> medians;
    for (const Result& x : rs)
      if (x.ok()) medians.push_back(x.median_ns);
    if (!r.ok() || medians.empty()) {
      out.push_back(r);
      continue;
    }
    std::sort(medians.begin(), medians.end());
    r.median_ns = medians[medians.size() / 2];
    // The rounds' median absolute deviation: one outlier round does not inflate it.
    std::vector<double> dev;
    for (double m : medians)
      dev.push_back(std::abs(m - r.median_ns));
    std::sort(dev.begin(), dev.end());
    r.noise = std::max(r.noise, dev[dev.size() / 2] / r.median_ns);
    out.push_back(r);
  }
  return out;
}

std::vector<const Result*> ranked_ok(const std::vector<Result>& results) {
  std::vector<const Result*> ok;
  for (const Result& r : results)
    if (r.ok()) ok.push_back(&r);
  std::stable_sort(ok.begin(), ok.end(),
                   [](const Result* a, const Result* b) { return a->median_ns < b->median_ns; });
  return ok;
}

namespace {
constexpr std::size_t kDuelists = 3; // the strategy's leading finalists re-timed
} // namespace

std::vector<Result> final_duel(Evaluator& eval, const std::vector<Result>& finalists,
                               const Policy& incumbent, std::uint64_t n) {
  const std::vector<const Result*> ok = ranked_ok(finalists);
  std::vector<Policy> policies;
  for (std::size_t i = 0; i < ok.size() && i < kDuelists; ++i)
    policies.push_back(ok[i]->policy);
  if (std::find(policies.begin(), policies.end(), incumbent) == policies.end())
    policies.push_back(incumbent);
  return duel(eval, policies, n);
}

std::optional<Winner> pick_winner(const std::vector<Result>& finalists,
                                  const std::optional<Result>& incumbent) {
  const Result* best = fastest(finalists);
  const bool inc_ok = incumbent && incumbent->ok();
  if (!best) {
    if (inc_ok) return Winner{*incumbent, true};
    return std::nullopt;
  }
  if (!inc_ok || incumbent->policy == best->policy) return Winner{*best, false};
  // The noise margin is capped: a larger spread means outliers, not a tie, and a
  // challenger 3% faster by the robust (median of rounds) measure should win.
  const double noise = std::clamp(std::max(best->noise, incumbent->noise), 0.005, 0.02);
  if (best->median_ns >= incumbent->median_ns * (1.0 - noise)) return Winner{*incumbent, true};
  return Winner{*best, false};
}

} // namespace scantune::tuner
