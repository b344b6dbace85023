// Bench reports and stored winners as chart data (see plots.hpp).
#include "tuner/report/plots.hpp"

#include <cmath>
#include <optional>

#include <fmt/format.h>

namespace scantune::tuner {
namespace {

/// The chart of three series; `at(k, i)` is the GB/s of series k at point i.
template <class At>
PlotData three_series(std::string title, std::string subtitle, const std::vector<double>& sizes,
                      const At& at) {
  PlotData d;
  d.title = std::move(title);
  d.subtitle = std::move(subtitle);
  d.x_label = "elements (log2 scale)";
  d.y_label = "GB/s (bytes read + written per second)";
  d.series = {{"tuned", "#1f77b4", false, {}},
              {"CUB", "#d62728", false, {}},
              {"memcpy", "#2ca02c", true, {}}};
  for (std::size_t k = 0; k < d.series.size(); ++k)
    for (std::size_t i = 0; i < sizes.size(); ++i)
      if (const std::optional<double> g = at(k, i)) d.series[k].points.push_back({sizes[i], *g});
  return d;
}

} // namespace

PlotData plot_of(const BenchReport& r) {
  static const char* const names[] = {"tuned", "cub", "memcpy"};
  const BenchSeries* s[] = {r.find(names[0]), r.find(names[1]), r.find(names[2])};
  std::vector<double> x;
  for (std::uint64_t n : r.sizes)
    x.push_back(std::log2(static_cast<double>(n)));
  return three_series(r.problem() + ": scantune bench", r.device, x,
                      [&](std::size_t k, std::size_t i) -> std::optional<double> {
                        if (!s[k] || i >= s[k]->points.size()) return std::nullopt;
                        return r.gbs(i, s[k]->points[i].ns, names[k]);
                      });
}

PlotData plot_of(const std::vector<WinnerRow>& rows) {
  std::vector<double> x;
  for (const WinnerRow& w : rows)
    x.push_back(std::log2(static_cast<double>(w.best.size)));
  const std::string title =
      rows.empty() ? "no tuned entries" : problem_label(rows.front().best) + ": tuned winners";
  return three_series(title, rows.empty() ? "" : rows.front().best.model, x,
                      [&](std::size_t k, std::size_t i) -> std::optional<double> {
                        const WinnerRow& w = rows[i];
                        if (k == 0) return w.best.gbs;
                        return k == 1 ? w.cub_gbs : w.memcpy_gbs;
                      });
}

} // namespace scantune::tuner
