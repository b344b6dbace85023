// Checks between the tuned sizes of one problem (between_sizes.hpp).
#include "tuner/run/between_sizes.hpp"

#include <algorithm>

#include "base/size_bucket.hpp"
#include "dispatch.hpp"
#include "tuner/run/winner.hpp"

namespace scantune::tuner {
namespace {

constexpr std::size_t kNeighbourCandidates = 3; // a size's winner and its neighbours'
constexpr std::size_t kMidpointCandidates = 4;  // both winners and their runners-up

/// The policies a duel at size n takes, each with the size it won or ran at: only
/// those dispatch could run at n (single-block shapes up to their bucket), each once,
/// at most `cap`.
struct Candidates {
  std::uint64_t n;
  std::size_t cap;
  std::vector<Policy> list;
  std::vector<std::uint64_t> from;

  void add(const Policy& p, std::uint64_t tuned) {
    if (list.size() < cap && detail::applies_to(p, tuned, n) &&
        std::find(list.begin(), list.end(), p) == list.end()) {
      list.push_back(p);
      from.push_back(tuned);
    }
  }
  std::uint64_t from_of(const Policy& p) const {
    return from[static_cast<std::size_t>(std::find(list.begin(), list.end(), p) - list.begin())];
  }
};

} // namespace

std::vector<SizeRevision> cross_check_neighbours(Evaluator& eval,
                                                 const std::vector<std::uint64_t>& sizes,
                                                 std::vector<std::optional<Result>>& won) {
  std::vector<SizeRevision> out;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (!won[i]) continue;
    Candidates c{sizes[i], kNeighbourCandidates, {}, {}};
    c.add(won[i]->policy, sizes[i]);
    for (std::size_t j : {i - 1, i + 1})
      if (j < sizes.size() && won[j]) c.add(won[j]->policy, sizes[j]);
    if (c.list.size() == 1) continue;
    std::vector<Result> times;
    DuelGrid grid;
    const std::optional<Result> w = challenge(eval, c.list, sizes[i], times, &grid);
    if (!w) continue;
    std::optional<BucketSplit> split = split_of(eval, times, grid, *w);
    if (w->policy == won[i]->policy && !split) continue;
    out.push_back({sizes[i], *w, won[i]->policy.key(), c.from_of(w->policy),
                   gain_over(times, won[i]->policy, *w), std::move(split)});
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
    // a and b: the sizes of consecutive whole-octave buckets; m: the half octave between.
    const int bucket = db::size_bucket(a);
    if (!won[i] || !won[i + 1] || a < 4 || bucket % 2 != 0 || db::bucket_size(bucket) != a ||
        db::bucket_size(bucket + 2) != b)
      continue;
    const std::uint64_t m = db::bucket_size(bucket + 1);
    if (std::binary_search(sizes.begin(), sizes.end(), m)) continue;
    Candidates c{m, kMidpointCandidates, {}, {}};
    c.add(won[i + 1]->policy, b);
    c.add(won[i]->policy, a);
    for (std::size_t k = 0; k < std::max(runners_up[i].size(), runners_up[i + 1].size()); ++k) {
      if (k < runners_up[i + 1].size()) c.add(runners_up[i + 1][k], b);
      if (k < runners_up[i].size()) c.add(runners_up[i][k], a);
    }
    if (c.list.size() < 2) continue;
    std::vector<Result> times;
    DuelGrid grid;
    const std::optional<Result> w = challenge(eval, c.list, m, times, &grid);
    if (!w) continue;
    out.push_back({m, *w, "", c.from_of(w->policy), gain_over(times, c.list[0], *w),
                   split_of(eval, times, grid, *w)});
  }
  return out;
}

} // namespace scantune::tuner
