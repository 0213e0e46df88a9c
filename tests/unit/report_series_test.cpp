#include "exporters/prometheus/report_series.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "exporters/prometheus/pushgateway.h"
#include "exporters/prometheus/report_text.h"
#include "gate/pair/compare.h"

namespace rtgate::prom {
namespace {

// Each value alone: the classic bucket it lands in holds it (never low), and is at most the one
// above the true bucket, which happens only when the fine bucket straddles the boundary.
TEST(ReportSeries, ClassicBucketsNeverUnderstateALatency) {
  const std::vector<double>& bounds = latency_bucket_bounds();
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> log_ns(std::log(100.0), std::log(5e8));
  for (int i = 0; i < 20000; ++i) {
    const auto v = static_cast<std::int64_t>(std::exp(log_ns(rng)));
    LatencyHistogram h;
    h.record(v);
    const std::vector<double> c = classic_bucket_counts(h, bounds);
    ASSERT_EQ(c.size(), bounds.size() + 1);
    const auto at = static_cast<std::size_t>(std::find(c.begin(), c.end(), 1.0) - c.begin());
    const double vs = static_cast<double>(v) / 1e9;
    if (at < bounds.size()) {
      EXPECT_LE(vs, bounds[at] * (1 + 1e-12)) << v;
    }
    std::size_t truth = 0;
    while (truth < bounds.size() && vs > bounds[truth]) ++truth;
    EXPECT_GE(at, truth) << v;
    EXPECT_LE(at, truth + 1) << v;
  }
  // Exact edges: 999 ns is certainly <= 1 us; 1000 ns shares a fine bucket with 1007 ns, so it
  // counts under 2 us; 150 ms and overflow go to +Inf.
  LatencyHistogram h;
  for (std::int64_t v : {999, 1000, 1001, 150'000'000}) h.record(v);
  const std::vector<double> c = classic_bucket_counts(h, bounds);
  EXPECT_EQ(c[0], 1);
  EXPECT_EQ(c[1], 2);
  EXPECT_EQ(c.back(), 1);
}

TEST(ReportSeries, CaseLabelNamesAreValidAndNeverShadowOurs) {
  EXPECT_EQ(case_label_name("cpu"), "cpu");
  EXPECT_EQ(case_label_name("thread_class"), "thread_class");
  EXPECT_EQ(case_label_name("host"), "case_host");
  EXPECT_EQ(case_label_name("le"), "case_le");
  EXPECT_EQ(case_label_name("quantile"), "case_quantile");
  EXPECT_EQ(case_label_name("my-label.x"), "my_label_x");
  EXPECT_EQ(case_label_name("1st"), "_1st");
  EXPECT_EQ(case_label_name("__name__"), "case___name__");
}

RunReport sample_report() {
  RunReport r;
  r.tool_version = "9.9.9";
  r.finished_at = "2026-11-29T12:00:00.500Z";
  r.environment.hostname = "lab7";
  r.environment.kernel_release = "6.6.0-rt15";
  r.environment.preempt_model = "rt";
  SuiteResult s;
  s.name = "cyclic";
  s.duration_s = 3;
  Case c;
  c.name = "cpu0";
  c.labels = {{"cpu", "0"}};
  LatencyHistogram h;
  for (std::int64_t v : {2000, 4000, 6000, 8000}) h.record(v);
  c.metrics.push_back(Metric::latency("wakeup_latency", h, {8000}));
  c.metrics.push_back(Metric::throughput("ops", "ops/s", 1234.5));
  c.metrics.push_back(Metric::count("overruns", 2, "wakeups", Metric::Gating::kEventRate));
  s.cases.push_back(c);
  r.suites.push_back(s);
  return r;
}

bool has_line(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

TEST(ReportSeries, TextCarriesTheFamiliesOfMetricsMd) {
  const RunReport r = sample_report();
  const std::string text = build_text(r).str();
  const std::string id =
      R"(host="lab7",kernel_release="6.6.0-rt15",case="cpu0",cpu="0",metric="wakeup_latency",suite="cyclic")";
  EXPECT_TRUE(has_line(text, "rtgate_latency_seconds_count{" + id + "} 4")) << text;
  EXPECT_TRUE(has_line(text, "rtgate_latency_seconds_sum{" + id + "} 2e-05")) << text;
  EXPECT_TRUE(has_line(text, "rtgate_latency_seconds_bucket{" + id + R"(,le="+Inf"} 4)")) << text;
  // The default (coarse) buckets start at 10 us: all four samples are in the first.
  EXPECT_TRUE(has_line(text, "rtgate_latency_seconds_bucket{" + id + R"(,le="1e-05"} 4)")) << text;
  const std::string standard =
      build_text(r, nullptr, "", {.bounds_s = latency_bucket_bounds()}).str();
  EXPECT_TRUE(has_line(standard, "rtgate_latency_seconds_bucket{" + id + R"(,le="5e-06"} 2)"))
      << standard;
  EXPECT_TRUE(has_line(text, "rtgate_latency_max_seconds{" + id + "} 8e-06")) << text;
  EXPECT_NE(text.find("# TYPE rtgate_latency_quantile_seconds summary"), std::string::npos);
  EXPECT_NE(text.find(R"(quantile="0.999"} 8)"), std::string::npos) << text;
  EXPECT_NE(
      text.find(R"(rtgate_throughput{host="lab7",kernel_release="6.6.0-rt15",case="cpu0",cpu="0")"),
      std::string::npos);
  EXPECT_NE(text.find(R"(unit="ops/s"} 1234.5)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(unit="wakeups"} 2)"), std::string::npos) << text;
  EXPECT_TRUE(has_line(
      text,
      R"(rtgate_suite_status{host="lab7",kernel_release="6.6.0-rt15",status="passed",suite="cyclic"} 1)"))
      << text;
  EXPECT_TRUE(has_line(
      text,
      R"(rtgate_suite_status{host="lab7",kernel_release="6.6.0-rt15",status="error",suite="cyclic"} 0)"));
  EXPECT_TRUE(has_line(
      text,
      R"(rtgate_run_info{host="lab7",kernel_release="6.6.0-rt15",preempt_model="rt",version="9.9.9"} 1)"))
      << text;
  EXPECT_TRUE(has_line(
      text,
      R"(rtgate_run_timestamp_seconds{host="lab7",kernel_release="6.6.0-rt15",suite="cyclic"} 1795953600.5)"))
      << text;
  // No gate ran: the verdict families have no series.
  EXPECT_EQ(text.find("rtgate_verdict{"), std::string::npos);
}

TEST(ReportSeries, VerdictsAreAStateSetWhenAGateRan) {
  const RunReport r = sample_report();
  const gate::GateVerdict g = gate::compare(r, r);
  const std::string text = build_text(r, &g).str();
  // One run a side: the gate cannot tell (inconclusive); the state set says so and only so.
  const gate::MetricVerdict* w = nullptr;
  for (const auto& m : g.suites[0].metrics) {
    if (m.metric == "wakeup_latency") w = &m;
  }
  ASSERT_NE(w, nullptr);
  ASSERT_NE(w->verdict, gate::Verdict::kRegressed);
  EXPECT_NE(text.find(R"(metric="wakeup_latency",suite="cyclic",verdict=")" +
                      std::string(gate::to_string(w->verdict)) + "\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(metric="wakeup_latency",suite="cyclic",verdict="regressed"} 0)"),
            std::string::npos);
  EXPECT_NE(
      text.find(
          R"(rtgate_suite_verdict{host="lab7",kernel_release="6.6.0-rt15",suite="cyclic",verdict=")" +
          std::string(gate::to_string(g.suites[0].verdict)) + "\"} 1"),
      std::string::npos)
      << text;
}

// What the gate decided also travels as numbers: each gated metric's change and its interval,
// on the scale the verdict states them.
TEST(ReportSeries, AGatesChangeAndItsIntervalAreSeries) {
  const RunReport r = sample_report();
  RunReport slower = r;
  for (Case& c : slower.suites[0].cases) {
    for (Metric& m : c.metrics) {
      if (m.kind == MetricKind::kThroughput) {
        for (double& v : m.samples) v *= 0.5;
      }
    }
  }
  const gate::GateVerdict g = gate::compare(r, slower);
  std::map<std::string, double> got;
  for (const auto& f : build_metrics(slower, &g, "", {})->Collect()) {
    if (f.name != "rtgate_gate_change") continue;
    for (const auto& m : f.metric) {
      std::string key;
      for (const auto& l : m.label) {
        if (l.name != "host" && l.name != "kernel_release") key += l.name + "=" + l.value + ",";
      }
      got[key] = m.gauge.value;
    }
  }
  int checked = 0;
  for (const gate::MetricVerdict& m : g.suites[0].metrics) {
    if (!m.gated || !std::isfinite(m.effect)) continue;
    for (const auto& [bound, v] :
         {std::pair{"estimate", m.effect}, {"low", m.effect_low}, {"high", m.effect_high}}) {
      // The labels in name order, as the series carry them.
      const std::string key = "bound=" + std::string(bound) + ",case=" + m.case_name +
                              ",metric=" + m.metric +
                              ",scale=" + (m.ratio ? "ratio" : "difference") +
                              ",statistic=" + m.statistic + ",suite=" + m.suite + ",";
      ASSERT_TRUE(got.contains(key)) << key;
      EXPECT_DOUBLE_EQ(got[key], v) << key;
      ++checked;
    }
    if (m.metric == "ops") {
      EXPECT_NEAR(m.effect, 0.5, 1e-9);
    }
  }
  EXPECT_GE(checked, 3);
  EXPECT_EQ(static_cast<int>(got.size()), checked);
}

TEST(ReportSeries, OnlySuiteSelectsOneGroup) {
  RunReport r = sample_report();
  r.suites.push_back(r.suites[0]);
  r.suites[1].name = "other";
  const std::string text = build_text(r, nullptr, "other").str();
  EXPECT_EQ(text.find(R"(suite="cyclic")"), std::string::npos);
  EXPECT_NE(text.find(R"(suite="other")"), std::string::npos);
}

TEST(PushUrl, AcceptsGatewayAddressesAndSaysWhatIsWrongOtherwise) {
  std::string why;
  auto t = parse_push_url("http://127.0.0.1:9091", &why);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->scheme_host, "http://127.0.0.1");
  EXPECT_EQ(t->port, "9091");
  t = parse_push_url("https://gw.lab/", &why);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->scheme_host, "https://gw.lab");
  EXPECT_EQ(t->port, "9091");
  t = parse_push_url("http://[::1]:19091", &why);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->scheme_host, "http://[::1]");
  EXPECT_EQ(t->port, "19091");
  for (const char* bad :
       {"gw:9091", "ftp://gw:9091", "http://gw:0", "http://gw:65536", "http://gw:http",
        "http://:9091", "http://gw:9091/metrics/job/x", "http://user@gw:9091"}) {
    why.clear();
    EXPECT_FALSE(parse_push_url(bad, &why)) << bad;
    EXPECT_NE(why.find(bad), std::string::npos) << why;
  }
}

}  // namespace
}  // namespace rtgate::prom
