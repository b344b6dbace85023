// Dispatcher regret as a table, JSON and a chart (regret_report.hpp).
#include "tuner/report/regret_report.hpp"

#include <cmath>

#include <fmt/format.h>

#include "base/size_bucket.hpp"
#include "tuner/report/text_table.hpp"

namespace scantune::tuner {
namespace {

std::optional<double> us_of(const std::optional<double>& ns) {
  if (!ns) return std::nullopt;
  return *ns / 1e3;
}

/// The fastest candidate's key, "(same)" when that is the dispatched one.
std::string best_cell(const RegretPoint& p) {
  if (p.best.empty()) return "-";
  return p.best == p.dispatched ? "(same)" : p.best;
}

} // namespace

std::optional<double> RegretPoint::regret_percent() const {
  if (!dispatched_ns || !best_ns || *best_ns <= 0) return std::nullopt;
  return (*dispatched_ns / *best_ns - 1.0) * 100.0;
}

const RegretPoint* RegretReport::worst() const {
  const RegretPoint* w = nullptr;
  for (const RegretPoint& p : points)
    if (const auto r = p.regret_percent(); r && (!w || *r > *w->regret_percent())) w = &p;
  return w;
}

std::string regret_summary(const RegretReport& r) {
  const RegretPoint* w = r.worst();
  if (!w) return "no size has both times: no regret measured";
  const double worst = *w->regret_percent();
  int over = 0;
  for (const RegretPoint& p : r.points)
    over += p.regret_percent().value_or(0) > kRegretGoalPercent;
  return fmt::format("worst regret {:.1f}% at n = {} ({} of {} sizes above the {:.0f}% goal)",
                     worst, db::size_label(w->n), over, r.points.size(), kRegretGoalPercent);
}

std::string regret_markdown(const RegretReport& r) {
  TextTable t;
  t.columns = {
      {"n", true},       {"dispatched", false}, {"best candidate", false}, {"dispatched us", true},
      {"best us", true}, {"regret %", true},    {"candidates", true}};
  for (const RegretPoint& p : r.points) {
    const std::string n = db::size_label(p.n) + (p.tuned_size ? " (tuned)" : "");
    const std::string regret = p.regret_percent() ? fmt::format("{:.1f}", *p.regret_percent())
                               : p.note.empty()   ? "-"
                                                  : "- (" + p.note + ")";
    t.add({n, p.dispatched, best_cell(p), fixed_or_dash(us_of(p.dispatched_ns), 2),
           fixed_or_dash(us_of(p.best_ns), 2), regret, std::to_string(p.candidates)});
  }
  return fmt::format("# Dispatcher regret: {} on {}\n\n{}\n{}\n", r.problem, r.device, t.markdown(),
                     regret_summary(r));
}

nlohmann::json regret_to_json(const RegretReport& r) {
  nlohmann::json points = nlohmann::json::array();
  for (const RegretPoint& p : r.points) {
    nlohmann::json j = {{"n", p.n},
                        {"tuned_size", p.tuned_size},
                        {"dispatched", p.dispatched},
                        {"best", p.best},
                        {"candidates", p.candidates}};
    j["dispatched_ns"] = p.dispatched_ns ? nlohmann::json(*p.dispatched_ns) : nlohmann::json();
    j["best_ns"] = p.best_ns ? nlohmann::json(*p.best_ns) : nlohmann::json();
    const auto regret = p.regret_percent();
    j["regret_percent"] = regret ? nlohmann::json(*regret) : nlohmann::json();
    if (!p.note.empty()) j["note"] = p.note;
    points.push_back(std::move(j));
  }
  nlohmann::json out = {{"device", r.device},
                        {"problem", r.problem},
                        {"top", r.top},
                        {"goal_percent", kRegretGoalPercent},
                        {"points", std::move(points)}};
  if (const RegretPoint* w = r.worst())
    out["worst"] = {{"n", w->n}, {"regret_percent", *w->regret_percent()}};
  return out;
}

PlotData regret_plot(const RegretReport& r) {
  PlotData d;
  d.title = r.problem + ": dispatcher regret";
  d.subtitle = r.device;
  d.x_label = "elements (log2 scale)";
  d.y_label = "regret % (dispatched / best candidate - 1)";
  PlotSeries regret{"regret", "#1f77b4", false, {}};
  for (const RegretPoint& p : r.points)
    if (const auto v = p.regret_percent())
      regret.points.push_back({std::log2(static_cast<double>(p.n)), *v});
  PlotSeries goal{fmt::format("goal {:.0f}%", kRegretGoalPercent), "#d62728", true, {}};
  if (!r.points.empty())
    for (const RegretPoint* p : {&r.points.front(), &r.points.back()})
      goal.points.push_back({std::log2(static_cast<double>(p->n)), kRegretGoalPercent});
  d.series = {std::move(regret), std::move(goal)};
  return d;
}

} // namespace scantune::tuner
