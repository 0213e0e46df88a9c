// Which series a result becomes: the bucket sets and lists of --prom-buckets, and
// --prom-cases suite's fixed series per suite.
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "exporters/prometheus/report_series.h"
#include "exporters/prometheus/report_text.h"
#include "exporters/prometheus/series_options.h"
#include "gate/pair/compare.h"
#include "tests/unit/gate_sim.h"

namespace rtgate::prom {
namespace {

std::size_t series(const std::string& text, const std::string& prefix = "") {
  std::size_t n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#' && line.rfind(prefix, 0) == 0) ++n;
  }
  return n;
}

RunReport lab(int cpus, int locks) {
  std::mt19937_64 rng(11);
  gate::sim::Layout l;
  l.cpus = cpus;
  l.locks = locks;
  RunReport r = gate::sim::side(rng, l, 3, {});
  r.environment.hostname = "board";
  return r;
}

TEST(PrometheusSeriesOptions, NamedSetsAndListsParse) {
  std::string why;
  EXPECT_EQ(parse_buckets("coarse", &why)->size(), 7u);
  EXPECT_EQ(parse_buckets("standard", &why)->size(), 16u);
  EXPECT_EQ(*parse_buckets("standard", &why), latency_bucket_bounds());
  EXPECT_EQ(parse_buckets("fine", &why)->size(), 51u);
  EXPECT_TRUE(parse_buckets("none", &why)->empty());
  const auto list = parse_buckets("500ns,20us,1.5ms,2s", &why);
  ASSERT_TRUE(list) << why;
  EXPECT_EQ(*list, (std::vector<double>{5e-7, 2e-5, 1.5e-3, 2}));
  for (const char* bad :
       {"", "20", "20us,10us", "20us,20us", "-1us", "1us,,2us", "nanus", "coarse,1ms", "1e999s"}) {
    why.clear();
    EXPECT_FALSE(parse_buckets(bad, &why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
  EXPECT_FALSE(parse_series_options("", "some", &why));
  EXPECT_NE(why.find("--prom-cases"), std::string::npos);
  EXPECT_FALSE(parse_series_options("1us,x", "all", &why));
  EXPECT_NE(why.find("--prom-buckets"), std::string::npos);
}

TEST(PrometheusSeriesOptions, EachBucketSetGivesItsSeriesPerLatencyMetric) {
  const RunReport r = lab(4, 0);  // cyclic: 4 wakeup_latency metrics
  const auto count = [&](const std::string& buckets) {
    std::string why;
    const auto o = parse_series_options(buckets, "all", &why);
    return series(build_text(r, nullptr, "", *o).str(), "rtgate_latency_seconds");
  };
  // le bounds + Inf, _sum and _count per metric.
  EXPECT_EQ(count("coarse"), 4u * (7 + 1 + 2));
  EXPECT_EQ(count("standard"), 4u * (16 + 1 + 2));
  EXPECT_EQ(count("none"), 0u);
  // The exact quantiles and max stay whatever the buckets.
  std::string why;
  const std::string none =
      build_text(r, nullptr, "", *parse_series_options("none", "all", &why)).str();
  EXPECT_EQ(series(none, "rtgate_latency_max_seconds"), 4u);
  EXPECT_EQ(series(none, "rtgate_latency_quantile_seconds"), 4u * (5 + 2));
  // The default is the coarse set.
  EXPECT_EQ(series(build_text(r).str(), "rtgate_latency_seconds"), count("coarse"));
}

TEST(PrometheusSeriesOptions, SuiteModeKeepsAFixedNumberOfSeriesWithTheWorstCase) {
  std::string why;
  const SeriesOptions suite_only = *parse_series_options("", "suite", &why);
  const std::string small = build_text(lab(4, 3), nullptr, "", suite_only).str();
  const std::string large = build_text(lab(64, 40), nullptr, "", suite_only).str();
  EXPECT_EQ(series(small), series(large));  // whatever the number of cases
  EXPECT_EQ(series(large, "rtgate_latency_seconds"), 0u);
  EXPECT_EQ(series(large, "rtgate_throughput"), 0u);
  // The worst case's figures: cyclic's worst max is the largest max of its CPUs.
  const RunReport r = lab(64, 40);
  std::uint64_t worst = 0;
  for (const Case& c : r.suites[0].cases) {
    worst = std::max(worst, c.find("wakeup_latency")->histogram->max());
  }
  std::ostringstream line;
  line << "rtgate_suite_latency_worst_seconds{host=\"board\",kernel_release=\"6.1.0-rt\","
          "metric=\"wakeup_latency\",quantile=\"1\",suite=\"cyclic\"} ";
  const std::size_t at = large.find(line.str());
  ASSERT_NE(at, std::string::npos) << large.substr(0, 2000);
  EXPECT_NEAR(std::stod(large.substr(at + line.str().size())), static_cast<double>(worst) / 1e9,
              1e-12);
  // Throughput's worst is its lowest case (better = higher).
  double lowest = 1e300;
  for (const Case& c : r.suites[1].cases) {
    lowest = std::min(lowest, SampleSummary::of(c.find("nonrt_throughput")->samples).hmean);
  }
  const std::string tline =
      "rtgate_suite_worst{host=\"board\",kernel_release=\"6.1.0-rt\",metric=\"nonrt_throughput\","
      "suite=\"lock.latency\",unit=\"ops/s\"} ";
  const std::size_t t = large.find(tline);
  ASSERT_NE(t, std::string::npos);
  EXPECT_NEAR(std::stod(large.substr(t + tline.size())), lowest, 1e-6 * lowest);
}

}  // namespace
}  // namespace rtgate::prom
