// SVG charts for the HTML report, rendered on our side so the page needs no script, no network
// and no charting runtime to show them (it opens the same in a browser, a CI artifact viewer or a
// print). Two shapes cover what the report plots:
//
//   - a step histogram (latency buckets: x = latency, y = samples per bucket, both usually log),
//     with vertical marks (p99, p99.9, max);
//   - a line chart with point markers (per-run quantiles, throughput against thread count, a
//     history's sessions), with vertical marks and flagged x positions (kernel boundaries,
//     change points, contaminated sessions).
//
// Coordinates are whole pixels and a series is thinned to one point per pixel column (the
// largest count, so a peak or a lone outlier bucket stays visible): a chart costs about the same
// bytes whether its histogram has 50 buckets or 1,800. The data points a chart draws are counted
// in the DOM: a "data-points" attribute on each series' markers (<path class="pt">, one dot a
// point) of a line chart (on its line when it has no markers) and on each histogram outline
// (<path class="h">). Points that fall on one pixel are drawn once and still counted.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace rtgate::html {

struct Point {
  double x = 0, y = 0;
};

struct Series {
  std::string label;  // legend text
  int color = 0;      // palette index (css class c0..c7)
  bool dashed = false;
  std::vector<Point> points;
  bool in_legend = true;  // false for a baseline twin the chart's title explains
  bool markers = true;    // a dot a point; without, the line alone (one point: still a dot)
};

// A step histogram's bars: [lower, upper) with a count.
struct Bar {
  double lower = 0, upper = 0, count = 0;
};

struct BarSeries {
  std::string label;
  int color = 0;
  bool dashed = false;
  std::vector<Bar> bars;
};

// A vertical line at x, labelled in the chart by `short_label` ("p99.9") and on hover by
// `label` ("p99.9 1.2 ms").
struct Mark {
  double x = 0;
  std::string label;
  int color = 0;
  bool dashed = false;
  std::string short_label;
};

// The palette index of a neutral mark (kernel boundaries): grey, class "cn".
inline constexpr int kNeutral = -1;

// Places along x flagged at the foot of a line chart's plot (contaminated sessions): a short
// tick each, drawn as one path with one tooltip, and an entry in the legend.
struct Flags {
  std::string label;  // legend text
  std::string title;  // tooltip
  int color = 0;
  std::vector<double> at;
};

struct Axis {
  std::string title;
  bool log = false;
  std::function<std::string(double)> format;  // tick labels; "%g" when empty
};

struct ChartFrame {
  std::string title;
  Axis x, y;
  int width = 640, height = 260;
};

// A line chart: each series' points joined in x order, each point a marker. A series of more
// than 100 points has its count and extremes as its tooltip instead of every point's figures.
// Marks are vertical lines under the series, labelled in a band above the plot (up to three
// rows; a label without room is left to the mark's tooltip): a later mark is drawn over an
// earlier one and its label placed first. The x range takes in the marks and the flags.
std::string line_chart(const ChartFrame& frame, const std::vector<Series>& series,
                       const std::vector<Mark>& marks = {}, const Flags& flags = {});

// A step histogram: each series' bars as one outline; counts below 1 on a log y sit on the axis.
std::string histogram_chart(const ChartFrame& frame, const std::vector<BarSeries>& series,
                            const std::vector<Mark>& marks);

// Tick text for counted things (runs, threads): whole numbers only, "" between them.
std::string whole(double v);

// Tick positions for [lo, hi]: powers of ten (with 2 and 5 when the range spans under two
// decades) on a log axis, 1/2/5 x 10^k steps (about five) on a linear one.
std::vector<double> ticks(double lo, double hi, bool log);

}  // namespace rtgate::html
