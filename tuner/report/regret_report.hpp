// `scantune bench --regret`: at sizes between the tuned buckets, the dispatched
// policy against the fastest of the tuned candidates there. Plain data and its
// renderings (markdown, JSON, SVG), so the tests check them without a GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/report/svg_plot.hpp"

namespace scantune::tuner {

/// The regret goal of the dispatcher (docs/performance.md): reported, not enforced.
inline constexpr double kRegretGoalPercent = 3.0;

/// One size: the dispatched policy and the fastest candidate, each timed the same way.
struct RegretPoint {
  std::uint64_t n = 0;
  bool tuned_size = false;      ///< n is the size a bucket was tuned at
  std::string dispatched, best; ///< policy keys
  std::optional<double> dispatched_ns, best_ns;
  int candidates = 0; ///< distinct policies timed at n (the dispatched one included)
  std::string note;   ///< why a time is missing

  /// dispatched / best - 1, in percent; none without both times.
  std::optional<double> regret_percent() const;
};

struct RegretReport {
  std::string device, problem; ///< model; "int32 sum inclusive"
  int top = 0;                 ///< measured policies per neighbouring bucket
  std::vector<RegretPoint> points;

  /// The point with the largest regret, if any has one.
  const RegretPoint* worst() const;
};

/// "| n | dispatched | best candidate | dispatched us | best us | regret % |" per size,
/// then a summary line (the worst regret and where, against the goal).
std::string regret_markdown(const RegretReport& r);
/// The summary line alone.
std::string regret_summary(const RegretReport& r);
nlohmann::json regret_to_json(const RegretReport& r);
/// Regret % against log2 n, with the goal as a dashed line.
PlotData regret_plot(const RegretReport& r);

} // namespace scantune::tuner
