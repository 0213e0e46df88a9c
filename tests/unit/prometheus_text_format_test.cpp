// rtgate's exposition writer against prometheus-cpp's TextSerializer on the same
// families: the same series with the same values, in a form promtool accepts (integration test).
#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <map>
#include <random>
#include <sstream>

#include "exporters/prometheus/report_series.h"
#include "exporters/prometheus/text_format.h"
#include "gate/pair/compare.h"
#include "tests/unit/gate_sim.h"

namespace rtgate::prom {
namespace {

// Every sample line as series -> value, labels sorted so that order does not matter.
std::map<std::string, double> samples(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t brace = line.find('{'), space = line.rfind(' ');
    std::string series = line.substr(0, space);
    if (brace != std::string::npos && brace < space) {
      const std::size_t close = line.rfind('}', space);
      std::vector<std::string> labels;
      std::string cur;
      bool quoted = false;
      for (std::size_t i = brace + 1; i < close; ++i) {
        const char c = line[i];
        if (c == '"' && line[i - 1] != '\\') quoted = !quoted;
        if (c == ',' && !quoted) {
          labels.push_back(cur);
          cur.clear();
        } else {
          cur += c;
        }
      }
      labels.push_back(cur);
      std::sort(labels.begin(), labels.end());
      series = line.substr(0, brace) + "{";
      for (const auto& l : labels) series += l + ",";
      // le and quantile values are numbers: normalise their spelling too.
      series += "}";
    }
    EXPECT_TRUE(out.emplace(series, std::stod(line.substr(space + 1))).second) << series;
  }
  return out;
}

TEST(PrometheusTextFormat, SameSeriesAndValuesAsTheLibrarySerializer) {
  std::mt19937_64 rng(5);
  gate::sim::Layout l;
  l.cpus = 3;
  l.locks = 2;
  RunReport r = gate::sim::side(rng, l, 3, {});
  r.environment.hostname = "a \"quoted\" host\\ with\nnewline";
  r.finished_at = "2026-12-02T01:02:03.5Z";
  const gate::GateVerdict g = gate::compare(r, r);
  for (const auto& options : {SeriesOptions{}, SeriesOptions{.bounds_s = bucket_set("standard")},
                              SeriesOptions{.per_case = false}}) {
    const auto families = build_metrics(r, &g, "", options)->Collect();
    const std::string ours = exposition_text(families);
    const std::string theirs = prometheus::TextSerializer().Serialize(families);
    const auto a = samples(ours), b = samples(theirs);
    ASSERT_EQ(a.size(), b.size());
    ASSERT_GT(a.size(), 20u);
    for (const auto& [series, value] : b) {
      const auto it = a.find(series);
      ASSERT_NE(it, a.end()) << series;
      // The library prints 16 significant digits; ours the shortest exact text.
      EXPECT_NEAR(it->second, value, 1e-15 * std::abs(value) + 1e-300) << series;
    }
  }
}

TEST(PrometheusTextFormat, NumbersReadBackExactlyAndSpecialValuesAreSpelledOut) {
  prometheus::MetricFamily f{.name = "x", .help = "a\\b\nc", .type = prometheus::MetricType::Gauge};
  for (double v : {0.1 + 0.2, 1e-300, 123456789.123456789, -0.0, 1.0 / 0.0, -1.0 / 0.0}) {
    prometheus::ClientMetric m;
    m.label = {{"v", std::to_string(f.metric.size())}};
    m.gauge.value = v;
    f.metric.push_back(m);
  }
  const std::string text = exposition_text({f});
  EXPECT_NE(text.find("# HELP x a\\\\b\\nc\n# TYPE x gauge\n"), std::string::npos) << text;
  EXPECT_NE(text.find("x{v=\"0\"} 0.30000000000000004\n"), std::string::npos) << text;
  EXPECT_NE(text.find("x{v=\"1\"} 1e-300\n"), std::string::npos) << text;
  EXPECT_NE(text.find("x{v=\"4\"} +Inf\n"), std::string::npos) << text;
  EXPECT_NE(text.find("x{v=\"5\"} -Inf\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace rtgate::prom
