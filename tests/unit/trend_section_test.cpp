// The history's trend section (exporters/html/trend_section.h): one chart per metric, every
// session a counted data point of each statistic's series, the kernel boundaries and change
// points marked, contaminated sessions flagged, a line per change point under its chart, and a
// chart of 1,000 sessions that stays small. (In a real browser:
// tests/integration/history_browser_test.cpp.)
#include "exporters/html/trend_section.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <tuple>

#include "exporters/history_report.h"
#include "gate/history/history.h"
#include "gate/history/history_judge.h"
#include "tests/unit/gate_sim_world.h"

namespace rtgate::html {
namespace {

using nlohmann::ordered_json;

constexpr const char* kOld = "6.1.0-47-rt";
constexpr const char* kNew = "6.1.0-53-rt";

int count_of(const std::string& s, const std::string& what) {
  int n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// Each chart (<svg ...</svg>) of a page, in order.
std::vector<std::string> charts_of(const std::string& html) {
  std::vector<std::string> out;
  for (std::size_t at = html.find("<svg"); at != std::string::npos;
       at = html.find("<svg", at + 1)) {
    out.push_back(html.substr(at, html.find("</svg>", at) - at));
  }
  return out;
}

// The data-points counts of a chart's elements, in order.
std::vector<int> points_of(const std::string& svg) {
  std::vector<int> out;
  const std::regex re("data-points=\"([0-9]+)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator();
       ++it) {
    out.push_back(std::stoi((*it)[1]));
  }
  return out;
}

ordered_json series(const std::string& suite, const std::string& c, const std::string& metric,
                    const std::string& statistic, const std::string& unit,
                    const std::string& better, int sessions, double level, double step_at9) {
  ordered_json s{{"suite", suite}, {"case", c},        {"metric", metric}, {"statistic", statistic},
                 {"unit", unit},   {"better", better}, {"alpha", 1e-4}};
  ordered_json at = ordered_json::array(), values = ordered_json::array();
  for (int i = 0; i < sessions; ++i) {
    at.push_back(i);
    values.push_back(level * (1 + 0.02 * (i % 3)) * (i >= 8 ? step_at9 : 1));
  }
  s["sessions"] = at;
  s["values"] = values;
  s["change_points"] = ordered_json::array();
  s["newest"] = {{"tested", false}};
  s["drift"] = {{"kernels", 2}, {"from_session", 0}};
  return s;
}

// 12 sessions (8 of kOld, 4 of kNew, the 4th contaminated) and three metrics: cyclic/cpu1's
// latency (p99, p99.9 with a change point at session 9, max), its overruns (a rate, with a
// change point below the noise floor at session 3) and a throughput.
ordered_json hand_built(int sessions = 12) {
  ordered_json h{{"schema", "rtgate.history/1"},
                 {"outcome", "worse"},
                 {"exit_code", 1},
                 {"reason", "kernel 6.1.0-53-rt starts a worse segment in 1 statistic"},
                 {"alpha", 0.05},
                 {"family", 100},
                 {"kernels", {kOld, kNew}},
                 {"newest_kernel", kNew},
                 {"newest_sessions", 4},
                 {"duplicates", 0},
                 {"notes", {"the baseline (kernel 6.1.0-53-rt) is in a worse segment"}}};
  h["sessions"] = ordered_json::array();
  for (int i = 0; i < sessions; ++i) {
    h["sessions"].push_back({{"id", "boot:" + std::to_string(i)},
                             {"started_at", gate::sim::sim_time(3600 * i)},
                             {"kernel", i < 8 ? kOld : kNew},
                             {"source", "s" + std::to_string(i) + ".json"},
                             {"contaminated", i == 3}});
  }
  ordered_json p999 =
      series("cyclic", "cpu1", "wakeup_latency", "p999", "ns", "lower", sessions, 300'000, 1.95);
  const ordered_json shift{{"session", 8},         {"kernel_before", kOld}, {"kernel_after", kNew},
                           {"sessions_before", 8}, {"sessions_after", 4},   {"change", 95.0},
                           {"low", 80.0},          {"high", 111.0},         {"p", 1e-7}};
  ordered_json change = shift;
  change["worse"] = true;
  p999["change_points"].push_back(change);
  p999["newest"] = shift;
  p999["newest"]["tested"] = true;
  p999["newest"]["detectable"] = 25.0;
  p999["newest"]["worse"] = true;
  p999["newest"]["better"] = false;
  h["series"] = ordered_json::array();
  h["series"].push_back(
      series("cyclic", "cpu1", "wakeup_latency", "p99", "ns", "lower", sessions, 60'000, 1));
  h["series"].push_back(p999);
  h["series"].push_back(
      series("cyclic", "cpu1", "wakeup_latency", "max", "ns", "lower", sessions, 900'000, 1));
  ordered_json overruns =
      series("cyclic", "cpu1", "overruns", "rate", "events/run", "lower", sessions, 0.4, 1);
  overruns["change_points"].push_back({{"session", 2},
                                       {"kernel_before", kOld},
                                       {"kernel_after", kOld},
                                       {"change", -0.2},
                                       {"low", -0.21},
                                       {"high", -0.19},
                                       {"p", 1e-20},
                                       {"beyond_floor", false},
                                       {"worse", false}});
  h["series"].push_back(overruns);
  h["series"].push_back(series("lock.latency", "pi_mutex", "nonrt_throughput", "value", "ops/s",
                               "higher", sessions, 1.2e6, 1));
  return h;
}

TEST(TrendSection, OneChartPerMetricWithEverySessionCountedAndTheKernelsAndChangeMarked) {
  const std::string s = trend_section(hand_built());
  ASSERT_FALSE(s.empty());
  EXPECT_NE(s.find("<section id=\"history\">"), std::string::npos);
  EXPECT_NE(s.find("<div class=\"banner worse\">Kernel 6.1.0-53-rt starts a worse segment"),
            std::string::npos);
  EXPECT_NE(s.find("starts a worse segment in 1 statistic</p>"), std::string::npos);  // reason
  const std::vector<std::string> charts = charts_of(s);
  ASSERT_EQ(charts.size(), 3u);  // latency, overruns, throughput
  const std::vector<std::size_t> statistics = {3, 1, 1};
  for (std::size_t c = 0; c < charts.size(); ++c) {
    const std::vector<int> points = points_of(charts[c]);
    EXPECT_EQ(points, std::vector<int>(statistics[c], 12)) << c;  // a dot a session
    // The first kernel where the chart starts, kNew where it starts: two grey marks labelled.
    EXPECT_EQ(count_of(charts[c], "class=\"m cn\""), 2) << c;
    EXPECT_NE(charts[c].find(">6.1.0-47-rt</text>"), std::string::npos) << c;
    EXPECT_NE(charts[c].find(">6.1.0-53-rt</text>"), std::string::npos) << c;
    EXPECT_NE(charts[c].find("<title>kernel 6.1.0-53-rt: sessions 9-12</title>"),
              std::string::npos);
    // Session 4 is contaminated: one tick at the plot's foot, and a legend entry.
    EXPECT_EQ(count_of(charts[c], "v-8\""), 1) << c;
    EXPECT_NE(charts[c].find("contaminated sessions: 4</title>"), std::string::npos) << c;
  }
  // The worse change point: a red dashed mark in the latency chart alone, labelled briefly; the
  // rate's, below the floor, neither red nor green.
  EXPECT_EQ(count_of(charts[0], "class=\"m c3 d\""), 1);
  EXPECT_NE(charts[0].find(">p99.9 +95%</text>"), std::string::npos) << charts[0];
  EXPECT_EQ(count_of(s, "class=\"m c3 d\""), 1);
  EXPECT_EQ(count_of(charts[1], "class=\"m c7 d\""), 1);
  EXPECT_NE(s.find("<li>rate: 6.1.0-47-rt -&gt; 6.1.0-47-rt at session 3: -0.2/run [-0.21/run, "
                   "-0.19/run] p=1e-20, below the noise floor</li>"),
            std::string::npos);
  EXPECT_NE(s.find("<div class=\"warn\"><ul><li>the baseline (kernel 6.1.0-53-rt) is in a worse"),
            std::string::npos);
  // Log axes for latency (ns ticks) and throughput, linear from 0 for the rate.
  EXPECT_NE(charts[0].find(" us</text>"), std::string::npos);
  EXPECT_NE(charts[1].find(">0</text>"), std::string::npos);
  // Under the chart: the change point's line, the newest kernel's, and the untested metrics'.
  EXPECT_NE(s.find("<li class=\"worse\">p99.9: 6.1.0-47-rt -&gt; 6.1.0-53-rt at session 9: "
                   "+95.0% [+80.0%, +111.0%] p=1e-07, worse</li>"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("p99.9: newest kernel 6.1.0-53-rt (4 sessions) vs the 8 before: +95.0%"),
            std::string::npos);
  EXPECT_EQ(count_of(s, "newest kernel 6.1.0-53-rt: not tested,"), 2);
}

TEST(TrendSection, APageOfItsOwnThatLoadsNothingAndNothingWithoutSeries) {
  const std::string page = render_history_page(hand_built());
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("Content-Security-Policy"), std::string::npos);
  EXPECT_NE(page.find("<section id=\"history\">"), std::string::npos);
  EXPECT_NE(page.find("<button data-open=\"0\">"), std::string::npos);
  EXPECT_EQ(page.find("src="), std::string::npos);
  EXPECT_EQ(page.find("href=\"http"), std::string::npos);
  ordered_json empty = hand_built();
  empty["series"] = ordered_json::array();
  EXPECT_EQ(trend_section(empty), "");
  EXPECT_NE(render_history_page(empty).find("No gated statistic to chart."), std::string::npos);
}

TEST(TrendSection, AThousandSessionsCostAboutOnePointPerPixelColumn) {
  const std::string s = trend_section(hand_built(1000));
  const std::vector<std::string> charts = charts_of(s);
  ASSERT_EQ(charts.size(), 3u);
  // Lines without dots at this density, each still counting every session.
  EXPECT_EQ(points_of(charts[0]), std::vector<int>(3, 1000));
  EXPECT_EQ(count_of(charts[0], "h0"), 0);
  EXPECT_EQ(count_of(charts[0], "<polyline"), 3);
  EXPECT_NE(s.find("(6.1.0-47-rt x8, 6.1.0-53-rt x992)"), std::string::npos);
  std::printf("1000 sessions: %zu bytes the latency chart (3 series), %zu the section\n",
              charts[0].size(), s.size());
  // Three series of 1,000 sessions on 632 px: about 20 kB, as the lines' coordinates cost.
  EXPECT_LT(charts[0].size(), 30'000u);
  EXPECT_LT(s.size(), 80'000u);
}

// From results through HistoryBuilder, judge_history and history_json: a chart per metric of the
// document, each series' points its sessions, and the tripled latency's change point marked.
TEST(TrendSection, DrawsWhatHistoryJsonWritesOfSimulatedSessions) {
  std::mt19937_64 rng(11);
  gate::sim::Layout l;
  l.cpus = 1;
  l.locks = 1;
  l.cyclic_samples = 5'000;
  l.lock_samples = 2'000;
  gate::sim::World w;
  w.session_sigma = 0.05;
  gate::sim::Change tripled;
  tripled.suite = "cyclic";
  tripled.case_name = "cpu0";
  tripled.metric = "wakeup_latency";
  tripled.latency_factor = 3;
  gate::HistoryBuilder builder{gate::Policy{}};
  for (int i = 0; i < 12; ++i) {
    RunReport r = gate::sim::session(rng, l, w, 3, i >= 8 ? tripled : gate::sim::Change{});
    r.started_at = gate::sim::sim_time(3600 * i);
    r.environment.kernel_release = i < 8 ? kOld : kNew;
    ASSERT_EQ(builder.add(r, "s" + std::to_string(i)), "");
  }
  const gate::History history = builder.finish();
  const ordered_json j = history_json(history, gate::judge_history(history, gate::Policy{}));
  std::set<std::tuple<std::string, std::string, std::string>> metrics;
  std::vector<int> sessions;  // per series, in document order
  bool changed = false;
  for (const ordered_json& s : j["series"]) {
    metrics.insert({s["suite"].get<std::string>(), s["case"].get<std::string>(),
                    s["metric"].get<std::string>()});
    sessions.push_back(static_cast<int>(s["sessions"].size()));
    changed = changed || (s["metric"] == "wakeup_latency" && s["case"] == "cpu0" &&
                          !s["change_points"].empty());
  }
  ASSERT_TRUE(changed) << j.dump(1).substr(0, 4000);
  const std::string section = trend_section(j);
  const std::vector<std::string> charts = charts_of(section);
  ASSERT_EQ(charts.size(), metrics.size());
  int points = 0, expected = 0;
  for (const std::string& c : charts) {
    for (const int p : points_of(c)) points += p;
  }
  for (const int n : sessions) expected += n;
  EXPECT_EQ(points, expected);
  EXPECT_GE(count_of(section, "class=\"m c3 d\""), 1);
  EXPECT_NE(section.find("<div class=\"banner worse\">"), std::string::npos);
}

}  // namespace
}  // namespace rtgate::html
