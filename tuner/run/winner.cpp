// Choosing the winner of one size (winner.hpp).
#include "tuner/run/winner.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "base/size_bucket.hpp"
#include "tuner/search/strategy.hpp"

namespace scantune::tuner {

namespace {
constexpr std::size_t kDuelists = 3; // the strategy's leading finalists re-timed
// Below this, a bucket is dueled at two of its sizes (bucket_duel).
constexpr std::uint64_t kBucketDuelBelow = std::uint64_t{1} << 22;
} // namespace

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

std::uint64_t bucket_inner_size(std::uint64_t n) {
  const int b = db::size_bucket(n);
  if (b < 3 || db::bucket_size(b) != n) return 0;
  const std::uint64_t below = db::bucket_size(b - 1); // the bucket holds (below, n]
  return below + (n - below) / 2;
}

std::vector<Result> bucket_duel(Evaluator& eval, const std::vector<Policy>& policies,
                                std::uint64_t n) {
  std::vector<Result> at_n = duel(eval, policies, n);
  const std::uint64_t inner = bucket_inner_size(n);
  if (n >= kBucketDuelBelow || inner < 2 || inner >= n) return at_n;
  const std::vector<Result> at_inner = duel(eval, policies, inner);
  // An evaluator that cannot time that size (a recording of other sizes) leaves the
  // plain duel; a policy that fails there alone cannot serve the bucket.
  if (std::none_of(at_inner.begin(), at_inner.end(), [](const Result& r) { return r.ok(); }))
    return at_n;
  for (std::size_t i = 0; i < at_n.size(); ++i) {
    if (!at_n[i].ok()) continue;
    if (!at_inner[i].ok()) {
      at_n[i].status = at_inner[i].status;
      at_n[i].message = at_inner[i].message;
      continue;
    }
    at_n[i].rank_ns = at_n[i].median_ns + at_inner[i].median_ns;
    at_n[i].noise = std::max(at_n[i].noise, at_inner[i].noise);
  }
  return at_n;
}

std::vector<Result> final_duel(Evaluator& eval, const std::vector<Result>& finalists,
                               const Policy& incumbent, std::uint64_t n) {
  const std::vector<const Result*> ok = ranked_ok(finalists);
  std::vector<Policy> policies;
  for (std::size_t i = 0; i < ok.size() && i < kDuelists; ++i)
    policies.push_back(ok[i]->policy);
  if (std::find(policies.begin(), policies.end(), incumbent) == policies.end())
    policies.push_back(incumbent);
  return bucket_duel(eval, policies, n);
}

std::optional<Result> challenge(Evaluator& eval, const std::vector<Policy>& cands, std::uint64_t n,
                                std::vector<Result>& times) {
  times = bucket_duel(eval, cands, n);
  const std::optional<Winner> w = pick_winner(times, times.front());
  if (!w) return std::nullopt;
  return w->result;
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
