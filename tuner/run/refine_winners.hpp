// After every size of a problem has its winner: the grid neighbours of each winner,
// screened at its own size. The search explores at a few representative sizes, so a
// size between them can have a better shape one grid step from its winner (H100,
// int32 sum inclusive: one run's 2^16 winner, 1024 threads x 4 items, ran 9% behind
// the 512-thread shape another run found).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "tuner/run/between_sizes.hpp"
#include "tuner/search/evaluator.hpp"

namespace scantune::tuner {

/// The neighbours of a size's winner worth timing at size n (those of the search space
/// that apply there; its measured registers may add residency neighbours).
using NeighboursAt = std::function<std::vector<Policy>(const Result& winner, std::uint64_t n)>;

/// Screens the neighbours of each size's winner (`won[i]`, at sizes[i]) there and duels
/// the winner with the fastest two that screened within 2% of it or faster; a new
/// winner's neighbours are screened in turn (three passes at most). `won` is updated.
/// Returns the sizes whose winner changed or whose last duel supports two winners
/// (`from`: the size itself; `gain`: the product of the passes' duel ratios).
std::vector<SizeRevision> refine_winners(Evaluator& eval, const std::vector<std::uint64_t>& sizes,
                                         std::vector<std::optional<Result>>& won,
                                         const NeighboursAt& neighbours_at);

} // namespace scantune::tuner
