// rtgate calibrate's arithmetic (gate/calibration/calibration.h) on synthetic A/A results whose
// between-run drift is known: the SD it measures, the detectable changes it states, and the
// policy it writes, read back by the gate's own parser.
#include <gtest/gtest.h>

#include <random>

#include "gate/calibration/calibration.h"
#include "gate/noise/change_estimate.h"
#include "tests/unit/gate_sim.h"

namespace rtgate::gate {
namespace {

const MetricNoise* find(const std::vector<MetricNoise>& noise, const std::string& key) {
  for (const MetricNoise& m : noise) {
    if (m.key() == key) return &m;
  }
  return nullptr;
}

const StatisticNoise* stat(const MetricNoise& m, const std::string& name) {
  for (const StatisticNoise& s : m.stats) {
    if (s.statistic == name) return &s;
  }
  return nullptr;
}

std::vector<MetricNoise> simulate(std::uint64_t seed, int runs, double sigma,
                                  const sim::Layout& layout = {}) {
  std::mt19937_64 rng(seed);
  return measure_noise(sim::side(rng, layout, runs, sim::Drift{.sigma = sigma}), Policy{}, {});
}

TEST(GateCalibrationNoise, MeasuredSdOfTheRunP99IsTheDrift) {
  // One SD from 19 df is within 16% of the truth at one standard error; averaged over both CPUs
  // and five seeds it is within 0.05 of 0.2 by a wide margin.
  double sum = 0;
  int n = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const auto noise = simulate(seed, 20, 0.2);
    for (const char* cpu : {"cpu0", "cpu1"}) {
      const MetricNoise* m = find(noise, std::string("cyclic/") + cpu + "/wakeup_latency");
      ASSERT_NE(m, nullptr);
      const StatisticNoise* p99 = stat(*m, "p99");
      ASSERT_NE(p99, nullptr);
      EXPECT_EQ(p99->df, 19);
      EXPECT_NEAR(p99->sd, 0.2, 0.1) << "seed " << seed << " " << cpu;
      sum += p99->sd;
      ++n;
    }
  }
  EXPECT_NEAR(sum / n, 0.2, 0.05);
}

TEST(GateCalibrationNoise, StatisticsAreTheGatesAndDetectableShrinksWithRuns) {
  const auto noise = simulate(7, 20, 0.2);
  const MetricNoise* m = find(noise, "cyclic/cpu0/wakeup_latency");
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->stats.size(), 3u);
  EXPECT_EQ(m->stats[0].statistic, "p99");
  EXPECT_EQ(m->stats[1].statistic, "p999");
  EXPECT_EQ(m->stats[2].statistic, "max");
  for (const StatisticNoise& s : m->stats) {
    EXPECT_GT(s.detectable[0], s.detectable[1]) << s.statistic;
    EXPECT_GT(s.detectable[1], s.detectable[2]) << s.statistic;
    EXPECT_GT(s.detectable[2], 1) << s.statistic;
    EXPECT_EQ(s.supported_floor_pct, std::ceil(s.supported_floor_pct)) << s.statistic;
  }
  // At 10 runs a side, the level the gate tests one of three statistics at.
  const StatisticNoise& p99 = m->stats[0];
  const double a = 0.05 / 100 / 3;
  EXPECT_NEAR(p99.detectable[1],
              std::exp((t_critical(a, 18) + t_critical(0.1, 18)) * p99.sd * std::sqrt(0.2)), 1e-9);
}

TEST(GateCalibrationNoise, NoisierHostSupportsOnlyWiderFloors) {
  const MetricNoise* quiet = nullptr;
  const MetricNoise* noisy = nullptr;
  const auto q = simulate(3, 20, 0.05);
  const auto n = simulate(3, 20, 0.4);
  quiet = find(q, "cyclic/cpu0/wakeup_latency");
  noisy = find(n, "cyclic/cpu0/wakeup_latency");
  ASSERT_NE(quiet, nullptr);
  ASSERT_NE(noisy, nullptr);
  EXPECT_LT(stat(*quiet, "p99")->supported_floor_pct, stat(*noisy, "p99")->supported_floor_pct);
  // sd 0.4 at 10 runs a side: (t(0.05, 18) + t(0.05, 18)) * 0.4 * sqrt(0.2) is about 0.62.
  EXPECT_GT(stat(*noisy, "p99")->supported_floor_pct, 50);
}

TEST(GateCalibrationNoise, EventCountsGetARateAndOverdispersion) {
  const auto poisson = simulate(11, 20, 0.1);
  const MetricNoise* missed = find(poisson, "cyclic/cpu0/missed_periods");
  ASSERT_NE(missed, nullptr);
  EXPECT_TRUE(missed->event_count);
  EXPECT_NEAR(missed->rate_per_run, 0.5, 0.35);
  EXPECT_GE(missed->phi, 1);
  ASSERT_EQ(missed->stats.size(), 1u);
  EXPECT_EQ(missed->stats[0].statistic, "rate");
  EXPECT_GT(missed->stats[0].detectable[0], missed->stats[0].detectable[2]);
  EXPECT_GT(missed->stats[0].detectable[2], 0);
  EXPECT_NE(find(poisson, "cyclic/cpu1/overruns"), nullptr);

  // Bursts of ~8 missed periods in a third of the runs: far burstier than Poisson.
  const auto bursty = simulate(11, 20, 0.1, {.burst_share = 0.3, .burst = 8});
  const MetricNoise* b = find(bursty, "cyclic/cpu0/missed_periods");
  ASSERT_NE(b, nullptr);
  EXPECT_GT(b->phi, 2);
  EXPECT_GT(b->stats[0].supported_floor_pct, missed->stats[0].supported_floor_pct);
}

TEST(GateCalibrationNoise, OnlyGatedMetricsOfPassedSuites) {
  std::mt19937_64 rng(5);
  RunReport r = sim::side(rng, {.locks = 1}, 6, {.sigma = 0.1});
  auto noise = measure_noise(r, Policy{}, {});
  EXPECT_NE(find(noise, "lock.latency/lock0/nonrt_throughput"), nullptr);
  EXPECT_EQ(find(noise, "lock.latency/lock0/nonrt_fairness_cv"), nullptr);  // a %, not gated
  r.suites[1].status = SuiteStatus::kFailed;
  noise = measure_noise(r, Policy{}, {});
  EXPECT_EQ(find(noise, "lock.latency/lock0/nonrt_throughput"), nullptr);
  EXPECT_NE(find(noise, "cyclic/cpu0/wakeup_latency"), nullptr);
  // One run tells nothing about the spread between runs.
  EXPECT_TRUE(simulate(5, 1, 0.1).empty());
}

TEST(GateCalibrationNoise, PolicyParsesBackAndResolvesToThePrior) {
  std::mt19937_64 rng(9);
  RunReport r = sim::side(rng, {.locks = 1}, 12, {.sigma = 0.3});
  r.suites[1].cases[0].name = "odd: case #1";  // must be quoted in YAML
  const CalibrationOptions o;
  const auto noise = measure_noise(r, Policy{}, o);
  const std::string yaml = calibrated_policy_yaml(noise, Policy{}, o, "host test\n\nkernel 6.1");
  Policy p;
  ASSERT_NO_THROW(p = parse_policy(yaml, "calibrated")) << yaml;
  EXPECT_EQ(yaml.rfind("# host test\n#\n# kernel 6.1\n", 0), 0u) << yaml;

  const MetricNoise& wakeup = *find(noise, "cyclic/cpu1/wakeup_latency");
  const MetricPolicy mp = resolve(p, "cyclic", "cpu1", "wakeup_latency", true);
  ASSERT_TRUE(mp.prior.has_value()) << yaml;
  EXPECT_EQ(mp.prior->df, 11);
  for (const StatisticNoise& s : wakeup.stats) {
    ASSERT_EQ(mp.prior->sd.count(s.statistic), 1u) << s.statistic;
    EXPECT_NEAR(mp.prior->sd.at(s.statistic), s.sd, s.sd * 1e-3) << s.statistic;
  }
  const double quantile_floor =
      std::max(wakeup.stats[0].supported_floor_pct, wakeup.stats[1].supported_floor_pct);
  EXPECT_EQ(mp.latency_noise_floor_pct, std::max(10.0, quantile_floor));
  EXPECT_EQ(mp.max_noise_floor_pct, std::max(25.0, wakeup.stats[2].supported_floor_pct));
  // Another case's entry does not leak into this one.
  EXPECT_NE(resolve(p, "cyclic", "cpu0", "wakeup_latency", true).prior->sd.at("p99"),
            mp.prior->sd.at("p99"));

  const MetricPolicy tput = resolve(p, "lock.latency", "odd: case #1", "nonrt_throughput", true);
  ASSERT_TRUE(tput.prior.has_value()) << yaml;
  EXPECT_EQ(tput.prior->sd.count("value"), 1u);
  EXPECT_GE(tput.noise_floor_pct, 5);

  const MetricPolicy missed = resolve(p, "cyclic", "cpu0", "missed_periods", true);
  EXPECT_FALSE(missed.prior.has_value());
  EXPECT_GE(missed.count_floor_per_run, 1);
}

TEST(GateCalibrationNoise, FloorsNeverBelowTheDefaults) {
  const auto noise = simulate(2, 20, 0.01);
  Policy defaults;
  defaults.latency_noise_floor_pct = 33;
  defaults.count_floor_per_run = 4;
  const Policy p = parse_policy(calibrated_policy_yaml(noise, defaults, {}, ""));
  EXPECT_EQ(resolve(p, "cyclic", "cpu0", "wakeup_latency", true).latency_noise_floor_pct, 33);
  EXPECT_EQ(resolve(p, "cyclic", "cpu0", "overruns", true).count_floor_per_run, 4);
}

}  // namespace
}  // namespace rtgate::gate
