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

/// The Ok results, fastest (by Result::rank) first.
std::vector<const Result*> ranked_ok(const std::vector<Result>& results);

/// The size halfway into n's size bucket from below (base/size_bucket.hpp): 0.875 n
/// for a power of two, 1.25 x 2^k for 1.5 x 2^k; 0 when n does not name a bucket.
std::uint64_t bucket_inner_size(std::uint64_t n);

/// A duel for n's whole size bucket: below 2^22 elements (where a tile that does not
/// divide the size shows: H100, a 2^11 winner ran 15% behind at 1.875 x 2^10) the
/// policies are dueled at bucket_inner_size(n) too, and each result at n carries the
/// sum of both medians as its rank_ns (a policy that fails there fails). The medians
/// stay those at n. Evaluators that time no size but n give the plain duel.
std::vector<Result> bucket_duel(Evaluator& eval, const std::vector<Policy>& policies,
                                std::uint64_t n);

/// The strategy's leading finalists (by median) and the incumbent: a bucket_duel.
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

/// Duels `cands` (the first is the incumbent) for n's bucket (bucket_duel): the winner,
/// or nothing when no candidate ran; `times` receives every candidate's result.
std::optional<Result> challenge(Evaluator& eval, const std::vector<Policy>& cands, std::uint64_t n,
                                std::vector<Result>& times);

/// The rank of `other` among `times` over `winner`'s (1 when it did not run).
double gain_over(const std::vector<Result>& times, const Policy& other, const Result& winner);

} // namespace scantune::tuner
