#include "exporters/html/workload_tables.h"

#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "exporters/html/html_text.h"
#include "exporters/html/suite_section.h"
#include "exporters/html/svg_chart.h"
#include "gate/model/format.h"

namespace rtgate::html {
namespace {

std::string number(double v) { return std::isfinite(v) ? gate::fmt::num(v) : "-"; }

// The threads label as a number; nullopt-like -1 when absent or not a whole number.
long threads_of(const Case& c) {
  const auto it = c.labels.find("threads");
  if (it == c.labels.end()) return -1;
  long v = -1;
  const auto r = std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
  return r.ec == std::errc() && r.ptr == it->second.data() + it->second.size() ? v : -1;
}

// The sweep group of a case: its labels without "threads".
using Labels = std::map<std::string, std::string>;
Labels group_of(const Case& c) {
  Labels g = c.labels;
  g.erase("threads");
  return g;
}

const Metric* metric_of(const SuiteResult* s, const std::string& case_name,
                        const std::string& metric) {
  if (s == nullptr) return nullptr;
  const Case* c = s->find(case_name);
  return c == nullptr ? nullptr : c->find(metric);
}

}  // namespace

std::string metric_table(const SuiteResult& cur, const SuiteResult* base,
                         const VerdictIndex& verdicts, int cpus) {
  std::vector<std::vector<std::string>> rows;
  for (const Case& c : cur.cases) {
    const long threads = threads_of(c);
    std::string thr = "-";
    if (threads > 0) {
      thr = std::to_string(threads);
      if (cpus > 0) thr += " (" + number(static_cast<double>(threads) / cpus) + "x CPUs)";
    }
    for (const Metric& m : c.metrics) {
      if (m.kind == MetricKind::kLatency || m.samples.empty()) continue;
      const SampleSummary s = SampleSummary::of(m.samples);
      const bool hmean = m.kind == MetricKind::kThroughput;
      const double value = hmean ? s.hmean : s.amean;
      std::vector<std::string> row = {
          has_case_section(c)
              ? "<a href=\"#" + case_anchor(cur.name, c.name) + "\">" + escape(c.name) + "</a>"
              : escape(c.name),
          escape(thr), escape(m.name), escape(m.unit), hmean ? "Hmean" : "Amean"};
      const Metric* bm = metric_of(base, c.name, m.name);
      if (base != nullptr) {
        const SampleSummary b =
            bm && !bm->samples.empty() ? SampleSummary::of(bm->samples) : SampleSummary{};
        const double bvalue = bm && !bm->samples.empty() ? (hmean ? b.hmean : b.amean) : NAN;
        row.push_back(number(bvalue));
        row.push_back(number(value));
        row.push_back(std::isfinite(bvalue)
                          ? escape(gate::fmt::pct(gate::fmt::change_pct(bvalue, value)))
                          : "-");
        row.push_back(bm ? number(b.stddev) : "-");
      } else {
        row.push_back(number(value));
      }
      row.push_back(number(s.stddev));
      row.push_back(number(s.min));
      row.push_back(number(s.max));
      row.push_back(std::to_string(s.n));
      if (verdicts.suite() != nullptr) {
        const gate::MetricVerdict* v = verdicts.find(c.name, m.name);
        row.push_back(v ? badge(gate::to_string(v->verdict)) + (v->gated ? "" : " (not gated)")
                        : "-");
      }
      rows.push_back(std::move(row));
    }
  }
  if (rows.empty()) return "";
  std::vector<std::string> head = {"case", "threads", "metric", "unit", "stat"};
  if (base != nullptr) {
    for (const char* h : {"baseline", "current", "change", "stddev base", "stddev cur"}) {
      head.push_back(h);
    }
  } else {
    head.push_back("value");
    head.push_back("stddev");
  }
  for (const char* h : {"min", "max", "runs"}) head.push_back(h);
  if (verdicts.suite() != nullptr) head.push_back("verdict");
  return "<div class=\"scroll\">" + table(head, rows) + "</div>";
}

std::string sweep_charts(const SuiteResult& cur, const SuiteResult* base) {
  // group -> throughput metric -> threads -> (current Hmean, baseline Hmean)
  std::map<Labels, std::map<std::string, std::map<long, std::pair<double, double>>>> sweep;
  std::map<std::string, std::string> units;  // metric -> unit
  std::set<long> counts;
  std::map<std::string, std::set<std::string>> label_values;  // label -> values over groups
  for (const Case& c : cur.cases) {
    const long t = threads_of(c);
    if (t <= 0) continue;
    counts.insert(t);
    for (const auto& [k, v] : c.labels) {
      if (k != "threads") label_values[k].insert(v);
    }
    for (const Metric& m : c.metrics) {
      if (m.kind != MetricKind::kThroughput || m.samples.empty()) continue;
      const Metric* bm = metric_of(base, c.name, m.name);
      units[m.name] = m.unit;
      sweep[group_of(c)][m.name][t] = {
          SampleSummary::of(m.samples).hmean,
          bm && !bm->samples.empty() ? SampleSummary::of(bm->samples).hmean : NAN};
    }
  }
  if (counts.size() < 2) return "";
  // A series is named by the labels that tell the groups apart (the lock), or "all".
  auto series_name = [&](const Labels& group) {
    std::string name;
    for (const auto& [k, v] : group) {
      if (label_values[k].size() > 1) name += (name.empty() ? "" : " ") + v;
    }
    return name.empty() ? std::string("all") : name;
  };
  std::map<std::string,
           std::vector<std::pair<std::string, const std::map<long, std::pair<double, double>>*>>>
      by_metric;
  for (const auto& [group, metrics] : sweep) {
    for (const auto& [metric, points] : metrics) {
      by_metric[metric].push_back({series_name(group), &points});
    }
  }
  std::string out;
  constexpr std::size_t kPerChart = 8;  // one palette's worth of colors
  for (const auto& [metric, groups] : by_metric) {
    const std::string& unit = units[metric];
    for (std::size_t first = 0; first < groups.size(); first += kPerChart) {
      std::vector<Series> series;
      for (std::size_t i = first; i < std::min(groups.size(), first + kPerChart); ++i) {
        Series s{groups[i].first, static_cast<int>(i - first), false, {}};
        Series b{groups[i].first + " (baseline)", static_cast<int>(i - first), true, {}, false};
        for (const auto& [t, v] : *groups[i].second) {
          s.points.push_back({static_cast<double>(t), v.first});
          if (std::isfinite(v.second)) b.points.push_back({static_cast<double>(t), v.second});
        }
        series.push_back(std::move(s));
        if (!b.points.empty()) series.push_back(std::move(b));
      }
      ChartFrame f;
      f.title = cur.name + ": " + metric + " against threads" +
                (base != nullptr ? " (dashed: baseline)" : "") +
                (groups.size() > kPerChart
                     ? " [" + std::to_string(first / kPerChart + 1) + "/" +
                           std::to_string((groups.size() + kPerChart - 1) / kPerChart) + "]"
                     : "");
      f.x = {"threads", false, whole};
      f.y = {metric + " (" + unit + ", Hmean)", false, [](double v) { return gate::fmt::num(v); }};
      f.width = 720;
      f.height = 300;
      out += line_chart(f, series);
    }
  }
  return out;
}

}  // namespace rtgate::html
