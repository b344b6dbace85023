// The strategy registry and the helpers every strategy shares.
#include "tuner/search/strategy.hpp"

#include <string>

#include "errors.hpp"

namespace scantune::tuner {

// Defined in strategy_<name>.cpp.
std::unique_ptr<Strategy> make_halving_strategy();
std::unique_ptr<Strategy> make_exhaustive_strategy();

std::vector<std::string_view> strategy_names() {
  return {"halving", "exhaustive"};
}

std::unique_ptr<Strategy> make_strategy(std::string_view name) {
  if (name == "halving") return make_halving_strategy();
  if (name == "exhaustive") return make_exhaustive_strategy();
  std::string names;
  for (std::string_view n : strategy_names())
    names += (names.empty() ? "" : ", ") + std::string(n);
  detail::fail("unknown search strategy '{}' (expected one of: {})", name, names);
}

const Result* fastest(const std::vector<Result>& results) {
  const Result* best = nullptr;
  for (const Result& r : results)
    if (r.ok() && (!best || r.rank() < best->rank())) best = &r;
  return best;
}

} // namespace scantune::tuner
