// What the two chart shapes of svg_chart.h share (svg_chart.cpp: the histogram and the frame,
// svg_line_chart.cpp: the line chart), and nothing else includes: the frame (title, legend,
// grid, axes), the domain-to-pixel scales and the vertical marks.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "exporters/html/svg_chart.h"

namespace rtgate::html::svg {

constexpr int kLeft = 64, kRight = 24, kBottom = 38;
constexpr int kTitleBand = 36;  // the title and one legend row above the plot

struct LegendEntry {
  std::string text;
  int color = 0;
  bool dashed = false;
  bool tick = false;  // a flag's tick instead of a line
};

// Legend entries laid out left to right, wrapping at the chart's width: each entry's x and row.
struct LegendLayout {
  std::vector<std::pair<double, int>> at;
  int top = kTitleBand;  // where the plot area starts, below the title and the legend
};

// Domain value -> pixel along one axis; a log axis clamps values at or below 0 to its low end.
struct Scale {
  double lo = 0, hi = 1;
  bool log = false;
  double p0 = 0, p1 = 1;
  double tr(double v) const {
    if (!log) return v;
    return std::log10(std::max(v, lo));
  }
  double operator()(double v) const {
    const double a = tr(lo), b = tr(hi);
    const double t = b > a ? (tr(std::clamp(v, lo, hi)) - a) / (b - a) : 0.5;
    return p0 + t * (p1 - p0);
  }
};

// A chart's frame, taller by the legend's extra rows and a band of `band` px above the plot,
// with its legend layout and scales.
struct Plot {
  ChartFrame frame;
  LegendLayout lay;
  Scale sx, sy;
};

std::string color_class(int color);  // "c0".."c7", "cn" for kNeutral
std::string px(double v);            // a whole pixel
std::string label_of(const Axis& a, double v);
// [lo, hi] widened to whole decades (log) or from 0 / with 5% headroom (linear).
void pad_domain(double& lo, double& hi, bool log, bool from_zero);
Scale x_scale(const ChartFrame& f, double lo, double hi);
Plot make_plot(const ChartFrame& f, const std::vector<LegendEntry>& legend, double xlo, double xhi,
               double ylo, double yhi, int band = 0);
// <svg ...> with the title, legend, grid, tick labels, axes and axis titles.
std::string frame_svg(const ChartFrame& f, const Scale& sx, const Scale& sy,
                      const std::vector<LegendEntry>& legend, const LegendLayout& lay);

// The text a mark is labelled with in the chart.
const std::string& text_of(const Mark& m);
// A mark: its line from y0 down to y1 and, when ly > 0, its label (class `text_cls`) at
// (lx, ly), ending there when `right`.
std::string mark_svg(const Mark& m, double mx, long y0, long y1, double lx, int ly, bool right,
                     const std::string& text_cls);

// Finite, and above 0 on a log axis.
bool drawable(const Axis& a, double v);

}  // namespace rtgate::html::svg
