// The HTML report (exporters/html): its SVG charts carry every data point they are given and stay
// inside their plot, the page references nothing outside itself, every internal link has its
// target, a regression is listed first and its case opens, text is escaped, and a 1,000-case
// result with a baseline stays under the 20 MB the issue allows. (Rendering in a real browser:
// tests/integration/report_browser_test.cpp.)
#include "exporters/html/html_report.h"

#include <gtest/gtest.h>

#include <random>
#include <regex>
#include <set>
#include <string>

#include "exporters/html/html_text.h"
#include "exporters/html/svg_chart.h"
#include "gate/pair/compare.h"
#include "tests/unit/gate_sim.h"

namespace rtgate::html {
namespace {

// The d attribute of the histogram path labelled `label`.
std::string path_of(const std::string& svg, const std::string& label) {
  const std::regex re("data-label=\"" + label + "\" data-points=\"([0-9]+)\" d=\"([^\"]*)\"");
  std::smatch m;
  if (!std::regex_search(svg, m, re)) return "";
  return m[2];
}

int count_of(const std::string& s, const std::string& what) {
  int n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(SvgTicks, DecadesOnALogAxisFineStepsOnShortOnesAndNiceLinearSteps) {
  EXPECT_EQ(ticks(1e3, 1e7, true), (std::vector<double>{1e3, 1e4, 1e5, 1e6, 1e7}));
  EXPECT_EQ(ticks(1, 50, true), (std::vector<double>{1, 2, 5, 10, 20, 50}));
  EXPECT_EQ(ticks(1, 100, true), (std::vector<double>{1, 10, 100}));
  EXPECT_EQ(ticks(0, 97, false), (std::vector<double>{0, 20, 40, 60, 80}));
  EXPECT_TRUE(ticks(5, 5, false).empty());
  EXPECT_TRUE(ticks(-1, 10, true).empty());  // a log axis cannot start at or below 0
}

// Labels from a result from elsewhere (threads=1e17 and 1e17+16): a step below the values'
// precision, which a loop adding it would never leave.
TEST(SvgTicks, AStepBelowTheValuesPrecisionEnds) {
  const std::vector<double> t = ticks(1e17, 1e17 + 16, false);
  EXPECT_FALSE(t.empty());
  EXPECT_LE(t.size(), 12u);
  EXPECT_LE(ticks(-1e300, 1e300, false).size(), 12u);
}

TEST(SvgHistogram, CountsEveryNonEmptyBarAndDrawsInsideThePlot) {
  BarSeries s{"current", 0, false, {}};
  for (int i = 0; i < 40; ++i) {
    const double lo = 1000.0 * std::pow(1.1, i);
    s.bars.push_back({lo, lo * 1.1, i % 5 == 0 ? 0.0 : 1.0 + i * i});  // every fifth empty
  }
  ChartFrame f;
  f.title = "t";
  f.x.log = f.y.log = true;
  const std::string svg = histogram_chart(f, {s}, {{5000, "p99 5 us", 0, false, "p99"}});
  EXPECT_NE(svg.find("data-points=\"32\""), std::string::npos) << svg;
  const std::string d = path_of(svg, "current");
  ASSERT_FALSE(d.empty());
  // Path coordinates alternate x and y after M; V carries a y, H an x: check all are in the
  // frame (x in [64, 616], y in [36, 222] for the default 640 x 260 frame).
  const std::regex cmd(R"(([MVH])(-?[0-9]+)(?: (-?[0-9]+))?)");
  int verticals = 0;
  for (auto it = std::sregex_iterator(d.begin(), d.end(), cmd); it != std::sregex_iterator();
       ++it) {
    const std::string c = (*it)[1];
    const double a = std::stod((*it)[2]);
    if (c == "H" || c == "M") {
      EXPECT_GE(a, 64);
      EXPECT_LE(a, 616);
    }
    if (c == "V") {
      ++verticals;
      EXPECT_GE(a, 36);
      EXPECT_LE(a, 222);
    }
  }
  EXPECT_GE(verticals, 32);  // at least one rise per non-empty bar that follows a gap or a step
  EXPECT_NE(svg.find("<title>p99 5 us</title>"), std::string::npos);
}

TEST(SvgHistogram, ThousandsOfBarsCostAboutOnePathStepPerPixelColumn) {
  BarSeries s{"many", 0, false, {}};
  for (int i = 0; i < 5000; ++i) {
    const double lo = 100.0 + i;
    s.bars.push_back({lo, lo + 1, 1.0 + (i * 7919) % 1000});
  }
  ChartFrame f;
  f.x.log = f.y.log = true;
  const std::string svg = histogram_chart(f, {s}, {});
  EXPECT_NE(svg.find("data-points=\"5000\""), std::string::npos);
  EXPECT_LE(count_of(path_of(svg, "many"), "H"), 640);  // the frame is 640 px wide
}

TEST(SvgLineChart, OneMarkerPerFinitePointAndALogAxisSkipsNonPositiveValues) {
  Series a{"a", 0, false, {{1, 10}, {2, 20}, {3, NAN}}};
  Series b{"b", 1, true, {{1, 0}, {2, 5}}, false, false};  // one point left: still a dot
  ChartFrame f;
  f.y.log = true;
  const std::string svg = line_chart(f, {a, b});
  EXPECT_NE(svg.find("class=\"pt c0\" data-points=\"2\""), std::string::npos);    // 2 finite
  EXPECT_NE(svg.find("class=\"pt c1 d\" data-points=\"1\""), std::string::npos);  // 1 positive
  EXPECT_EQ(count_of(svg, "h0"), 3);                                              // one dot a point
  EXPECT_EQ(count_of(svg, "<polyline"), 1);  // b has one point left: no line
  Series c{"c", 2, true, {{1, 1}, {2, 2}, {3, 3}}, false, false};
  const std::string line_only = line_chart(f, {c});
  EXPECT_EQ(count_of(line_only, "h0"), 0);
  EXPECT_NE(line_only.find("<polyline class=\"c2 d\" data-points=\"3\""), std::string::npos);
  EXPECT_EQ(count_of(svg, "class=\"l\""), 1);  // b is out of the legend
}

TEST(HtmlText, EscapesMarkupAndAnchorsOfDifferentNamesDiffer) {
  EXPECT_EQ(escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
  EXPECT_NE(anchor_id("c-", "a/b"), anchor_id("c-", "a.b"));
  EXPECT_NE(anchor_id("c-", "a b"), anchor_id("c-", "a_b"));
  EXPECT_TRUE(
      std::regex_match(anchor_id("c-", "lock.latency/pi mutex<1>"), std::regex("[A-Za-z0-9_-]+")));
}

// A cyclic + lock.latency gate of 5 runs a side; `factor` slows lock1's acquire_latency.
struct Pair {
  RunReport base, cur;
  gate::GateVerdict gate;
};
Pair simulated_pair(int cpus, int locks, double factor, std::uint64_t seed = 7) {
  std::mt19937_64 rng(seed);
  gate::sim::Layout l;
  l.cpus = cpus;
  l.locks = locks;
  Pair p;
  p.base = gate::sim::side(rng, l, 5, {});
  gate::sim::Change c;
  c.suite = "lock.latency";
  c.case_name = "lock1";
  c.metric = "acquire_latency";
  c.latency_factor = factor;
  p.cur = gate::sim::side(rng, l, 5, {}, c);
  p.gate = gate::compare(p.base, p.cur);
  return p;
}

TEST(HtmlReport, ReferencesNothingOutsideThePage) {
  const Pair p = simulated_pair(2, 2, 1);
  const std::string html = render_report(p.cur, &p.base, &p.gate);
  EXPECT_NE(html.find("Content-Security-Policy\" content=\"default-src 'none'"), std::string::npos);
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

TEST(HtmlReport, EveryInternalLinkHasItsTargetAndEveryIdIsUnique) {
  const Pair p = simulated_pair(2, 3, 3);
  const std::string html = render_report(p.cur, &p.base, &p.gate);
  std::set<std::string> ids;
  const std::regex id_re("id=\"([^\"]+)\"");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), id_re);
       it != std::sregex_iterator(); ++it) {
    EXPECT_TRUE(ids.insert((*it)[1]).second) << "duplicate id " << (*it)[1];
  }
  const std::regex href_re("href=\"#([^\"]+)\"");
  int links = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), href_re);
       it != std::sregex_iterator(); ++it, ++links) {
    EXPECT_TRUE(ids.count((*it)[1])) << "link to a missing #" << (*it)[1];
  }
  EXPECT_GT(links, 10);
}

TEST(HtmlReport, ARegressionIsListedFirstAndItsCaseStartsOpen) {
  const Pair p = simulated_pair(2, 6, 3);
  ASSERT_EQ(p.gate.overall, gate::Verdict::kRegressed);
  const std::string html = render_report(p.cur, &p.base, &p.gate);
  EXPECT_NE(html.find("class=\"banner regressed\""), std::string::npos);
  // The first row of the "not unchanged" table is the regressed metric.
  const std::size_t table = html.find("Metrics that are not unchanged");
  ASSERT_NE(table, std::string::npos);
  const std::size_t row = html.find("<tbody><tr", table);
  EXPECT_EQ(html.compare(row + 7, 25, "<tr class=\"v-regressed\"><"), 0) << html.substr(row, 80);
  EXPECT_NE(html.find("acquire_latency", row), std::string::npos);
  // lock1's case section is open, an unchanged case of the same (6-case) suite is not.
  const std::regex open_case(
      "<details class=\"case-d\"( open)?><summary><span class=\"case\" id=\"case-lock-2Elatency-2F"
      "(lock[0-9])\"");
  std::map<std::string, bool> open;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), open_case);
       it != std::sregex_iterator(); ++it) {
    open[(*it)[2]] = (*it)[1].matched;
  }
  ASSERT_EQ(open.size(), 6u);
  EXPECT_TRUE(open["lock1"]);
  EXPECT_FALSE(open["lock0"]);
}

TEST(HtmlReport, TextFromTheResultIsEscaped) {
  Pair p = simulated_pair(1, 0, 1);
  p.cur.suites[0].cases[0].name = "<script>alert(1)</script>";
  p.cur.environment.cmdline = "quiet \"<b>\"";
  const std::string html = render_report(p.cur, nullptr, nullptr);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("quiet &quot;&lt;b&gt;&quot;"), std::string::npos);
  EXPECT_NE(html.find("No baseline"), std::string::npos);
}

// The issue's bound: a 1,000-case result (here 200 cyclic CPUs and 800 locks, 2,600 latency
// histograms a side) with its baseline renders under 20 MB. (Its time is a benchmark's figure:
// tests/bench/bench_report.cpp.)
TEST(HtmlReport, AThousandCaseResultWithItsBaselineStaysUnder20MB) {
  const Pair p = simulated_pair(200, 800, 1.5);
  const std::string html = render_report(p.cur, &p.base, &p.gate);
  std::printf("1000 cases with a baseline: %.2f MB\n", static_cast<double>(html.size()) / 1e6);
  EXPECT_LT(html.size(), 20'000'000u);
  EXPECT_EQ(count_of(html, "<details class=\"case-d\""), 1000);
}

}  // namespace
}  // namespace rtgate::html
