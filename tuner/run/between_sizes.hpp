// After every size of a problem has its winner: checks that use the winners of
// neighbouring sizes. A winner that a neighbour's beats at the size itself is
// replaced (two runs then agree where the search alone lost a good shape to noise),
// and the half-octave size between two whole-octave sizes is settled by a duel of
// both winners and their runners-up there (the dispatcher otherwise serves it with
// the nearer bucket's winner, up to 11% slower on the H100: docs/decisions.md,
// "Winners between sizes").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tuner/run/winner.hpp"
#include "tuner/search/evaluator.hpp"

namespace scantune::tuner {

/// A winner the checks chose at `size`: taken from the winner of size `from`;
/// `before`: the key it replaces (empty: the size had none); `gain`: the time of the
/// winner it replaces, or for a new size of the other candidate, over its own; `split`:
/// the two winners the revising duel supports (the winner may then be unchanged).
struct SizeRevision {
  std::uint64_t size = 0;
  Result winner;
  std::string before;
  std::uint64_t from = 0;
  double gain = 1.0;
  std::optional<BucketSplit> split = std::nullopt;
};

/// Duels each size's winner (`won[i]`, at sizes[i], ascending) with the different
/// winners of the sizes beside it, in ascending order so that a better shape can
/// travel on; `won` is updated. Returns the sizes whose winner changed or whose duel
/// supports two winners.
std::vector<SizeRevision> cross_check_neighbours(Evaluator& eval,
                                                 const std::vector<std::uint64_t>& sizes,
                                                 std::vector<std::optional<Result>>& won);

/// The half-octave sizes (1.5 x 2^k) between consecutive sizes 2^k and 2^(k+1), each
/// settled by a duel there of both sizes' winners and their runners-up
/// (`runners_up[i]`: the other policies of size i's final duel, fastest first), up to
/// four that dispatch could run there. The upper winner (what nearest-bucket dispatch
/// would run) stays unless another is faster by more than the noise; `gain` is its time
/// over the winner's. Sizes already in `sizes` are left alone.
std::vector<SizeRevision> settle_midpoints(Evaluator& eval, const std::vector<std::uint64_t>& sizes,
                                           const std::vector<std::optional<Result>>& won,
                                           const std::vector<std::vector<Policy>>& runners_up);

} // namespace scantune::tuner
