// Checks between the tuned sizes of one problem (between_sizes.hpp).
#include "tuner/run/between_sizes.hpp"

#include <algorithm>

#include "dispatch.hpp"
#include "tuner/run/winner.hpp"

namespace scantune::tuner {
namespace {

constexpr int kRounds = 3;
constexpr std::size_t kMidpointCandidates = 4; // both winners and their runners-up

/// Whether the dispatcher would run a winner tuned at `tuned` for size n (single-block
/// shapes only up to their bucket).
bool usable(const Result& r, std::uint64_t tuned, std::uint64_t n) {
  return detail::applies_to(r.policy, tuned, n);
}

bool is_power_of_two(std::uint64_t n) {
  return n != 0 && (n & (n - 1)) == 0;
}

/// Duels `cands` (the first is the incumbent) at n: the winner, or nothing when no
/// candidate ran; `times` receives every candidate's result.
std::optional<Result> challenge(Evaluator& eval, const std::vector<Policy>& cands, std::uint64_t n,
                                std::vector<Result>& times) {
  times = duel(eval, cands, n, kRounds);
  const std::optional<Winner> w = pick_winner(times, times.front());
  if (!w) return std::nullopt;
  return w->result;
}

/// The time of `other` among `times` over `winner`'s (1 when it did not run).
double gain_over(const std::vector<Result>& times, const Policy& other, const Result& winner) {
  for (const Result& r : times)
    if (r.policy == other && r.ok() && winner.median_ns > 0) return r.median_ns / winner.median_ns;
  return 1.0;
}

} // namespace

std::vector<SizeRevision> cross_check_neighbours(Evaluator& eval,
                                                 const std::vector<std::uint64_t>& sizes,
                                                 std::vector<std::optional<Result>>& won) {
  std::vector<SizeRevision> out;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (!won[i]) continue;
    std::vector<Policy> cands{won[i]->policy};
    std::vector<std::uint64_t> from{sizes[i]};
    for (std::size_t j : {i - 1, i + 1}) {
      if (j >= sizes.size() || !won[j] || !usable(*won[j], sizes[j], sizes[i])) continue;
      if (std::find(cands.begin(), cands.end(), won[j]->policy) != cands.end()) continue;
      cands.push_back(won[j]->policy);
      from.push_back(sizes[j]);
    }
    if (cands.size() == 1) continue;
    std::vector<Result> times;
    const std::optional<Result> w = challenge(eval, cands, sizes[i], times);
    if (!w || w->policy == won[i]->policy) continue;
    const auto k = std::find(cands.begin(), cands.end(), w->policy) - cands.begin();
    out.push_back({sizes[i], *w, won[i]->policy.key(), from[static_cast<std::size_t>(k)],
                   gain_over(times, won[i]->policy, *w)});
    won[i] = w;
  }
  return out;
}

std::vector<SizeRevision> settle_midpoints(Evaluator& eval, const std::vector<std::uint64_t>& sizes,
                                           const std::vector<std::optional<Result>>& won,
                                           const std::vector<std::vector<Policy>>& runners_up) {
  std::vector<SizeRevision> out;
  for (std::size_t i = 0; i + 1 < sizes.size(); ++i) {
    const std::uint64_t a = sizes[i], b = sizes[i + 1];
    if (!won[i] || !won[i + 1] || a < 4 || b != 2 * a || !is_power_of_two(a)) continue;
    const std::uint64_t m = a + a / 2;
    if (std::binary_search(sizes.begin(), sizes.end(), m)) continue;
    std::vector<Policy> cands;
    std::vector<std::uint64_t> from;
    const auto add = [&](const Policy& p, std::uint64_t tuned) {
      if (cands.size() < kMidpointCandidates && detail::applies_to(p, tuned, m) &&
          std::find(cands.begin(), cands.end(), p) == cands.end()) {
        cands.push_back(p);
        from.push_back(tuned);
      }
    };
    add(won[i + 1]->policy, b);
    add(won[i]->policy, a);
    for (std::size_t k = 0; k < std::max(runners_up[i].size(), runners_up[i + 1].size()); ++k) {
      if (k < runners_up[i + 1].size()) add(runners_up[i + 1][k], b);
      if (k < runners_up[i].size()) add(runners_up[i][k], a);
    }
    if (cands.size() < 2) continue;
    std::vector<Result> times;
    const std::optional<Result> w = challenge(eval, cands, m, times);
    if (!w) continue;
    const auto k = std::find(cands.begin(), cands.end(), w->policy) - cands.begin();
    out.push_back({m, *w, "", from[static_cast<std::size_t>(k)], gain_over(times, cands[0], *w)});
  }
  return out;
}

} // namespace scantune::tuner
