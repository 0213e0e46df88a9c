// line_chart (svg_chart.h): series over x with vertical marks labelled above the plot and
// flagged positions at its foot, as the trend charts of a history draw them.
#include <algorithm>
#include <cmath>
#include <limits>

#include "exporters/html/html_text.h"
#include "exporters/html/svg_chart.h"
#include "exporters/html/svg_plot.h"

namespace rtgate::html {
namespace {

using svg::color_class;
using svg::drawable;
using svg::label_of;
using svg::LegendEntry;
using svg::text_of;

constexpr int kMarkRows = 3, kMarkRow = 12;  // the band of mark labels above the plot

// Mark labels in rows above the plot: from the last mark to the first, each takes the lowest
// row where it clears the labels already there (10 px text, about 6 px a character), ending at
// its line where it would pass the chart's right edge. -1: no room (or no text).
struct MarkLabel {
  int row = -1;
  bool right = false;
};
std::vector<MarkLabel> layout_mark_labels(const std::vector<Mark>& marks, const svg::Scale& sx,
                                          int width) {
  std::vector<MarkLabel> out(marks.size());
  std::vector<std::vector<std::pair<double, double>>> rows(kMarkRows);
  for (std::size_t i = marks.size(); i-- > 0;) {
    const double mx = sx(marks[i].x), w = 6.0 * static_cast<double>(text_of(marks[i]).size());
    if (w == 0) continue;
    const bool right = mx + 3 + w > width - 2;
    const double a = right ? mx - 3 - w : mx + 3, b = a + w;
    for (int r = 0; r < kMarkRows && out[i].row < 0; ++r) {
      auto& taken = rows[static_cast<std::size_t>(r)];
      if (std::all_of(taken.begin(), taken.end(),
                      [&](const auto& t) { return b + 8 <= t.first || a >= t.second + 8; })) {
        taken.emplace_back(a, b);
        out[i] = {r, right};
      }
    }
  }
  return out;
}

// One series: its line, or its dots, titled with its points' figures (a summary past
// kTitledPoints).
std::string series_svg(const ChartFrame& f, const Series& s, const svg::Scale& sx,
                       const svg::Scale& sy) {
  constexpr std::size_t kTitledPoints = 100;
  std::string out;
  std::vector<Point> pts;
  for (const Point& p : s.points) {
    if (std::isfinite(p.x) && drawable(f.y, p.y)) pts.push_back(p);
  }
  std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
  const std::string cls = color_class(s.color) + (s.dashed ? " d" : "");
  std::string values;
  if (pts.size() <= kTitledPoints) {
    for (const Point& p : pts) {
      values += (values.empty() ? "" : ", ") + label_of(f.x, p.x) + ": " + label_of(f.y, p.y);
    }
  } else {
    const auto [lo, hi] = std::minmax_element(
        pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a.y < b.y; });
    values = std::to_string(pts.size()) + " points; lowest " + label_of(f.y, lo->y) + " at " +
             label_of(f.x, lo->x) + ", highest " + label_of(f.y, hi->y) + " at " +
             label_of(f.x, hi->x);
  }
  // One title per series with every point's figures (a title per point would double a
  // chart); on the dots, or on the line when the series has none.
  const std::string title = "<title>" + escape(s.label + " (" + values + ")") + "</title>";
  const std::string count = "data-points=\"" + std::to_string(pts.size()) + "\" ";
  const bool dots = s.markers || pts.size() == 1;
  // Whole pixels: a point on the pixel of the one before it adds nothing to the line or dots.
  std::string line, dot;
  std::pair<long, long> last{std::numeric_limits<long>::min(), 0};
  for (const Point& p : pts) {
    const std::pair<long, long> at{std::lround(sx(p.x)), std::lround(sy(p.y))};
    if (at == last) continue;
    last = at;
    line += std::to_string(at.first) + "," + std::to_string(at.second) + " ";
    dot += "M" + std::to_string(at.first) + " " + std::to_string(at.second) + "h0";
  }
  if (pts.size() > 1) {
    line.back() = '"';
    out += "<polyline class=\"" + cls + "\" " + (dots ? "" : count) + "points=\"" + line;
    out += dots ? "/>" : ">" + title + "</polyline>";
  }
  if (dots && !pts.empty()) {
    // Zero-length segments drawn as round dots (CSS): a few bytes a point.
    out += "<path class=\"pt " + cls + "\" " + count + "d=\"" + dot + "\">" + title + "</path>";
  }
  return out;
}

}  // namespace

std::string line_chart(const ChartFrame& f, const std::vector<Series>& series,
                       const std::vector<Mark>& marks, const Flags& flags) {
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  for (const Series& s : series) {
    for (const Point& p : s.points) {
      if (!std::isfinite(p.x) || !drawable(f.y, p.y)) continue;
      xlo = std::min(xlo, p.x);
      xhi = std::max(xhi, p.x);
      ylo = std::min(ylo, p.y);
      yhi = std::max(yhi, p.y);
    }
  }
  std::vector<double> extra = flags.at;
  for (const Mark& m : marks) extra.push_back(m.x);
  for (const double x : extra) {
    if (drawable(f.x, x)) xlo = std::min(xlo, x), xhi = std::max(xhi, x);
  }
  if (!std::isfinite(xlo)) xlo = 0, xhi = 1;
  if (!std::isfinite(ylo)) ylo = f.y.log ? 1 : 0, yhi = 1;
  if (xhi <= xlo) xlo -= 0.5, xhi += 0.5;
  if (!f.x.log) {
    const double pad = (xhi - xlo) * 0.04;
    xlo -= pad;
    xhi += pad;
  }
  svg::pad_domain(ylo, yhi, f.y.log, true);
  std::vector<LegendEntry> legend;
  for (const Series& s : series) {
    if (s.in_legend) legend.push_back({s.label, s.color, s.dashed});
  }
  if (!flags.at.empty()) legend.push_back({flags.label, flags.color, false, true});
  // The x scale does not depend on the plot's height: the labels' rows decide the band first.
  const std::vector<MarkLabel> labels =
      layout_mark_labels(marks, svg::x_scale(f, xlo, xhi), f.width);
  int rows = 0;
  for (const MarkLabel& l : labels) rows = std::max(rows, l.row + 1);
  const svg::Plot plot =
      svg::make_plot(f, legend, xlo, xhi, ylo, yhi, rows > 0 ? rows * kMarkRow + 2 : 0);
  const svg::Scale &sx = plot.sx, &sy = plot.sy;
  const int top = plot.lay.top;
  const long bottom = std::lround(sy.p0);
  std::string out = svg::frame_svg(plot.frame, sx, sy, legend, plot.lay);
  for (std::size_t i = 0; i < marks.size(); ++i) {
    const double mx = sx(marks[i].x);
    const int ly = labels[i].row < 0 ? 0 : top - 4 - labels[i].row * kMarkRow;
    out += svg::mark_svg(marks[i], mx, top, bottom, labels[i].right ? mx - 3 : mx + 3, ly,
                         labels[i].right, "ml " + color_class(marks[i].color));
  }
  if (!flags.at.empty()) {
    std::vector<long> xs;
    for (const double x : flags.at) {
      if (drawable(f.x, x)) xs.push_back(std::lround(sx(x)));
    }
    std::sort(xs.begin(), xs.end());
    xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
    std::string d;
    for (const long x : xs) d += "M" + std::to_string(x) + " " + std::to_string(bottom) + "v-8";
    out += "<path class=\"f " + color_class(flags.color) + "\" d=\"" + d + "\"><title>" +
           escape(flags.title) + "</title></path>";
  }
  for (const Series& s : series) out += series_svg(f, s, sx, sy);
  return out + "</svg>";
}

}  // namespace rtgate::html
