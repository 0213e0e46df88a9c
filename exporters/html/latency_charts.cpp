#include "exporters/html/latency_charts.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "base/text/units.h"
#include "exporters/html/html_text.h"
#include "exporters/html/svg_chart.h"
#include "gate/model/format.h"

namespace rtgate::html {
namespace {

// Bins of equal width on the log axis, kBinsPerDecade to a power of ten (9.6% wide, 5 px on a
// chart of four decades; six times the histogram's finest buckets): a sparse tail reads as a shape
// instead of a comb of single-sample buckets, and the chart's size does not grow with the
// histogram's. Each bucket counts in the bin of its lower bound.
constexpr double kBinsPerDecade = 25;

BarSeries bars(const LatencyHistogram& h, std::string label, int color, bool dashed) {
  BarSeries s{std::move(label), color, dashed, {}};
  long bin = std::numeric_limits<long>::min();
  for (const Bucket& b : h.buckets()) {
    const double lower = std::max(1.0, static_cast<double>(b.lower_ns));
    const long k = std::lround(std::floor(std::log10(lower) * kBinsPerDecade));
    if (k != bin || s.bars.empty()) {
      bin = k;
      s.bars.push_back({std::pow(10, static_cast<double>(k) / kBinsPerDecade),
                        std::pow(10, static_cast<double>(k + 1) / kBinsPerDecade), 0});
    }
    s.bars.back().count += static_cast<double>(b.count);
  }
  return s;
}

void add_marks(std::vector<Mark>& marks, const LatencySummary& s, const std::string& side,
               int color, bool dashed) {
  const auto d = [](std::uint64_t v) { return static_cast<double>(v); };
  const std::pair<const char*, std::uint64_t> shown[] = {
      {"p99", s.p99}, {"p99.9", s.p999}, {"max", s.max}};
  for (const auto& [name, v] : shown) {
    marks.push_back({d(v), side + name + " " + gate::fmt::ns(d(v)), color, dashed, side + name});
  }
}

std::vector<std::string> figures(const std::string& side, const LatencySummary& s, int runs) {
  return {side,
          std::to_string(s.count),
          gate::fmt::ns(static_cast<double>(s.min)),
          gate::fmt::ns(s.mean),
          gate::fmt::ns(static_cast<double>(s.p50)),
          gate::fmt::ns(static_cast<double>(s.p99)),
          gate::fmt::ns(static_cast<double>(s.p999)),
          gate::fmt::ns(static_cast<double>(s.max)),
          std::to_string(s.overflow),
          std::to_string(runs)};
}

// One series per quantile; the baseline's in the same colors, dashed and out of the legend.
void add_run_series(std::vector<Series>& out, const std::vector<LatencySummary>& runs,
                    bool baseline) {
  const struct {
    const char* name;
    std::uint64_t LatencySummary::*field;
  } kShown[] = {{"p50", &LatencySummary::p50},
                {"p99", &LatencySummary::p99},
                {"p99.9", &LatencySummary::p999},
                {"max", &LatencySummary::max}};
  int color = 2;
  for (const auto& q : kShown) {
    Series s{std::string(q.name) + (baseline ? " (baseline)" : ""),
             color++,
             baseline,
             {},
             !baseline,
             !baseline};
    for (std::size_t i = 0; i < runs.size(); ++i) {
      s.points.push_back({static_cast<double>(i + 1), static_cast<double>(runs[i].*q.field)});
    }
    out.push_back(std::move(s));
  }
}

}  // namespace

std::string ns_tick(double ns) { return text::significant(ns, 3); }

namespace {

// A summary-only metric's runs as one row of figures: count, min, mean and max are all it has.
std::vector<std::string> known_figures(const std::string& side, const Metric& m) {
  std::uint64_t count = 0, min = 0, max = 0;
  double weighted = 0;
  for (const LatencySummary& r : m.runs) {
    if (r.count == 0) continue;
    min = count == 0 ? r.min : std::min(min, r.min);
    max = std::max(max, r.max);
    count += r.count;
    weighted += r.mean * static_cast<double>(r.count);
  }
  const auto d = [](std::uint64_t v) { return gate::fmt::ns(static_cast<double>(v)); };
  return {side,   std::to_string(count),
          d(min), gate::fmt::ns(count > 0 ? weighted / static_cast<double>(count) : 0),
          d(max), std::to_string(m.runs.size())};
}

std::string summary_only_figures(const std::string& title, const Metric& cur, const Metric* base) {
  std::vector<std::vector<std::string>> rows = {known_figures("current", cur)};
  if (base != nullptr && base->summary_only) rows.push_back(known_figures("baseline", *base));
  return "<div class=\"metric\"><p>" + escape(title) +
         ": imported without a histogram (count, min, mean and max only)</p>" +
         table({"", "samples", "min", "mean", "max", "runs"}, rows) + "</div>";
}

}  // namespace

std::string latency_charts(const std::string& title, const Metric& cur, const Metric* base) {
  if (cur.summary_only) return summary_only_figures(title, cur, base);
  if (!cur.histogram) return "";
  const bool with_base = base != nullptr && base->histogram;
  const LatencySummary cs = LatencySummary::of(*cur.histogram);
  std::vector<BarSeries> hist = {bars(*cur.histogram, "current", 0, false)};
  std::vector<Mark> marks;
  add_marks(marks, cs, "", 0, false);
  std::vector<std::vector<std::string>> rows = {
      figures("current", cs, static_cast<int>(cur.runs.size()))};
  if (with_base) {
    const LatencySummary bs = LatencySummary::of(*base->histogram);
    hist.push_back(bars(*base->histogram, "baseline", 1, true));
    add_marks(marks, bs, "base ", 1, true);
    rows.push_back(figures("baseline", bs, static_cast<int>(base->runs.size())));
  }
  ChartFrame h;
  h.title = title;
  h.x = {"latency", true, ns_tick};
  h.y = {"samples per bin (25 a decade)", true, [](double v) { return gate::fmt::num(v); }};
  std::string out = "<div class=\"metric\">";
  out += histogram_chart(h, hist, marks);
  if (!cur.runs.empty()) {
    std::vector<Series> runs;
    add_run_series(runs, cur.runs, false);
    if (with_base && !base->runs.empty()) add_run_series(runs, base->runs, true);
    ChartFrame r;
    r.title = std::string("per run") + (with_base ? " (dashed: baseline)" : "");
    r.x = {"run", false, whole};
    r.y = {"latency", true, ns_tick};
    r.width = 420;
    out += line_chart(r, runs);
  }
  out +=
      table({"", "samples", "min", "mean", "p50", "p99", "p99.9", "max", "overflow", "runs"}, rows);
  return out + "</div>";
}

}  // namespace rtgate::html
