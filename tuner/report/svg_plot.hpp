// A self-contained SVG line chart of bandwidth against input size: log2 x axis
// with 2^k ticks, GB/s y axis, a legend and a title. No scripts, no external
// resources (fonts, styles, images): it renders in any browser as it is.
#pragma once

#include <string>
#include <vector>

namespace scantune::tuner {

struct PlotPoint {
  double log2_size = 0; ///< x: log2 of the element count
  double gbs = 0;       ///< y
};

struct PlotSeries {
  std::string name;   ///< legend text, e.g. "tuned"
  std::string colour; ///< CSS colour; empty = the next of a fixed palette
  bool dashed = false;
  std::vector<PlotPoint> points; ///< in any order; sorted by x when drawn
};

struct PlotData {
  std::string title;
  std::string subtitle;
  std::string x_label = "elements";
  std::string y_label = "GB/s";
  std::vector<PlotSeries> series;
};

/// The chart as an SVG document (a pure function: same data, same bytes).
std::string render_svg(const PlotData& data);

/// Text escaped for XML character data and attribute values.
std::string xml_escape(const std::string& s);

} // namespace scantune::tuner
