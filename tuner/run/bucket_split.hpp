// Two winners for one size bucket: where the fastest shape changes inside a bucket, no
// single policy stays within a few percent of the fastest at every size a bucket duel
// times (docs/tuner.md, "Two winners a bucket"); a lower and an upper winner, split
// between two of those sizes, do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace scantune::tuner {

/// Times of a bucket's duel: `times[p][i]` is policy p's time at sizes[i] (ascending);
/// infinity where it failed.
using TimeGrid = std::vector<std::vector<double>>;

/// Policy p's worst ratio to the fastest time over sizes [lo, hi).
double worst_ratio(const TimeGrid& times, std::size_t p, std::size_t lo, std::size_t hi);

/// The policy with the best worst ratio over sizes [lo, hi), and that ratio.
struct OneWinner {
  std::size_t policy = 0;
  double worst = std::numeric_limits<double>::infinity();
};
OneWinner best_worst(const TimeGrid& times, std::size_t lo, std::size_t hi);

/// The best two winners: `lower` over sizes [0, after), `upper` over [after, n);
/// `worst` is the worse side's ratio. Needs two sizes or more.
struct TwoWinners {
  std::size_t after = 0;
  std::size_t lower = 0, upper = 0;
  double worst = std::numeric_limits<double>::infinity();
};
std::optional<TwoWinners> best_two(const TimeGrid& times);

/// The split worth storing for a bucket whose one winner is `winner`: when that winner
/// runs more than kSplitAbove behind the fastest somewhere and two winners (different
/// policies) cut its worst ratio by kSplitGain or more. Stricter than noise: two
/// duels of one bucket order shapes within 1-2% differently (docs/tuner.md).
inline constexpr double kSplitAbove = 0.02;
inline constexpr double kSplitGain = 0.01;
std::optional<TwoWinners> split_worth_storing(const TimeGrid& times, std::size_t winner);

} // namespace scantune::tuner
