// A gate's session noise from a history in Prometheus is the noise the same results give as
// files: the history's copy of a baseline is not counted twice, the current session is left out,
// sessions of another host are not the board's, and a boot's processes are one session.
#include "gate/pair/prometheus_noise.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "base/text/rfc3339.h"
#include "tests/unit/gate_sim_world.h"

namespace rtgate::gate {
namespace {

std::string boot_id(int i) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-0000-4000-8000-%012x", 0x1000 + i, i);
  return buf;
}

// What the exporter puts into Prometheus of `r` (rtgate_history_point and its parts), as the
// reader hands it over; the series of `set` made at first sight, as the reader's are.
PrometheusSession as_exported(const RunReport& r, PrometheusSeriesSet& set) {
  NoiseModel::Points points;
  add_session_points(r, 0, Policy{}, points);
  PrometheusSession s{
      .key = "",
      .host = r.environment.hostname,
      .kernel = r.environment.kernel_release,
      .boot = prometheus_boot(r.environment.hostname, *boot_number(r.environment.boot_id)),
      .ts = *text::unix_seconds(r.finished_at),
      .contaminated = false,
      .values = {}};
  for (const auto& [key, groups] : points) {
    const auto& [suite, case_name, metric, statistic] = key;
    const std::string joined = suite + '\x1f' + case_name + '\x1f' + metric + '\x1f' + statistic;
    auto at = std::find(set.keys.begin(), set.keys.end(), joined);
    if (at == set.keys.end()) {
      SuiteResult& sr = set.suites.emplace_back();
      sr.name = suite;
      sr.cases.emplace_back().name = case_name;
      sr.cases[0].metrics.emplace_back().name = metric;
      set.keys.push_back(joined);
      set.statistics.push_back(statistic);
      at = set.keys.end() - 1;
    }
    const auto i = static_cast<std::size_t>(at - set.keys.begin());
    if (s.values.size() <= i) s.values.resize(i + 1, {NAN, NAN, NAN, NAN});
    const SessionPoint& p = groups.at(0).front();
    s.values[i] = {p.mean, p.mean_var, p.spread_ss, p.spread_df};
  }
  return s;
}

struct Board {
  std::vector<RunReport> results;
  PrometheusSeriesSet set;
};

// 12 sessions of host "sim", the last two processes of one boot; the last is the current.
Board board(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  sim::Layout l;
  l.cpus = 1;
  sim::World w;
  w.session_sigma = 0.1;
  Board b;
  b.results = sim::history(rng, l, w, 12, 3);
  for (std::size_t i = 0; i < b.results.size(); ++i) {
    b.results[i].environment.boot_id = boot_id(static_cast<int>(std::min<std::size_t>(i, 10)));
    b.results[i].environment.pid = 100 + static_cast<int>(i);
  }
  return b;
}

TEST(PrometheusNoise, LearnsWhatTheSameResultsAsFilesTeach) {
  Board b = board(7);
  const RunReport& base = b.results[8];
  const RunReport& cur = b.results.back();
  PrometheusNoise from_prometheus;
  from_prometheus.expect(Policy{}, base);
  for (const RunReport& r : b.results) from_prometheus.take(as_exported(r, b.set), b.set);
  RunReport elsewhere = b.results[3];
  elsewhere.environment.hostname = "other";
  from_prometheus.take(as_exported(elsewhere, b.set), b.set);

  // As files: the baseline, and the history but the current (gate/pair/baseline_sessions.cpp).
  std::vector<const RunReport*> files{&base};
  for (std::size_t i = 0; i + 1 < b.results.size(); ++i) files.push_back(&b.results[i]);
  const NoiseModel want = NoiseModel::from_sessions(files, Policy{});
  const NoiseModel got = from_prometheus.model({&base}, cur, Policy{});

  EXPECT_EQ(got.sessions(), want.sessions());
  EXPECT_EQ(got.sessions(), 11);  // boots 0-10; the current's boot has the one before it
  ASSERT_FALSE(want.known().empty());
  ASSERT_EQ(got.known().size(), want.known().size());
  for (const auto& [key, noise] : want.known()) {
    const SessionNoise& g = got.known().at(key);
    EXPECT_EQ(g.source, noise.source);
    EXPECT_DOUBLE_EQ(g.tau_sq, noise.tau_sq) << std::get<3>(key);
    EXPECT_DOUBLE_EQ(g.tau_df, noise.tau_df);
    EXPECT_DOUBLE_EQ(g.run_var, noise.run_var);
    EXPECT_DOUBLE_EQ(g.run_df, noise.run_df);
  }
  EXPECT_EQ(from_prometheus.describe(),
            " (--prometheus: 12 of 13 sessions on the baseline's host)");
}

TEST(PrometheusNoise, OnlyTheBaselinesStatisticsAreKept) {
  Board b = board(8);
  RunReport base = b.results[0];
  base.suites.resize(1);
  base.suites[0].cases.resize(1);
  PrometheusNoise noise;
  noise.expect(Policy{}, base);
  for (const RunReport& r : b.results) noise.take(as_exported(r, b.set), b.set);
  const NoiseModel m = noise.model({&base}, b.results.back(), Policy{});
  ASSERT_FALSE(m.known().empty());
  for (const auto& [key, n] : m.known()) {
    EXPECT_EQ(std::get<0>(key), base.suites[0].name);
    EXPECT_EQ(std::get<1>(key), base.suites[0].cases[0].name);
  }
}

}  // namespace
}  // namespace rtgate::gate
