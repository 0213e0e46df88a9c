#include "exporters/html/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "exporters/html/html_text.h"
#include "exporters/html/svg_plot.h"

namespace rtgate::html {
namespace svg {
namespace {

double legend_width(const LegendEntry& e) { return 28 + 6.2 * static_cast<double>(e.text.size()); }

LegendLayout layout_legend(const ChartFrame& f, const std::vector<LegendEntry>& legend) {
  LegendLayout l;
  double x = kLeft;
  int row = 0;
  for (const LegendEntry& e : legend) {
    if (x > kLeft && x + legend_width(e) > f.width - kRight) {
      x = kLeft;
      ++row;
    }
    l.at.push_back({x, row});
    x += legend_width(e);
  }
  l.top = kTitleBand + 14 * row;
  return l;
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::string color_class(int color) {
  return color == kNeutral ? "cn" : "c" + std::to_string((color % 8 + 8) % 8);
}

std::string px(double v) { return std::to_string(static_cast<long>(std::lround(v))); }

std::string label_of(const Axis& a, double v) { return a.format ? a.format(v) : fmt(v); }

void pad_domain(double& lo, double& hi, bool log, bool from_zero) {
  if (log) {
    lo = std::pow(10, std::floor(std::log10(lo)));
    hi = std::pow(10, std::ceil(std::log10(hi)));
    if (hi <= lo) hi = lo * 10;
    return;
  }
  if (from_zero) lo = std::min(lo, 0.0);
  if (hi <= lo) hi = lo + (lo == 0 ? 1 : std::abs(lo));
  hi += (hi - lo) * 0.05;
}

std::string frame_svg(const ChartFrame& f, const Scale& sx, const Scale& sy,
                      const std::vector<LegendEntry>& legend, const LegendLayout& lay) {
  const int top = lay.top;
  std::string s;
  // Inline in HTML: the parser puts <svg> in the SVG namespace, no xmlns needed.
  s += "<svg class=\"chart\" role=\"img\" width=\"" + std::to_string(f.width) + "\" height=\"" +
       std::to_string(f.height) + "\" viewBox=\"0 0 " + std::to_string(f.width) + " " +
       std::to_string(f.height) + "\">";
  s += "<text class=\"t\" x=\"" + std::to_string(kLeft) + "\" y=\"13\">" + escape(f.title) +
       "</text>";
  for (std::size_t i = 0; i < legend.size(); ++i) {
    const LegendEntry& e = legend[i];
    const double lx = lay.at[i].first;
    const int ly = 25 + 14 * lay.at[i].second;
    const std::string cls = color_class(e.color) + (e.dashed ? " d" : "") + (e.tick ? " f" : "");
    s += "<path class=\"" + cls + "\" d=\"M" + px(e.tick ? lx + 8 : lx) + " " +
         std::to_string(e.tick ? ly + 5 : ly) + (e.tick ? "v-10" : "h16") +
         "\"/><text class=\"l\" x=\"" + px(lx + 20) + "\" y=\"" + std::to_string(ly + 4) + "\">" +
         escape(e.text) + "</text>";
  }
  // Grid lines as one path and tick labels in two groups (anchored by CSS): the frame is most of
  // a small chart's bytes, and a report has thousands of charts.
  const std::vector<double> yt = ticks(sy.lo, sy.hi, sy.log), xt = ticks(sx.lo, sx.hi, sx.log);
  std::string grid, ylabels, xlabels;
  for (const double t : yt) {
    grid += "M" + std::to_string(kLeft) + " " + px(sy(t)) + "H" + std::to_string(f.width - kRight);
    ylabels += "<text x=\"" + std::to_string(kLeft - 4) + "\" y=\"" + px(sy(t) + 4) + "\">" +
               escape(label_of(f.y, t)) + "</text>";
  }
  for (const double t : xt) {
    grid += "M" + px(sx(t)) + " " + std::to_string(top) + "V" + std::to_string(f.height - kBottom);
    xlabels += "<text x=\"" + px(sx(t)) + "\" y=\"" + std::to_string(f.height - kBottom + 14) +
               "\">" + escape(label_of(f.x, t)) + "</text>";
  }
  if (!grid.empty()) s += "<path class=\"g\" d=\"" + grid + "\"/>";
  s += "<g class=\"k ye\">" + ylabels + "</g><g class=\"k xm\">" + xlabels + "</g>";
  s += "<path class=\"a\" d=\"M" + std::to_string(kLeft) + " " + std::to_string(top) + "V" +
       std::to_string(f.height - kBottom) + "H" + std::to_string(f.width - kRight) + "\"/>";
  s += "<text class=\"k\" x=\"" + std::to_string((kLeft + f.width - kRight) / 2) + "\" y=\"" +
       std::to_string(f.height - 6) + "\" text-anchor=\"middle\">" + escape(f.x.title) + "</text>";
  const int mid = (top + f.height - kBottom) / 2;
  s += "<text class=\"k\" x=\"12\" y=\"" + std::to_string(mid) +
       "\" text-anchor=\"middle\" transform=\"rotate(-90 12 " + std::to_string(mid) + ")\">" +
       escape(f.y.title) + "</text>";
  return s;
}

Scale x_scale(const ChartFrame& f, double lo, double hi) {
  return {lo, hi, f.x.log, static_cast<double>(kLeft), static_cast<double>(f.width - kRight)};
}
Plot make_plot(const ChartFrame& f, const std::vector<LegendEntry>& legend, double xlo, double xhi,
               double ylo, double yhi, int band) {
  Plot p{f, layout_legend(f, legend), {}, {}};
  p.lay.top += band;
  p.frame.height += p.lay.top - kTitleBand;
  p.sx = x_scale(p.frame, xlo, xhi);
  p.sy = {ylo, yhi, f.y.log, static_cast<double>(p.frame.height - kBottom),
          static_cast<double>(p.lay.top)};
  return p;
}

const std::string& text_of(const Mark& m) {
  return m.short_label.empty() ? m.label : m.short_label;
}

std::string mark_svg(const Mark& m, double mx, long y0, long y1, double lx, int ly, bool right,
                     const std::string& text_cls) {
  const std::string cls = "m " + color_class(m.color) + (m.dashed ? " d" : "");
  std::string s = "<g class=\"mark\"><title>" + escape(m.label) + "</title><path class=\"" + cls +
                  "\" d=\"M" + px(mx) + " " + std::to_string(y0) + "V" + std::to_string(y1) +
                  "\"/>";
  if (ly > 0) {
    s += "<text class=\"" + text_cls + "\" x=\"" + px(lx) + "\" y=\"" + std::to_string(ly) + "\"" +
         (right ? " text-anchor=\"end\"" : "") + ">" + escape(text_of(m)) + "</text>";
  }
  return s + "</g>";
}

bool drawable(const Axis& a, double v) { return std::isfinite(v) && !(a.log && v <= 0); }

}  // namespace svg

using svg::color_class;
using svg::LegendEntry;
using svg::pad_domain;
using svg::px;

std::string whole(double v) {
  return v == std::floor(v) ? std::to_string(static_cast<long long>(v)) : "";
}

std::vector<double> ticks(double lo, double hi, bool log) {
  std::vector<double> out;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return out;
  if (log) {
    if (lo <= 0) return out;
    const int first = static_cast<int>(std::ceil(std::log10(lo) - 1e-9));
    const int last = static_cast<int>(std::floor(std::log10(hi) + 1e-9));
    const bool fine = last - first < 2;
    for (int e = first - 1; e <= last; ++e) {
      for (const double m : {1.0, 2.0, 5.0}) {
        if (m != 1.0 && !fine) continue;
        const double v = m * std::pow(10, e);
        if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push_back(v);
      }
    }
    return out;
  }
  const double raw = (hi - lo) / 5;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  }
  // By index, and at most a dozen: where the step is below the values' precision (labels 1e17
  // and 1e17 + 16), adding it changes nothing, and a loop that adds would never end.
  const double start = std::ceil(lo / step) * step;
  for (int i = 0; i < 12; ++i) {
    const double v = start + i * step;
    if (v > hi + step * 1e-9 || (!out.empty() && v <= out.back())) break;
    out.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
  }
  return out;
}

namespace {

// One series' bars as a single step path down to the axis.
std::string bars_path(const BarSeries& s, const svg::Scale& sx, const svg::Scale& sy) {
  const long bottom = std::lround(sy.p0);
  // One segment per pixel column run; overlapping columns keep the larger count.
  struct Seg {
    long x0, x1;
    double count;
  };
  std::vector<Seg> segs;
  std::size_t points = 0;
  for (const Bar& b : s.bars) {
    if (b.count <= 0) continue;
    ++points;
    const long a = std::lround(sx(b.lower));
    const long e = std::max(a + 1, std::lround(sx(b.upper)));
    if (!segs.empty() && a < segs.back().x1) {
      segs.back().x1 = std::max(segs.back().x1, e);
      segs.back().count = std::max(segs.back().count, b.count);
    } else {
      segs.push_back({a, e, b.count});
    }
  }
  if (segs.empty()) return "";
  std::string d = "M" + std::to_string(segs.front().x0) + " " + std::to_string(bottom);
  long x = segs.front().x0, y = bottom;
  for (const Seg& g : segs) {
    if (g.x0 > x) {
      if (y != bottom) d += "V" + std::to_string(bottom);
      d += "H" + std::to_string(g.x0);
      y = bottom;
    }
    const long gy = std::lround(sy(g.count));
    if (gy != y) d += "V" + std::to_string(gy);
    d += "H" + std::to_string(g.x1);
    x = g.x1;
    y = gy;
  }
  if (y != bottom) d += "V" + std::to_string(bottom);
  const std::string cls = "h " + color_class(s.color) + (s.dashed ? " d" : "");
  return "<path class=\"" + cls + "\" data-label=\"" + escape(s.label) + "\" data-points=\"" +
         std::to_string(points) + "\" d=\"" + d + "\"/>";
}

}  // namespace

std::string histogram_chart(const ChartFrame& f, const std::vector<BarSeries>& series,
                            const std::vector<Mark>& marks) {
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, cmin = xlo, cmax = 0;
  for (const BarSeries& s : series) {
    for (const Bar& b : s.bars) {
      if (b.count <= 0) continue;
      xlo = std::min(xlo, f.x.log ? std::max(b.lower, 1.0) : b.lower);
      xhi = std::max(xhi, b.upper);
      cmin = std::min(cmin, b.count);
      cmax = std::max(cmax, b.count);
    }
  }
  for (const Mark& m : marks) {
    if (m.x > 0 || !f.x.log) xlo = std::min(xlo, m.x), xhi = std::max(xhi, m.x);
  }
  if (!std::isfinite(xlo)) xlo = 1, xhi = 10, cmin = 1, cmax = 1;
  double ylo = f.y.log ? cmin / 2 : 0, yhi = cmax;
  if (f.x.log) {
    xlo = std::pow(10, std::floor(std::log10(xlo)));
    xhi = std::pow(10, std::ceil(std::log10(xhi * 1.0001)));
  } else {
    pad_domain(xlo, xhi, false, false);
  }
  pad_domain(ylo, yhi, f.y.log, true);
  if (f.y.log) ylo = std::min(ylo, cmin / 2);  // a count of 1 stands above the axis
  std::vector<LegendEntry> legend;
  for (const BarSeries& s : series) legend.push_back({s.label, s.color, s.dashed});
  const svg::Plot plot = svg::make_plot(f, legend, xlo, xhi, ylo, yhi);
  const svg::Scale &sx = plot.sx, &sy = plot.sy;
  const int top = plot.lay.top;
  std::string out = svg::frame_svg(plot.frame, sx, sy, legend, plot.lay);
  const long bottom = std::lround(sy.p0);
  for (const BarSeries& s : series) out += bars_path(s, sx, sy);
  for (std::size_t i = 0; i < marks.size(); ++i) {
    const Mark& m = marks[i];
    const double mx = sx(m.x);
    const bool right = mx > plot.frame.width - svg::kRight - 90;
    out += svg::mark_svg(m, mx, top, bottom, right ? mx - 3 : mx + 3,
                         top + 10 + static_cast<int>(i % 6) * 11, right, "ml");
  }
  return out + "</svg>";
}

}  // namespace rtgate::html
