// The SVG chart (see svg_plot.hpp). Layout in user units of a 960 x 540 viewBox.
#include "tuner/report/svg_plot.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace scantune::tuner {
namespace {

constexpr double kWidth = 960, kHeight = 540;
constexpr double kLeft = 80, kRight = 30, kTop = 70, kBottom = 70;
constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                    "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

/// A "nice" tick step (1, 2 or 5 x 10^k) for about `ticks` intervals over `range`.
double nice_step(double range, int ticks) {
  const double raw = range / ticks;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

std::string num(double v) {
  return fmt::format("{:.1f}", v);
}

} // namespace

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&apos;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string render_svg(const PlotData& data) {
  // Data ranges: x over whole powers of two, y from 0 to a nice maximum.
  double x0 = INFINITY, x1 = -INFINITY, ymax = 0;
  for (const PlotSeries& s : data.series)
    for (const PlotPoint& p : s.points) {
      x0 = std::min(x0, p.log2_size);
      x1 = std::max(x1, p.log2_size);
      ymax = std::max(ymax, p.gbs);
    }
  const bool empty = !(x0 <= x1);
  if (empty) x0 = 10, x1 = 30;
  x0 = std::floor(x0);
  x1 = std::max(std::ceil(x1), x0 + 1);
  const double ystep = nice_step(ymax > 0 ? ymax : 1, 6);
  const double ytop = std::max(ystep, std::ceil(ymax / ystep) * ystep);
  const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
  const auto X = [&](double v) { return kLeft + (v - x0) / (x1 - x0) * pw; };
  const auto Y = [&](double v) { return kTop + ph - v / ytop * ph; };

  std::string o = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"13\">\n"
      "<title>{2}</title>\n"
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n"
      "<text class=\"title\" x=\"{3}\" y=\"28\" text-anchor=\"middle\" font-size=\"17\" "
      "font-weight=\"bold\">{2}</text>\n",
      kWidth, kHeight, xml_escape(data.title), num(kWidth / 2));
  if (!data.subtitle.empty())
    o += fmt::format("<text class=\"subtitle\" x=\"{}\" y=\"50\" text-anchor=\"middle\" "
                     "fill=\"#555555\">{}</text>\n",
                     num(kWidth / 2), xml_escape(data.subtitle));

  // Grid, ticks and tick labels. At most ~16 x labels: every k, or every 2nd, ...
  const int xevery = static_cast<int>(std::ceil((x1 - x0) / 16));
  o += "<g class=\"x-axis\" stroke=\"#dddddd\">\n";
  for (int k = static_cast<int>(x0); k <= static_cast<int>(x1); k += xevery)
    o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n"
                     "<text class=\"tick\" x=\"{0}\" y=\"{3}\" stroke=\"none\" fill=\"#000000\" "
                     "text-anchor=\"middle\">2^{4}</text>\n",
                     num(X(k)), num(kTop), num(kTop + ph), num(kTop + ph + 20), k);
  o += "</g>\n<g class=\"y-axis\" stroke=\"#dddddd\">\n";
  for (double v = 0; v <= ytop + ystep / 2; v += ystep)
    o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n"
                     "<text class=\"tick\" x=\"{3}\" y=\"{4}\" stroke=\"none\" fill=\"#000000\" "
                     "text-anchor=\"end\">{5:g}</text>\n",
                     num(kLeft), num(Y(v)), num(kLeft + pw), num(kLeft - 8), num(Y(v) + 4), v);
  o += "</g>\n";
  o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
                   "stroke=\"#000000\"/>\n",
                   num(kLeft), num(kTop), num(pw), num(ph));
  o +=
      fmt::format("<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                  num(kLeft + pw / 2), num(kHeight - 20), xml_escape(data.x_label));
  o += fmt::format("<text class=\"axis-label\" x=\"20\" y=\"{0}\" text-anchor=\"middle\" "
                   "transform=\"rotate(-90 20 {0})\">{1}</text>\n",
                   num(kTop + ph / 2), xml_escape(data.y_label));
  if (empty)
    o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#555555\">no "
                     "data</text>\n",
                     num(kLeft + pw / 2), num(kTop + ph / 2));

  // Series: a polyline with a marker (and a tooltip) per point; legend top left,
  // on a box that keeps lines below it readable.
  std::size_t longest = 0;
  for (const PlotSeries& s : data.series)
    longest = std::max(longest, s.name.size());
  if (!data.series.empty())
    o += fmt::format("<rect class=\"legend-box\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
                     "fill=\"#ffffff\" fill-opacity=\"0.85\" stroke=\"#cccccc\"/>\n",
                     num(kLeft + 6), num(kTop + 6), num(58 + 8.5 * static_cast<double>(longest)),
                     num(20 * static_cast<double>(data.series.size()) + 4));
  std::size_t next_colour = 0;
  for (std::size_t i = 0; i < data.series.size(); ++i) {
    const PlotSeries& s = data.series[i];
    const std::string colour =
        s.colour.empty() ? kPalette[next_colour++ % std::size(kPalette)] : s.colour;
    std::vector<PlotPoint> pts = s.points;
    std::sort(pts.begin(), pts.end(),
              [](const PlotPoint& a, const PlotPoint& b) { return a.log2_size < b.log2_size; });
    o += fmt::format("<g class=\"series\" data-name=\"{}\" stroke=\"{}\" fill=\"{}\">\n",
                     xml_escape(s.name), colour, colour);
    std::string line;
    for (const PlotPoint& p : pts)
      line += fmt::format("{}{},{}", line.empty() ? "" : " ", num(X(p.log2_size)), num(Y(p.gbs)));
    if (!pts.empty())
      o += fmt::format("<polyline fill=\"none\" stroke-width=\"2\"{} points=\"{}\"/>\n",
                       s.dashed ? " stroke-dasharray=\"6 4\"" : "", line);
    for (const PlotPoint& p : pts)
      o += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\"><title>{}: 2^{:g}, {:.1f} "
                       "GB/s</title></circle>\n",
                       num(X(p.log2_size)), num(Y(p.gbs)), xml_escape(s.name), p.log2_size, p.gbs);
    const double ly = kTop + 18 + 20 * static_cast<double>(i);
    o += fmt::format("<g class=\"legend\"><line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
                     "stroke-width=\"2\"{3}/><text x=\"{4}\" y=\"{5}\" stroke=\"none\" "
                     "fill=\"#000000\">{6}</text></g>\n",
                     num(kLeft + 12), num(ly), num(kLeft + 40),
                     s.dashed ? " stroke-dasharray=\"6 4\"" : "", num(kLeft + 48), num(ly + 4),
                     xml_escape(s.name));
    o += "</g>\n";
  }
  o += "</svg>\n";
  return o;
}

} // namespace scantune::tuner
