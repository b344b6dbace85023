// Choosing the winner of one size: the strategy's finalists and the incumbent
// re-timed in alternation (a duel), then the fastest, unless the incumbent ties.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "tuner/run/bucket_split.hpp"
#include "tuner/search/evaluator.hpp"

namespace scantune::tuner {

/// How many of the strategy's leading finalists a final duel re-times at n: 3, and 6
/// below 2^13, where a call is mostly its launch, dozens of shapes sit within 3% of
/// one another and screening's single sample cannot order them (two runs' 2^10-2^11
/// winners were 2.8-3.8% apart, H100). Six below 2^17 too cost 7 s a problem and
/// moved neither stability nor regret beyond their run-to-run spread.
std::size_t duelists(std::uint64_t n);

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

/// The sizes a quarter and three quarters into n's size bucket from below
/// (base/size_bucket.hpp): 0.8125 n and 0.9375 n for a power of two, 1.125 x 2^k and
/// 1.375 x 2^k for 1.5 x 2^k; none when n does not name a bucket.
std::vector<std::uint64_t> bucket_inner_sizes(std::uint64_t n);

/// A duel for n's whole size bucket, as dispatch will use its winner: below 2^24
/// elements, where the best shape can change inside a bucket (a tile that does not
/// divide the size; a grid that stops fitting one wave: H100, 1.125 x 2^20 ran 7.5%
/// behind 2^20's shape on the 1.5 x 2^20 bucket's winner, ranked by the sum of two
/// sizes' times), the policies are dueled at bucket_inner_sizes(n) too. Each result at n
/// then ranks (rank_ns) by its worst ratio to the fastest over the three sizes, in
/// units of the fastest time at n; a policy that fails at one fails. The medians stay
/// those at n. Sizes an evaluator cannot time (a recording of other sizes) are skipped.
/// `grid`, when given, receives every size's times (for two winners, bucket_split.hpp);
/// it stays empty when only n was timed.
struct DuelGrid {
  std::vector<std::uint64_t> sizes; ///< ascending; n last
  TimeGrid times;                   ///< [policy, in the order given][size]
};
std::vector<Result> bucket_duel(Evaluator& eval, const std::vector<Policy>& policies,
                                std::uint64_t n, DuelGrid* grid = nullptr);

/// The strategy's leading finalists (by median, duelists(n) of them) and the incumbent:
/// a bucket_duel.
std::vector<Result> final_duel(Evaluator& eval, const std::vector<Result>& finalists,
                               const Policy& incumbent, std::uint64_t n, DuelGrid* grid = nullptr);

/// The winner of one size: the fastest finalist, unless the incumbent (the previous
/// winner or the built-in default) is within the measured noise of it.
struct Winner {
  Result result;
  bool kept_incumbent = false;
};
std::optional<Winner> pick_winner(const std::vector<Result>& finalists,
                                  const std::optional<Result>& incumbent);

/// Duels `cands` (the first is the incumbent) for n's bucket (bucket_duel): the winner,
/// or nothing when no candidate ran; `times` receives every candidate's result, `grid`
/// (when given) every size's.
std::optional<Result> challenge(Evaluator& eval, const std::vector<Policy>& cands, std::uint64_t n,
                                std::vector<Result>& times, DuelGrid* grid = nullptr);

/// Two winners for a duelled bucket (bucket_split.hpp): the upper one (it serves the
/// bucket's top, n; its result there) and the lower one with the largest size it serves;
/// `one` and `two`: the worst ratios of the duel's winner alone and of the two.
struct BucketSplit {
  Result upper;
  Policy lower;
  std::uint64_t lower_upto = 0;
  double one = 1, two = 1;
};

/// The split worth storing (split_worth_storing) of a bucket duel (`duelled`, `grid`)
/// won by `winner`; nothing without a grid or where one winner serves. Where the two
/// cross between two duel sizes is then found by bisection (find_crossover): the
/// midpoint between them guessed wrong where the lower winner stops fitting one wave
/// (H100, float64 sums: the one-wave shape ran 10% behind from 1.19 x 2^21, a split at
/// 1.25 x 2^21).
std::optional<BucketSplit> split_of(Evaluator& eval, const std::vector<Result>& duelled,
                                    const DuelGrid& grid, const Result& winner);

/// The largest size in [lo, hi) at which `lower` duels no slower than `upper`, found by
/// bisection to within (hi - lo) / 32 (lower is known to win lo, upper hi); sizes the
/// evaluator cannot time end the search at the midpoint reached.
std::uint64_t find_crossover(Evaluator& eval, const Policy& lower, const Policy& upper,
                             std::uint64_t lo, std::uint64_t hi);

/// The rank of `other` among `times` over `winner`'s (1 when it did not run).
double gain_over(const std::vector<Result>& times, const Policy& other, const Result& winner);

} // namespace scantune::tuner
