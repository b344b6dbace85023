// The exhaustive strategy: every candidate at every size, at full effort. The
// reference that the faster strategies are judged against.
#include <algorithm>
#include <optional>

#include "tuner/search/strategy.hpp"

namespace scantune::tuner {
namespace {

class Exhaustive : public Strategy {
public:
  std::string_view name() const override { return "exhaustive"; }

  std::size_t planned_measurements(const SearchContext& ctx) const override {
    std::size_t n = 0;
    for (std::uint64_t size : ctx.sizes)
      n += static_cast<std::size_t>(
          std::count_if(ctx.candidates.begin(), ctx.candidates.end(),
                        [&](const Policy& p) { return applies_at(p, size, ctx.space); }));
    return n;
  }

  std::vector<SizeOutcome> run(SearchContext& ctx) override {
    ctx.evaluator->prefetch(ctx.candidates);
    std::vector<SizeOutcome> outcomes;
    std::optional<Policy> previous_winner;
    for (std::uint64_t size : ctx.sizes) {
      SizeOutcome outcome{size, {}};
      std::vector<Policy> order;
      // The previous size's winner first: it is usually close to this size's best,
      // so the time limit is tight from the start.
      if (previous_winner && applies_at(*previous_winner, size, ctx.space))
        order.push_back(*previous_winner);
      for (const Policy& p : ctx.candidates)
        if (applies_at(p, size, ctx.space) && !(previous_winner && p == *previous_winner))
          order.push_back(p);
      double best_ns = 0;
      for (const Policy& p : order) {
        if (ctx.out_of_time()) break;
        const double limit = best_ns > 0 ? ctx.time_limit_factor * best_ns : 0;
        Result r = ctx.evaluator->measure(p, size, Effort::Confirm, limit);
        if (r.ok() && (best_ns == 0 || r.median_ns < best_ns)) best_ns = r.median_ns;
        outcome.finalists.push_back(std::move(r));
      }
      if (const Result* w = fastest(outcome.finalists)) previous_winner = w->policy;
      outcomes.push_back(std::move(outcome));
    }
    return outcomes;
  }
};

} // namespace

std::unique_ptr<Strategy> make_exhaustive_strategy() {
  return std::make_unique<Exhaustive>();
}

} // namespace scantune::tuner
