// Choosing the winner of one size: the strategy's finalists and the incumbent
// re-timed in alternation (a duel), then the fastest, unless the incumbent ties.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tuner/search/evaluator.hpp"

namespace scantune::tuner {

/// Rounds of a duel at n: 3, and 7 below 2^17, where a call takes 1.5-4 us of GPU
/// time and one round's median of the same kernel moves by up to 5%.
int duel_rounds(std::uint64_t n);

/// Re-times `policies` at n in alternation, `rounds` times each (0: duel_rounds(n)),
/// so that slow drifts (clocks, background compiles, other host load) hit them all
/// alike. Each result is the median of its rounds' medians; its noise is the rounds'
/// spread over that.
std::vector<Result> duel(Evaluator& eval, const std::vector<Policy>& policies, std::uint64_t n,
                         int rounds = 0);

/// The Ok results, fastest first.
std::vector<const Result*> ranked_ok(const std::vector<Result>& results);

/// The strategy's leading finalists (by median) and the incumbent, dueled.
std::vector<Result> final_duel(Evaluator& eval, const std::vector<Result>& finalists,
                               const Policy& incumbent, std::uint64_t n);

/// The winner of one size: the fastest finalist, unless the incumbent (the previous
/// winner or the built-in default) is within the measured noise of it.
struct Winner {
  Result result;
  bool kept_incumbent = false;
};
std::optional<Winner> pick_winner(const std::vector<Result>& finalists,
                                  const std::optional<Result>& incumbent);

} // namespace scantune::tuner
