#include "exporters/html/trend_section.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "exporters/html/html_text.h"
#include "exporters/html/latency_charts.h"
#include "exporters/html/page_shell.h"
#include "exporters/html/svg_chart.h"
#include "gate/model/format.h"
#include "gate/noise/run_values.h"
#include "results/report.h"

namespace rtgate::html {
namespace {

using nlohmann::ordered_json;

// Above this many sessions a series is drawn as its line alone: at 1,000 sessions on a 630 px
// plot dots would overlap into a band and cost a few bytes each for nothing.
constexpr std::size_t kDottedSessions = 150;
// Sessions a tooltip names one by one (contaminated ones) before it counts the rest.
constexpr std::size_t kNamedSessions = 40;
// Colours: series c0, c2, c4..c7; c3 (red) is for worse change points, c1 for contamination.
constexpr int kWorseColor = 3, kBetterColor = 2, kOtherChangeColor = 7, kFlagColor = 1;

// The document is read as written (history_json) or as parsed from a file, where a NaN became
// null: a missing or non-numeric field reads as NaN, "" or false.
double number(const ordered_json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : NAN;
}
long integer(const ordered_json& j, const char* key) {
  const double v = number(j, key);
  return std::isfinite(v) ? std::lround(v) : -1;
}
std::string text(const ordered_json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}
bool flag(const ordered_json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}
const ordered_json& array(const ordered_json& j, const char* key) {
  static const ordered_json kEmpty = ordered_json::array();
  const auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : kEmpty;
}

// Quantiles low to high, then max, then a metric's value or rate: the order of the legend and
// of the lines under the chart.
double rank_of(const std::string& statistic) {
  const double q = gate::statistic_quantile(statistic);
  if (!std::isnan(q)) return q;
  return statistic == "max" ? 2 : 3;
}
int color_of(const std::string& statistic) {
  static const std::map<std::string, int> kColors = {{"p50", 2},  {"p90", 6},   {"p99", 0},
                                                     {"p999", 4}, {"p9999", 7}, {"max", 5}};
  const auto it = kColors.find(statistic);
  return it != kColors.end() ? it->second : 0;
}

// A change in the series' own terms: % for a ratio statistic, events per run for a rate.
std::string change_text(double v, bool rate, bool brief = false) {
  if (!rate && !brief) return gate::fmt::pct(v);
  if (std::isnan(v)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, rate ? "%+.3g/run" : "%+.0f%%", v);
  return buf;
}
std::string shift_text(const ordered_json& c, bool rate) {
  return change_text(number(c, "change"), rate) + " [" + change_text(number(c, "low"), rate) +
         ", " + change_text(number(c, "high"), rate) + "] " + gate::fmt::p_value(number(c, "p"));
}

// Documents written before the field existed count every change point beyond the floor.
bool beyond_floor(const ordered_json& c) {
  return !c.contains("beyond_floor") || flag(c, "beyond_floor");
}
std::string verdict_of(const ordered_json& c) {
  if (flag(c, "worse")) return ", worse";
  return beyond_floor(c) ? "" : ", below the noise floor";
}

struct KernelRun {
  std::string kernel;
  int first = 0, count = 0;  // sessions, 0-based
};
std::vector<KernelRun> kernel_runs(const ordered_json& sessions) {
  std::vector<KernelRun> out;
  int i = 0;
  for (const ordered_json& s : sessions) {
    const std::string k = text(s, "kernel");
    if (out.empty() || out.back().kernel != k) out.push_back({k, i, 0});
    ++out.back().count;
    ++i;
  }
  return out;
}

// The metric's series, its statistics in rank order.
struct MetricTrend {
  std::string suite, case_name, metric, unit;
  std::vector<const ordered_json*> series;
};
std::vector<MetricTrend> metrics_of(const ordered_json& h) {
  std::vector<MetricTrend> out;
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> index;
  for (const ordered_json& s : array(h, "series")) {
    const auto key = std::make_tuple(text(s, "suite"), text(s, "case"), text(s, "metric"));
    const auto [it, added] = index.emplace(key, out.size());
    if (added) {
      out.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), text(s, "unit"), {}});
    }
    out[it->second].series.push_back(&s);
  }
  for (MetricTrend& m : out) {
    std::stable_sort(m.series.begin(), m.series.end(), [](const auto* a, const auto* b) {
      return rank_of(text(*a, "statistic")) < rank_of(text(*b, "statistic"));
    });
  }
  return out;
}

// Session i (0-based) is drawn at x = i + 1; a boundary before it at x = i + 0.5.
double boundary_x(long session) { return static_cast<double>(session) + 0.5; }

std::vector<Mark> kernel_marks(const std::vector<KernelRun>& runs) {
  std::vector<Mark> out;
  for (const KernelRun& r : runs) {
    const std::string span = r.count == 1 ? "session " + std::to_string(r.first + 1)
                                          : "sessions " + std::to_string(r.first + 1) + "-" +
                                                std::to_string(r.first + r.count);
    out.push_back(
        {boundary_x(r.first), "kernel " + r.kernel + ": " + span, kNeutral, false, r.kernel});
  }
  return out;
}

// One mark per session where any statistic of the metric changes: red when one change is worse,
// green when all went the better way, else teal.
std::vector<Mark> change_marks(const MetricTrend& m) {
  struct At {
    std::string label, brief;
    bool worse = false, better = true;
  };
  std::map<long, At> at;
  for (const ordered_json* s : m.series) {
    const std::string st = text(*s, "statistic"), name = gate::statistic_label(st);
    const bool rate = st == "rate", lower = text(*s, "better") != "higher";
    for (const ordered_json& c : array(*s, "change_points")) {
      At& a = at[integer(c, "session")];
      a.label += (a.label.empty() ? "" : "; ") + name + " " + shift_text(c, rate) + verdict_of(c);
      a.brief +=
          (a.brief.empty() ? "" : ", ") + name + " " + change_text(number(c, "change"), rate, true);
      a.worse = a.worse || flag(c, "worse");
      a.better = a.better && beyond_floor(c) && (number(c, "change") < 0) == lower;
    }
  }
  std::vector<Mark> out;
  for (const auto& [session, a] : at) {
    out.push_back({boundary_x(session),
                   "change point at session " + std::to_string(session + 1) + ": " + a.label,
                   a.worse    ? kWorseColor
                   : a.better ? kBetterColor
                              : kOtherChangeColor,
                   true, a.brief});
  }
  return out;
}

Flags contamination(const ordered_json& sessions) {
  Flags f{"contaminated session", "", kFlagColor, {}};
  std::string named;
  for (std::size_t i = 0; i < sessions.size(); ++i) {
    if (!flag(sessions[i], "contaminated")) continue;
    f.at.push_back(static_cast<double>(i + 1));
    if (f.at.size() <= kNamedSessions) named += (named.empty() ? "" : ", ") + std::to_string(i + 1);
  }
  f.title = "contaminated sessions: " + named +
            (f.at.size() > kNamedSessions
                 ? " and " + std::to_string(f.at.size() - kNamedSessions) + " more"
                 : "");
  return f;
}

std::string chart(const MetricTrend& m, const std::vector<Mark>& kernels, const Flags& flags) {
  ChartFrame f;
  f.title = m.suite + "/" + m.case_name + " " + m.metric;
  // Sessions count from 1; the axis may start a little before it.
  f.x = {"session", false, [](double v) { return v >= 1 ? whole(v) : ""; }};
  const auto num = [](double v) { return gate::fmt::num(v); };
  if (m.unit == "ns") {
    f.y = {"latency", true, ns_tick};
  } else if (m.unit == "events/run") {
    f.y = {m.metric + " (events per run)", false, num};
  } else {
    f.y = {m.metric + " (" + m.unit + ")", true, num};
  }
  f.width = 720;
  f.height = 240;
  std::vector<Series> series;
  for (const ordered_json* s : m.series) {
    const std::string st = text(*s, "statistic");
    Series line{gate::statistic_label(st), color_of(st), false, {}};
    const ordered_json &at = array(*s, "sessions"), &values = array(*s, "values");
    for (std::size_t i = 0; i < at.size() && i < values.size(); ++i) {
      if (at[i].is_number() && values[i].is_number()) {
        line.points.push_back({at[i].get<double>() + 1, values[i].get<double>()});
      }
    }
    line.markers = line.points.size() <= kDottedSessions;
    series.push_back(std::move(line));
  }
  // Kernel boundaries first: a change point at the same session is drawn over its line.
  std::vector<Mark> marks = kernels;
  for (Mark& c : change_marks(m)) marks.push_back(std::move(c));
  return line_chart(f, series, marks, flags);
}

// Under the chart: a line per change point, then per statistic the newest kernel's test and a
// drift whose interval excludes 0.
std::string notes(const MetricTrend& m, const std::string& newest_kernel) {
  std::vector<std::pair<std::string, bool>> lines;  // text, worse
  for (const ordered_json* s : m.series) {
    const std::string st = text(*s, "statistic"), name = gate::statistic_label(st);
    for (const ordered_json& c : array(*s, "change_points")) {
      lines.push_back({name + ": " + text(c, "kernel_before") + " -> " + text(c, "kernel_after") +
                           " at session " + std::to_string(integer(c, "session") + 1) + ": " +
                           shift_text(c, st == "rate") + verdict_of(c),
                       flag(c, "worse")});
    }
  }
  bool tested = false;
  for (const ordered_json* s : m.series) {
    const std::string st = text(*s, "statistic"), name = gate::statistic_label(st);
    const auto it = s->find("newest");
    if (it == s->end() || !flag(*it, "tested")) continue;
    tested = true;
    const ordered_json& n = *it;
    const bool worse = flag(n, "worse");
    lines.push_back({name + ": newest kernel " + newest_kernel + " (" +
                         std::to_string(integer(n, "sessions_after")) + " sessions) vs the " +
                         std::to_string(integer(n, "sessions_before")) +
                         " before: " + shift_text(n, st == "rate") +
                         (worse               ? ", worse"
                          : flag(n, "better") ? ", better"
                                              : "") +
                         "; detects " + change_text(number(n, "detectable"), st == "rate") +
                         " at 90% power",
                     worse});
  }
  if (!tested) {
    lines.push_back(
        {"newest kernel " + newest_kernel +
             ": not tested, too few sessions of earlier kernels since the last change point",
         false});
  }
  for (const ordered_json* s : m.series) {
    const auto it = s->find("drift");
    if (it == s->end()) continue;
    const double lo = number(*it, "low_pct"), hi = number(*it, "high_pct");
    if (!(lo > 0 || hi < 0)) continue;
    lines.push_back({gate::statistic_label(text(*s, "statistic")) + ": drift over " +
                         std::to_string(integer(*it, "kernels")) +
                         " kernels: " + gate::fmt::pct(number(*it, "per_kernel_pct")) +
                         " a kernel [" + gate::fmt::pct(lo) + ", " + gate::fmt::pct(hi) + "]",
                     false});
  }
  std::string out = "<ul class=\"notes\">";
  for (const auto& [line, worse] : lines) {
    out += worse ? "<li class=\"worse\">" : "<li>";
    out += escape(line) + "</li>";
  }
  return out + "</ul>";
}

std::string banner(const std::string& outcome, const std::string& kernel) {
  std::string line = "Too short to say whether kernel " + kernel + " is worse (exit 3)";
  if (outcome == "worse") line = "Kernel " + kernel + " starts a worse segment (exit 1)";
  if (outcome == "not_worse") line = "Kernel " + kernel + " starts no worse segment (exit 0)";
  return "<div class=\"banner " + escape(outcome) + "\">" + escape(line) + "</div>";
}

}  // namespace

std::string trend_section(const ordered_json& h) {
  const std::vector<MetricTrend> metrics = metrics_of(h);
  if (metrics.empty()) return "";
  const ordered_json& sessions = array(h, "sessions");
  const std::vector<KernelRun> runs = kernel_runs(sessions);
  const std::vector<Mark> kernels = kernel_marks(runs);
  const Flags flags = contamination(sessions);
  const std::string newest = text(h, "newest_kernel");
  std::string out = "<section id=\"history\"><h2>History</h2>" + banner(text(h, "outcome"), newest);
  out += "<p class=\"reason\">" + escape(text(h, "reason")) + "</p>";
  // What a kernel gate needs to hear besides the outcome (a baseline in a worse segment, ...).
  if (const ordered_json& facts = array(h, "notes"); !facts.empty()) {
    out += "<div class=\"warn\"><ul>";
    for (const ordered_json& f : facts) {
      if (f.is_string()) out += "<li>" + escape(f.get<std::string>()) + "</li>";
    }
    out += "</ul></div>";
  }
  // The kernels in order with their sessions; of a long history the first two and last three.
  std::string kernel_list;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs.size() > 6 && i >= 2 && i + 3 < runs.size()) {
      if (i == 2) kernel_list += ", " + std::to_string(runs.size() - 5) + " more";
      continue;
    }
    kernel_list += (i == 0 ? "" : ", ") + runs[i].kernel + " x" + std::to_string(runs[i].count);
  }
  out += "<p class=\"dim\">" + std::to_string(sessions.size()) + " sessions in time order (" +
         escape(kernel_list) + "), " + std::to_string(flags.at.size()) + " contaminated; " +
         std::to_string(metrics.size()) + (metrics.size() == 1 ? " metric" : " metrics") +
         " charted, a family of " + gate::fmt::num(number(h, "family")) + " at alpha " +
         gate::fmt::num(number(h, "alpha")) +
         ". Grey lines: where a kernel starts, labelled with its release; dashed: change points "
         "(red when worse, green when better); ticks at the foot: contaminated sessions.</p>";
  for (const MetricTrend& m : metrics) {
    bool worse = false, better = false;
    std::size_t changes = 0;
    for (const ordered_json* s : m.series) {
      changes += array(*s, "change_points").size();
      const auto it = s->find("newest");
      if (it == s->end()) continue;
      worse = worse || flag(*it, "worse");
      better = better || flag(*it, "better");
    }
    // A metric with something to say opens; the quiet ones too while the page stays short.
    const bool open = worse || better || changes > 0 || metrics.size() <= 12;
    std::string summary = "<span class=\"case\">" + escape(m.suite + "/" + m.case_name) +
                          "</span> " + escape(m.metric);
    if (worse) summary += " " + badge("worse");
    if (better) summary += " " + badge("better");
    if (changes > 0) {
      summary += " <span class=\"dim\">" + std::to_string(changes) + " change point" +
                 (changes == 1 ? "" : "s") + "</span>";
    }
    out += details(summary,
                   "<div class=\"trend\">" + chart(m, kernels, flags) + notes(m, newest) + "</div>",
                   open, "case-d");
  }
  return out + "</section>";
}

std::string render_history_page(const ordered_json& h) {
  std::string s = page_head("rtgate history: " + text(h, "newest_kernel"));
  s += "<h1>rtgate history</h1>";
  const std::string section = trend_section(h);
  if (section.empty()) {
    s += banner(text(h, "outcome"), text(h, "newest_kernel")) + "<p class=\"reason\">" +
         escape(text(h, "reason")) + "</p><p>No gated statistic to chart.</p>";
  } else {
    s += "<p>" + expand_buttons() + "</p>" + section;
  }
  s += "<p class=\"dim\">Written by rtgate at " + escape(rfc3339_now()) + ".</p>";
  return s + page_tail();
}

}  // namespace rtgate::html
