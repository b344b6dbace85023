// Choosing the winner of one size (winner.hpp).
#include "tuner/run/winner.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>

#include "base/size_bucket.hpp"
#include "tuner/search/strategy.hpp"

namespace scantune::tuner {

namespace {
// Below this, a bucket is dueled at three of its sizes (bucket_duel).
constexpr std::uint64_t kBucketDuelBelow = std::uint64_t{1} << 24;
} // namespace

std::size_t duelists(std::uint64_t n) {
  return n < (std::uint64_t{1} << 13) ? 6 : 3;
}

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
                   [](const Result* a, const Result* b) { return a->rank() < b->rank(); });
  return ok;
}

std::vector<std::uint64_t> bucket_inner_sizes(std::uint64_t n) {
  const int b = db::size_bucket(n);
  if (b < 3 || db::bucket_size(b) != n) return {};
  const std::uint64_t below = db::bucket_size(b - 1); // the bucket holds (below, n]
  const std::uint64_t gap = n - below;
  if (gap < 4) return {};
  return {below + gap / 4, below + gap * 3 / 4};
}

namespace {
// A plain duel's results carry no rank: fastest() orders them by median.
double fastest_median(const std::vector<Result>& times) {
  const Result* best = fastest(times);
  return best ? best->median_ns : 0;
}

// Folds one size's duel into each policy's worst ratio to that size's fastest; a
// policy that fails there takes the failure.
void fold_size(const std::vector<Result>& times, std::vector<Result>& at_n,
               std::vector<double>& worst) {
  const double best = fastest_median(times);
  for (std::size_t i = 0; i < at_n.size(); ++i) {
    if (!at_n[i].ok()) continue;
    if (!times[i].ok()) {
      at_n[i].status = times[i].status;
      at_n[i].message = times[i].message;
      continue;
    }
    worst[i] = std::max(worst[i], times[i].median_ns / best);
    at_n[i].noise = std::max(at_n[i].noise, times[i].noise);
  }
}
} // namespace

namespace {
// Each size's times as a grid row per policy (infinity where one failed), sizes ascending.
DuelGrid grid_of(std::vector<std::pair<std::uint64_t, std::vector<Result>>> by_size) {
  std::sort(by_size.begin(), by_size.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  DuelGrid g;
  g.times.resize(by_size.front().second.size());
  for (const auto& [size, times] : by_size) {
    g.sizes.push_back(size);
    for (std::size_t p = 0; p < times.size(); ++p)
      g.times[p].push_back(times[p].ok() ? times[p].median_ns
                                         : std::numeric_limits<double>::infinity());
  }
  return g;
}
} // namespace

std::vector<Result> bucket_duel(Evaluator& eval, const std::vector<Policy>& policies,
                                std::uint64_t n, DuelGrid* grid) {
  std::vector<Result> at_n = duel(eval, policies, n);
  if (n >= kBucketDuelBelow) return at_n;
  const double best_n = fastest_median(at_n);
  std::vector<double> worst(at_n.size(), 1.0);
  std::vector<std::pair<std::uint64_t, std::vector<Result>>> by_size{{n, at_n}};
  fold_size(at_n, at_n, worst);
  for (std::uint64_t s : bucket_inner_sizes(n)) {
    std::vector<Result> times = duel(eval, policies, s);
    // An evaluator that cannot time that size (a recording of other sizes) leaves the
    // plain duel.
    if (fastest_median(times) == 0) continue;
    fold_size(times, at_n, worst);
    by_size.emplace_back(s, std::move(times));
  }
  if (by_size.size() < 2 || best_n == 0) return at_n;
  if (grid) *grid = grid_of(std::move(by_size));
  for (std::size_t i = 0; i < at_n.size(); ++i)
    if (at_n[i].ok()) at_n[i].rank_ns = best_n * worst[i];
  return at_n;
}

std::vector<Result> final_duel(Evaluator& eval, const std::vector<Result>& finalists,
                               const Policy& incumbent, std::uint64_t n, DuelGrid* grid) {
  const std::vector<const Result*> ok = ranked_ok(finalists);
  std::vector<Policy> policies;
  for (std::size_t i = 0; i < ok.size() && i < duelists(n); ++i)
    policies.push_back(ok[i]->policy);
  if (std::find(policies.begin(), policies.end(), incumbent) == policies.end())
    policies.push_back(incumbent);
  return bucket_duel(eval, policies, n, grid);
}

std::optional<Result> challenge(Evaluator& eval, const std::vector<Policy>& cands, std::uint64_t n,
                                std::vector<Result>& times, DuelGrid* grid) {
  times = bucket_duel(eval, cands, n, grid);
  const std::optional<Winner> w = pick_winner(times, times.front());
  if (!w) return std::nullopt;
  return w->result;
}

std::uint64_t find_crossover(Evaluator& eval, const Policy& lower, const Policy& upper,
                             std::uint64_t lo, std::uint64_t hi) {
  const std::uint64_t step = std::max<std::uint64_t>(1, (hi - lo) / 32);
  while (hi - lo > step) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    const std::vector<Result> d = duel(eval, {lower, upper}, mid);
    if (!d[0].ok() || !d[1].ok()) return mid; // not timed there: the midpoint
    (d[0].median_ns <= d[1].median_ns ? lo : hi) = mid;
  }
  return lo;
}

std::optional<BucketSplit> split_of(Evaluator& eval, const std::vector<Result>& duelled,
                                    const DuelGrid& grid, const Result& winner) {
  const auto w = std::find_if(duelled.begin(), duelled.end(),
                              [&](const Result& r) { return r.policy == winner.policy; });
  if (grid.sizes.empty() || w == duelled.end()) return std::nullopt;
  const auto wi = static_cast<std::size_t>(w - duelled.begin());
  const std::optional<TwoWinners> two = split_worth_storing(grid.times, wi);
  if (!two) return std::nullopt;
  const Policy& lower = duelled[two->lower].policy;
  const Result& upper = duelled[two->upper];
  return BucketSplit{
      upper, lower,
      find_crossover(eval, lower, upper.policy, grid.sizes[two->after - 1], grid.sizes[two->after]),
      worst_ratio(grid.times, wi, 0, grid.sizes.size()), two->worst};
}

double gain_over(const std::vector<Result>& times, const Policy& other, const Result& winner) {
  for (const Result& r : times)
    if (r.policy == other && r.ok() && winner.rank() > 0) return r.rank() / winner.rank();
  return 1.0;
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
  if (best->rank() >= incumbent->rank() * (1.0 - noise)) return Winner{*incumbent, true};
  return Winner{*best, false};
}

} // namespace scantune::tuner
