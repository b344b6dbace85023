// The charts of `scantune plot` and `scantune bench --plot`: GB/s of the tuned
// scan, CUB and memcpy against the size, from a database or a bench report.
#pragma once

#include <vector>

#include "tuner/report/bench_report.hpp"
#include "tuner/report/db_report.hpp"
#include "tuner/report/svg_plot.hpp"

namespace scantune::tuner {

/// The series "tuned", "CUB" and "memcpy" of a bench report.
PlotData plot_of(const BenchReport& r);
/// The same from the winners of one (model, type, op, kind): each bucket's winner
/// at the size it was tuned at, and that device's baselines at that size.
PlotData plot_of(const std::vector<WinnerRow>& rows);

} // namespace scantune::tuner
