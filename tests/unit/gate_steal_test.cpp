// Host steal weighed run by run (gate/noise/steal_matching.h): a change on runs that saw
// comparable steal is judged as usual; runs that lost more of their CPU to the host than any run
// of the other side are set aside; a case left without comparable runs is inconclusive and says
// how much steal each side saw.
#include <gtest/gtest.h>

#include <random>

#include "gate/noise/steal_matching.h"
#include "gate/pair/compare.h"
#include "gate_sim.h"

namespace rtgate::gate {
namespace {

constexpr double kRunS = 2;  // each run's length: a share of 10% is 200 ms of steal

// One suite "s", one case "c" on CPU 1, one throughput metric with one value per run, and each
// run's steal on CPU 1 as a share of the run.
RunReport result(std::vector<double> per_run, const std::vector<double>& steal_share) {
  RunReport r;
  r.environment = sim::environment();
  SuiteResult s;
  s.name = "s";
  s.runs = static_cast<int>(per_run.size());
  s.duration_s = kRunS * s.runs;
  s.hygiene.steal_source = "steal clock (test)";
  for (const double share : steal_share) {
    s.hygiene.steal_ms_per_run.push_back({{0, 0.0}, {1, share * kRunS * 1000}});
    s.hygiene.steal_ms_per_cpu[1] += share * kRunS * 1000;
    s.hygiene.steal_ms += share * kRunS * 1000;
  }
  Case c;
  c.name = "c";
  c.labels = {{"cpu", "1"}};
  Metric m = Metric::throughput("ops", "ops/s", 0);
  m.samples = std::move(per_run);
  c.metrics.push_back(std::move(m));
  s.cases.push_back(std::move(c));
  r.suites.push_back(std::move(s));
  return r;
}

std::vector<double> around(double mean, std::uint64_t seed, int n = 5, double cv = 0.02) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(mean, mean * cv);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(d(rng));
  return v;
}

const MetricVerdict& only(const GateVerdict& g) { return g.suites.at(0).metrics.at(0); }

std::string notes(const GateVerdict& g) {
  std::string out;
  for (const std::string& n : g.suites.at(0).notes) out += n + "\n";
  return out;
}

TEST(GateSteal, AChangeOnRunsWithComparableStealIsJudgedAsUsual) {
  // 5-15% of CPU 1 stolen in every run of both sides; current lost 20% of its throughput.
  const RunReport base = result(around(100, 1), {0.05, 0.08, 0.10, 0.12, 0.15});
  const RunReport cur = result(around(80, 2), {0.06, 0.09, 0.11, 0.13, 0.14});
  const GateVerdict g = compare(base, cur);
  EXPECT_EQ(g.overall, Verdict::kRegressed) << only(g).reason << "\n" << notes(g);
  // The baseline's 15% run saw more than any current run: set aside, and said so.
  EXPECT_NE(notes(g).find("1 baseline"), std::string::npos) << notes(g);
  EXPECT_NE(notes(g).find("current runs 6.0%-14.0%"), std::string::npos) << notes(g);
}

TEST(GateSteal, WhatTheStealStillLeftBetweenTheKeptRunsCouldExplainIsInconclusive) {
  // Every current run lost 10-15% of its CPU to the host, no baseline run more than 3%: each
  // side keeps its two least-stolen runs, current's still 8% more stolen than any baseline run.
  // Quiet runs (0.2% apart), so that two runs a side decide.
  const RunReport base = result(around(100, 3, 5, 0.002), {0.01, 0.02, 0.03, 0.02, 0.01});
  const std::vector<double> stolen = {0.10, 0.12, 0.15, 0.11, 0.13};
  // A 6% drop is within what 7.8% more steal explains...
  const GateVerdict g = compare(base, result(around(94, 4, 5, 0.002), stolen));
  EXPECT_EQ(g.overall, Verdict::kInconclusive) << only(g).reason;
  EXPECT_NE(only(g).reason.find("host steal of CPU 1"), std::string::npos) << only(g).reason;
  EXPECT_NE(only(g).reason.find("10.0%-15.0%"), std::string::npos) << only(g).reason;
  EXPECT_NE(only(g).reason.find("would be regressed"), std::string::npos) << only(g).reason;
  EXPECT_NE(notes(g).find("(3 current, 0 baseline)"), std::string::npos) << notes(g);
  // ... a 40% drop is not.
  const GateVerdict far = compare(base, result(around(60, 4, 5, 0.002), stolen));
  EXPECT_EQ(far.overall, Verdict::kRegressed) << only(far).reason;
  // allow_contaminated judges every run as it is.
  Policy allow;
  allow.allow_contaminated = true;
  EXPECT_EQ(compare(base, result(around(94, 4, 5, 0.002), stolen), allow).overall,
            Verdict::kRegressed);
}

TEST(GateSteal, MissedPeriodsBeyondWhatTheExtraStealSpansStayRegressed) {
  // Missed periods of a 1 ms period: current's kept runs lost up to 8% of 2 s (160 ms) more than
  // the baseline's, which spans at most 160 periods; 400 more a run is the kernel's.
  auto counts = [](double mean, const std::vector<double>& steal) {
    RunReport r = result(around(100, 11), steal);
    Case& c = r.suites[0].cases[0];
    c.labels["period_us"] = "1000";
    Metric m = Metric::count("missed_periods", 0, "periods", Metric::Gating::kEventRate);
    m.samples = around(mean, 12);
    c.metrics = {m};
    return r;
  };
  const RunReport base = counts(20, {0.01, 0.02, 0.03, 0.02, 0.01});
  const GateVerdict g = compare(base, counts(420, {0.10, 0.12, 0.15, 0.11, 0.13}));
  EXPECT_EQ(only(g).verdict, Verdict::kRegressed) << only(g).reason;
  const GateVerdict near = compare(base, counts(120, {0.10, 0.12, 0.15, 0.11, 0.13}));
  EXPECT_EQ(only(near).verdict, Verdict::kInconclusive) << only(near).reason;
}

TEST(GateSteal, OneRunTheHostTookIsSetAsideAndTheOthersDecide) {
  // Current is the baseline again, but its last run lost 40% of its CPU (and throughput).
  std::vector<double> cur_values = around(100, 6);
  cur_values.back() = 60;
  const RunReport base = result(around(100, 5), {0.01, 0.01, 0.02, 0.01, 0.02});
  const RunReport cur = result(cur_values, {0.01, 0.02, 0.01, 0.02, 0.40});
  const GateVerdict g = compare(base, cur);
  EXPECT_NE(only(g).verdict, Verdict::kRegressed) << only(g).reason;
  EXPECT_NE(notes(g).find("(1 current, 0 baseline)"), std::string::npos) << notes(g);
  Policy allow;
  allow.allow_contaminated = true;
  EXPECT_NE(compare(base, cur, allow).overall, Verdict::kUnchanged);  // the stolen run counts
}

TEST(GateSteal, StealUnderThePolicysShareIsNotWeighed) {
  const RunReport base = result(around(100, 7), {0.001, 0.002, 0.001, 0.002, 0.001});
  const RunReport cur = result(around(80, 8), {0.005, 0.006, 0.004, 0.005, 0.009});
  const GateVerdict g = compare(base, cur);
  EXPECT_EQ(g.overall, Verdict::kRegressed);
  EXPECT_EQ(notes(g).find("host steal"), std::string::npos) << notes(g);
}

TEST(GateSteal, ResultsWithoutPerRunStealShareTheSuitesTotalEvenly) {
  RunReport r = result(around(100, 9), {0.10, 0.10});
  SuiteResult& s = r.suites[0];
  s.hygiene.steal_ms_per_run.clear();
  const std::vector<double> shares = run_steal_shares(s, 1);
  ASSERT_EQ(shares.size(), 5u);  // the suite's 5 runs share 400 ms over 10 s
  for (const double share : shares) EXPECT_NEAR(share, 0.04, 1e-12);
  EXPECT_NEAR(run_steal_shares(s, -1).front(), 0.04, 1e-12);  // the mean of its one CPU
}

}  // namespace
}  // namespace rtgate::gate
