// The grid neighbours of each size's winner (refine_winners.hpp).
#include "tuner/run/refine_winners.hpp"

#include <set>
#include <string>

#include "tuner/run/winner.hpp"

namespace scantune::tuner {
namespace {

constexpr std::size_t kChallengers = 2; // neighbours dueled with a winner
constexpr double kScreenMargin = 1.02;  // a screen within this of the winner may still win
constexpr double kScreenLimit = 1.5;    // a neighbour this much slower stops at once
constexpr int kPasses = 3;              // around each new winner again, at most this often

} // namespace

std::vector<SizeRevision> refine_winners(Evaluator& eval, const std::vector<std::uint64_t>& sizes,
                                         std::vector<std::optional<Result>>& won,
                                         const NeighboursAt& neighbours_at) {
  // Every first pass's neighbours, compiled from the start.
  std::vector<std::vector<Policy>> first(sizes.size());
  std::vector<Policy> all;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    if (won[i]) {
      first[i] = neighbours_at(*won[i], sizes[i]);
      all.insert(all.end(), first[i].begin(), first[i].end());
    }
  eval.prefetch(all);
  std::vector<SizeRevision> out;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (!won[i]) continue;
    const std::string before = won[i]->policy.key();
    std::set<std::string> screened_keys{before};
    double gain = 1.0; // each pass's duel: the replaced winner's time over the new one's
    std::optional<BucketSplit> split; // what the last duel supports
    for (int pass = 0; pass < kPasses; ++pass) {
      const double mine = won[i]->median_ns;
      std::vector<Policy> around;
      for (const Policy& q : pass == 0 ? first[i] : neighbours_at(*won[i], sizes[i]))
        if (screened_keys.insert(q.key()).second) around.push_back(q);
      if (pass > 0) eval.prefetch(around);
      std::vector<Result> near;
      for (const Policy& q : around) {
        Result r = eval.measure(q, sizes[i], Effort::Screen, kScreenLimit * mine);
        if (r.ok() && r.median_ns < kScreenMargin * mine) near.push_back(r);
      }
      if (near.empty()) break;
      std::vector<Policy> cands{won[i]->policy};
      for (const Result* r : ranked_ok(near))
        if (cands.size() <= kChallengers) cands.push_back(r->policy);
      std::vector<Result> times;
      DuelGrid grid;
      const std::optional<Result> w = challenge(eval, cands, sizes[i], times, &grid);
      if (w) split = split_of(eval, times, grid, *w);
      if (!w || w->policy == won[i]->policy) break;
      gain *= gain_over(times, won[i]->policy, *w);
      won[i] = w;
    }
    if (won[i]->policy.key() != before || split)
      out.push_back({sizes[i], *won[i], before, sizes[i], gain, split});
  }
  return out;
}

} // namespace scantune::tuner
