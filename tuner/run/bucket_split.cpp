// Two winners for one size bucket (bucket_split.hpp).
#include "tuner/run/bucket_split.hpp"

#include <algorithm>

namespace scantune::tuner {

namespace {
double fastest_at(const TimeGrid& times, std::size_t i) {
  double best = std::numeric_limits<double>::infinity();
  for (const std::vector<double>& row : times)
    best = std::min(best, row[i]);
  return best;
}
} // namespace

double worst_ratio(const TimeGrid& times, std::size_t p, std::size_t lo, std::size_t hi) {
  double worst = 0;
  for (std::size_t i = lo; i < hi; ++i)
    worst = std::max(worst, times[p][i] / fastest_at(times, i));
  return worst;
}

OneWinner best_worst(const TimeGrid& times, std::size_t lo, std::size_t hi) {
  OneWinner best;
  for (std::size_t p = 0; p < times.size(); ++p) {
    const double w = worst_ratio(times, p, lo, hi);
    if (w < best.worst) best = {p, w};
  }
  return best;
}

std::optional<TwoWinners> best_two(const TimeGrid& times) {
  if (times.empty() || times.front().size() < 2) return std::nullopt;
  const std::size_t n = times.front().size();
  TwoWinners best;
  for (std::size_t k = 1; k < n; ++k) {
    const OneWinner lo = best_worst(times, 0, k), hi = best_worst(times, k, n);
    const double v = std::max(lo.worst, hi.worst);
    if (v < best.worst) best = {k, lo.policy, hi.policy, v};
  }
  return best;
}

std::optional<TwoWinners> split_worth_storing(const TimeGrid& times, std::size_t winner) {
  if (winner >= times.size() || times.front().size() < 2) return std::nullopt;
  const double one = worst_ratio(times, winner, 0, times.front().size());
  if (one <= 1 + kSplitAbove) return std::nullopt;
  const std::optional<TwoWinners> two = best_two(times);
  if (!two || two->lower == two->upper || two->worst > one - kSplitGain) return std::nullopt;
  return two;
}

} // namespace scantune::tuner
