#include <gtest/gtest.h>

#include "exporters/json_exporter.h"
#include "framework/gate/compare.h"
#include "framework/gate/environment_diff.h"
#include "gate_test_helpers.h"

namespace rtgate::gate {
namespace {

Metric samples_metric(MetricKind kind, std::vector<double> xs, const std::string& name = "ops") {
  Metric m =
      kind == MetricKind::kCount ? Metric::count(name, 0) : Metric::throughput(name, "ops/s", 0);
  m.kind = kind;
  if (kind == MetricKind::kDuration) {
    m.unit = "s";
    m.better = Better::kLower;
  }
  m.samples = std::move(xs);
  return m;
}

MetricVerdict judge(const Metric& b, const Metric& c, const Policy& p = {}) {
  return compare_metric("s", "c", b, c, p);
}

const Evidence* find_evidence(const MetricVerdict& v, const std::string& test) {
  for (const Evidence& e : v.evidence) {
    if (e.test == test) return &e;
  }
  return nullptr;
}

TEST(GateSamples, ClearDropIsRegressedWithEvidence) {
  const Metric b = samples_metric(MetricKind::kThroughput, {100, 102, 98, 101, 99});
  const Metric c = samples_metric(MetricKind::kThroughput, {90, 91, 89, 92, 88});
  const MetricVerdict v = judge(b, c);
  EXPECT_EQ(v.verdict, Verdict::kRegressed) << v.reason;
  EXPECT_EQ(v.statistic, "hmean");
  EXPECT_NEAR(v.change_pct, -10, 0.2);
  ASSERT_NE(find_evidence(v, "welch_t"), nullptr);
  EXPECT_LT(find_evidence(v, "welch_t")->p_value, 0.001);
  ASSERT_NE(find_evidence(v, "mann_whitney_u"), nullptr);
  EXPECT_NEAR(find_evidence(v, "mann_whitney_u")->p_value, 2.0 / 252, 1e-12);
  const Evidence* boot = find_evidence(v, "bootstrap_ratio");
  ASSERT_NE(boot, nullptr);
  EXPECT_LT(boot->ci_high, 0.95);
  EXPECT_GT(boot->ci_low, 0.85);
  EXPECT_NE(v.reason.find("noise floor"), std::string::npos);
  // The other direction is an improvement.
  EXPECT_EQ(judge(c, b).verdict, Verdict::kImproved);
}

TEST(GateSamples, SignificantButWithinTheNoiseFloorIsUnchanged) {
  const Metric b = samples_metric(MetricKind::kThroughput, {100, 100.1, 99.9, 100, 100.05});
  const Metric c = samples_metric(MetricKind::kThroughput, {97, 97.1, 96.9, 97, 97.05});
  const MetricVerdict v = judge(b, c);
  EXPECT_EQ(v.verdict, Verdict::kUnchanged);
  EXPECT_NE(v.reason.find("within the 5% noise floor"), std::string::npos) << v.reason;
  Policy tight;
  tight.noise_floor_pct = 2;
  EXPECT_EQ(judge(b, c, tight).verdict, Verdict::kRegressed);
}

TEST(GateSamples, LargeButNotSignificantIsUnchanged) {
  const Metric b = samples_metric(MetricKind::kThroughput, {100, 60, 120, 90, 110});
  const Metric c = samples_metric(MetricKind::kThroughput, {95, 55, 110, 85, 100});
  const MetricVerdict v = judge(b, c, Policy{.max_baseline_cv_pct = 100});
  EXPECT_EQ(v.verdict, Verdict::kUnchanged);
  EXPECT_NE(v.reason.find("not significant"), std::string::npos) << v.reason;
}

TEST(GateSamples, NoisyBaselineIsInconclusive) {
  const Metric b = samples_metric(MetricKind::kThroughput, {100, 60, 140, 90, 110});
  const Metric c = samples_metric(MetricKind::kThroughput, {50, 51, 49, 50, 52});
  const MetricVerdict v = judge(b, c);
  EXPECT_EQ(v.verdict, Verdict::kInconclusive);
  EXPECT_NE(v.reason.find("CoeffVar"), std::string::npos) << v.reason;
}

TEST(GateSamples, FewerThanTwoRunsIsInconclusive) {
  const Metric b = samples_metric(MetricKind::kThroughput, {100});
  const Metric c = samples_metric(MetricKind::kThroughput, {50, 51, 49});
  const MetricVerdict v = judge(b, c);
  EXPECT_EQ(v.verdict, Verdict::kInconclusive);
  EXPECT_EQ(v.reason,
            "fewer than 2 runs (baseline 1, current 3): no test is possible; use --runs 5");
}

TEST(GateSamples, DurationLowerIsBetter) {
  const Metric b = samples_metric(MetricKind::kDuration, {10, 10.2, 9.8, 10.1, 9.9});
  const Metric c = samples_metric(MetricKind::kDuration, {12, 12.2, 11.8, 12.1, 11.9});
  EXPECT_EQ(judge(b, c).verdict, Verdict::kRegressed);
  EXPECT_EQ(judge(c, b).verdict, Verdict::kImproved);
}

TEST(GateSamples, CountsAreReportedUnlessThePolicyGatesThem) {
  const Metric b = samples_metric(MetricKind::kCount, {0, 0, 0, 0, 0}, "overruns");
  const Metric c = samples_metric(MetricKind::kCount, {5, 6, 4, 5, 7}, "overruns");
  const MetricVerdict v = judge(b, c);
  EXPECT_FALSE(v.gated);
  EXPECT_EQ(v.verdict, Verdict::kUnchanged);
  EXPECT_EQ(v.statistic, "amean");
  EXPECT_EQ(v.current, 5.4);
  Policy p;
  p.per_metric["s/overruns"].gate = true;
  const MetricVerdict g = judge(b, c, p);
  EXPECT_TRUE(g.gated);
  EXPECT_EQ(g.verdict, Verdict::kRegressed) << g.reason;
  EXPECT_TRUE(std::isinf(g.change_pct));
}

Metric latency_of(std::uint64_t seed, test::LatencyShape shape = {}, std::size_t n = 100'000,
                  std::size_t blocks = 5) {
  std::mt19937_64 rng(seed);
  return test::latency_metric(test::latency_samples(rng, shape, n), blocks);
}

TEST(GateLatency, SameDistributionIsUnchangedWithAllEvidence) {
  const MetricVerdict v = judge(latency_of(1), latency_of(2));
  EXPECT_EQ(v.verdict, Verdict::kUnchanged) << v.reason;
  EXPECT_EQ(v.statistic, "p999");
  int quantiles = 0;
  for (const Evidence& e : v.evidence) quantiles += e.test == "quantile_ci";
  EXPECT_EQ(quantiles, 2);
  EXPECT_NE(find_evidence(v, "exceedance_rate"), nullptr);
  EXPECT_NE(find_evidence(v, "block_maxima"), nullptr);
  EXPECT_EQ(find_evidence(v, "budget"), nullptr);
}

TEST(GateLatency, TailShiftIsRegressedAndSaysWhy) {
  const MetricVerdict v = judge(latency_of(1), latency_of(2, {.spike_scale = 2}));
  EXPECT_EQ(v.verdict, Verdict::kRegressed);
  EXPECT_EQ(v.statistic, "p999");
  EXPECT_GT(v.change_pct, 60);
  EXPECT_NE(v.reason.find("p999"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("CIs disjoint"), std::string::npos) << v.reason;
  // And the reverse is an improvement.
  EXPECT_EQ(judge(latency_of(2, {.spike_scale = 2}), latency_of(1)).verdict, Verdict::kImproved);
}

TEST(GateLatency, BudgetIsAHardLimit) {
  const Metric b = latency_of(1), c = latency_of(2);
  Policy p;
  p.budgets_ns["s/wakeup_latency"] = static_cast<double>(c.histogram->max()) - 1;
  const MetricVerdict v = judge(b, c, p);
  EXPECT_EQ(v.verdict, Verdict::kRegressed);
  EXPECT_EQ(v.statistic, "max");
  EXPECT_EQ(v.current, static_cast<double>(c.histogram->max()));
  EXPECT_EQ(find_evidence(v, "budget")->indicates, Verdict::kRegressed);
  p.budgets_ns["s/wakeup_latency"] = static_cast<double>(c.histogram->max());
  EXPECT_EQ(judge(b, c, p).verdict, Verdict::kUnchanged);
}

TEST(GateLatency, FewSamplesCannotBoundHighQuantiles) {
  const MetricVerdict v = judge(latency_of(1, {}, 200, 1), latency_of(2, {}, 200, 1));
  EXPECT_EQ(v.verdict, Verdict::kUnchanged) << v.reason;
  for (const Evidence& e : v.evidence) {
    if (e.test == "quantile_ci" || e.test == "block_maxima") {
      EXPECT_EQ(e.indicates, Verdict::kInconclusive) << e.detail;
    }
  }
}

TEST(GateLatency, NoHistogramIsInconclusive) {
  Metric b = latency_of(1, {}, 1000);
  Metric c = b;
  c.histogram.reset();
  const MetricVerdict v = judge(b, c);
  EXPECT_EQ(v.verdict, Verdict::kInconclusive);
  EXPECT_EQ(v.reason, "no latency samples on the current side");
}

// Runs of 20k samples, run r with its tail (the 0.2% stall component) scaled by scales[r].
Metric runs_of(std::uint64_t seed, const std::vector<double>& scales) {
  Metric m;
  for (std::size_t r = 0; r < scales.size(); ++r) {
    const Metric run = latency_of(seed * 100 + r, {.spike_scale = scales[r]}, 20'000, 2);
    if (r == 0) {
      m = run;
    } else {
      m.merge(run);
    }
  }
  return m;
}

TEST(GateLatency, RunsAreTheUnitOfReplicationWhenBothSidesHaveEnough) {
  const MetricVerdict v = judge(runs_of(1, {1, 1, 1, 1, 1}), runs_of(2, {2, 2, 2, 2, 2}));
  EXPECT_EQ(v.verdict, Verdict::kRegressed) << v.reason;
  EXPECT_NE(v.reason.find("p999 per run"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("5 vs 5 runs"), std::string::npos) << v.reason;
  int run_tests = 0;
  for (const Evidence& e : v.evidence) {
    if (e.test == "run_quantile") {
      ++run_tests;
      EXPECT_TRUE(e.deciding);
    } else {
      // The pooled tests are shown, as support only.
      EXPECT_FALSE(e.deciding) << e.test;
      EXPECT_EQ(e.detail.rfind("pooled samples: ", 0), 0u) << e.detail;
    }
  }
  EXPECT_EQ(run_tests, 2);
}

TEST(GateLatency, APooledDifferenceWithinTheSpreadBetweenRunsIsUnchanged) {
  // The baseline's runs drift (tail x0.6 .. x1.6, as back-to-back runs on a VM do); current's
  // runs all sit at x1.3. Pooled, current's tail is heavier and the pooled tests fire; run by
  // run current's geometric mean is about 30% up against a baseline spread of -40% .. +60%, which
  // 5 runs cannot tell from drift.
  const MetricVerdict v =
      judge(runs_of(3, {0.6, 1.0, 1.6, 0.8, 1.3}), runs_of(4, {1.3, 1.3, 1.3, 1.3, 1.3}));
  EXPECT_EQ(v.verdict, Verdict::kUnchanged) << v.reason;
  EXPECT_NE(v.reason.find("not beyond the spread between runs"), std::string::npos) << v.reason;
  // With too few runs for that policy, the same data is judged on the pooled samples.
  Policy p;
  p.latency_min_runs = 6;
  const MetricVerdict pooled =
      judge(runs_of(3, {0.6, 1.0, 1.6, 0.8, 1.3}), runs_of(4, {1.3, 1.3, 1.3, 1.3, 1.3}), p);
  EXPECT_EQ(pooled.verdict, Verdict::kRegressed) << pooled.reason;
  EXPECT_EQ(find_evidence(pooled, "run_quantile"), nullptr);
}

TEST(GateLatency, IdenticalRunsCompareAsEqualDespiteBucketEdges) {
  // Every run has exactly the same quantiles (zero variance on both sides): the resolution floor
  // keeps Welch from calling that "exactly different" or undefined.
  const Metric one = latency_of(5, {}, 20'000, 2);
  Metric b = one, c = one;
  for (int r = 0; r < 4; ++r) b.merge(one), c.merge(one);
  const MetricVerdict v = judge(b, c);
  EXPECT_EQ(v.verdict, Verdict::kUnchanged) << v.reason;
  EXPECT_DOUBLE_EQ(find_evidence(v, "run_quantile")->p_value, 0.5);
}

TEST(GateCompare, MissingAndNewAreRowsNotCrashes) {
  RunReport base = test::report_of({latency_of(1, {}, 1000), Metric::count("overruns", 0)});
  RunReport cur = base;
  cur.suites[0].cases[0].metrics.pop_back();                          // metric absent in current
  cur.suites[0].cases[0].metrics.push_back(Metric::count("new", 1));  // metric new in current
  base.suites.push_back(base.suites[0]);
  base.suites.back().name = "gone";  // suite absent in current
  cur.suites.push_back(cur.suites[0]);
  cur.suites.back().name = "fresh";  // suite new in current
  const GateReport g = compare(base, cur);
  ASSERT_EQ(g.suites.size(), 3u);
  const SuiteVerdict& cyclic = g.suites[0];
  ASSERT_EQ(cyclic.metrics.size(), 3u);
  EXPECT_EQ(cyclic.metrics[1].verdict, Verdict::kMissing);
  EXPECT_EQ(cyclic.metrics[1].reason, "metric absent in current");
  EXPECT_TRUE(cyclic.metrics[1].gated);
  EXPECT_EQ(cyclic.metrics[2].verdict, Verdict::kMissing);
  EXPECT_FALSE(cyclic.metrics[2].gated);
  EXPECT_EQ(cyclic.verdict, Verdict::kMissing);
  EXPECT_EQ(g.suites[1].suite, "gone");
  EXPECT_EQ(g.suites[1].reason, "suite absent in current");
  EXPECT_EQ(g.suites[2].suite, "fresh");
  EXPECT_FALSE(g.suites[2].gated);
  EXPECT_EQ(g.overall, Verdict::kMissing);
  EXPECT_EQ(exit_code(g, true), 0);
}

TEST(GateCompare, SkippedAndFailedSuites) {
  const RunReport base = test::report_of({latency_of(1, {}, 1000)});
  RunReport cur = base;
  cur.suites[0].status = SuiteStatus::kSkipped;
  cur.suites[0].reason = "no SCHED_FIFO";
  GateReport g = compare(base, cur);
  EXPECT_EQ(g.suites[0].verdict, Verdict::kMissing);
  EXPECT_EQ(g.suites[0].reason, "skipped in current: no SCHED_FIFO");
  cur.suites[0].status = SuiteStatus::kFailed;
  cur.suites[0].reason = "PI boost missing";
  g = compare(base, cur);
  EXPECT_EQ(g.suites[0].verdict, Verdict::kRegressed);
  EXPECT_EQ(g.suites[0].reason, "failed in current: PI boost missing");
  EXPECT_EQ(exit_code(g, false), 1);
}

TEST(GateCompare, SuiteTakesItsWorstMetric) {
  std::mt19937_64 rng(5);
  const RunReport base = test::report_of({test::throughput_metric(rng, 100, 1, 5, "a"),
                                          test::throughput_metric(rng, 100, 1, 5, "b"),
                                          test::throughput_metric(rng, 100, 1, 5, "c")});
  const RunReport cur = test::report_of({test::throughput_metric(rng, 100, 1, 5, "a"),
                                         test::throughput_metric(rng, 120, 1, 5, "b"),
                                         Metric::throughput("c", "ops/s", 100)});
  const GateReport g = compare(base, cur);
  EXPECT_EQ(g.suites[0].metrics[1].verdict, Verdict::kImproved);
  EXPECT_EQ(g.suites[0].metrics[2].verdict, Verdict::kInconclusive);
  EXPECT_EQ(g.suites[0].verdict, Verdict::kInconclusive);
  EXPECT_EQ(exit_code(g, false), 3);
  EXPECT_EQ(exit_code(g, true), 1);
}

TEST(GateCompare, KindMismatchIsInconclusive) {
  const RunReport base = test::report_of({Metric::throughput("x", "ops/s", 1)});
  RunReport cur = base;
  cur.suites[0].cases[0].metrics[0].kind = MetricKind::kDuration;
  EXPECT_EQ(compare(base, cur).suites[0].metrics[0].verdict, Verdict::kInconclusive);
}

TEST(GateEnvironment, DifferencesAndMismatch) {
  const Environment a = test::test_environment();
  Environment b = a;
  b.kernel_release = "6.6.0-rt";
  b.cmdline = "BOOT_IMAGE=/vmlinuz-6.6.0-rt isolcpus=1 root=/dev/sda1";  // same parameters
  EnvironmentDiff d = diff_environments(a, b);
  EXPECT_FALSE(d.mismatch);
  ASSERT_EQ(d.differences.size(), 1u);
  EXPECT_EQ(d.differences[0], "kernel_release: '6.1.0-rt' -> '6.6.0-rt'");
  b.cpu_model = "Other CPU";
  b.online_cpus = 4;
  b.cmdline += " nohz_full=1";
  b.cmdline.replace(b.cmdline.find("isolcpus=1"), 10, "isolcpus=2");
  d = diff_environments(a, b);
  EXPECT_TRUE(d.mismatch);
  ASSERT_EQ(d.differences.size(), 4u);
  EXPECT_EQ(d.differences[0], "cpu_model: 'Test CPU @ 3.0GHz' -> 'Other CPU'");
  EXPECT_EQ(d.differences[1], "online_cpus: '2' -> '4'");
  EXPECT_EQ(d.differences[2], "cmdline: -isolcpus=1 +isolcpus=2 +nohz_full=1");
}

TEST(GateEnvironment, MismatchMakesTheOverallVerdictInconclusive) {
  const RunReport base = test::report_of({latency_of(1, {}, 1000)});
  RunReport cur = base;
  cur.environment.preempt_model = "full";
  GateReport g = compare(base, cur);
  EXPECT_TRUE(g.environment_mismatch);
  EXPECT_EQ(g.suites[0].verdict, Verdict::kUnchanged);
  EXPECT_EQ(g.overall, Verdict::kInconclusive);
  EXPECT_EQ(exit_code(g, true), 1);
  Policy allow;
  allow.allow_env_mismatch = true;
  g = compare(base, cur, allow);
  EXPECT_FALSE(g.environment_mismatch);
  EXPECT_EQ(g.environment_differences.size(), 1u);
  EXPECT_EQ(g.overall, Verdict::kUnchanged);
}

TEST(GateCompare, ForeignRtThreadsInTheCurrentRunMakeARegressionInconclusive) {
  const RunReport base = test::report_of({latency_of(1)});
  RunReport cur = test::report_of({latency_of(2, {.spike_scale = 2})});
  cur.suites[0].hygiene.foreign_rt_threads.push_back({.pid = 1,
                                                      .tid = 1,
                                                      .comm = "migration/0",
                                                      .policy = "fifo",
                                                      .priority = 99,
                                                      .kernel_thread = true});
  EXPECT_EQ(compare(base, cur).suites[0].verdict, Verdict::kRegressed);  // kernel: the SUT
  cur.suites[0].hygiene.foreign_rt_threads.push_back(
      {.pid = 4242, .tid = 4243, .comm = "spinner", .policy = "fifo", .priority = 90});
  const GateReport g = compare(base, cur);
  EXPECT_EQ(g.suites[0].verdict, Verdict::kInconclusive);
  const MetricVerdict& m = g.suites[0].metrics[0];
  EXPECT_EQ(m.reason.rfind("would be regressed (", 0), 0u) << m.reason;
  EXPECT_NE(m.reason.find("'spinner' (pid 4242, fifo 90)"), std::string::npos) << m.reason;
  EXPECT_EQ(compare(base, cur, Policy{.allow_contaminated = true}).suites[0].verdict,
            Verdict::kRegressed);
  // A budget stays a hard limit.
  Policy budget;
  budget.budgets_ns["cyclic"] = 1000;
  EXPECT_EQ(compare(base, cur, budget).suites[0].verdict, Verdict::kRegressed);
}

// Result files, not only in-memory reports: the histograms restored from JSON gate the same way.
TEST(GateCompare, ThroughTheJsonReader) {
  const RunReport base = test::report_of({latency_of(1)});
  const RunReport cur = test::report_of({latency_of(2, {.spike_scale = 2})});
  const RunReport base_back = report_from_json(nlohmann::json::parse(to_json_text(base)));
  const RunReport cur_back = report_from_json(nlohmann::json::parse(to_json_text(cur)));
  const MetricVerdict direct = compare(base, cur).suites[0].metrics[0];
  const MetricVerdict read = compare(base_back, cur_back).suites[0].metrics[0];
  EXPECT_EQ(read.verdict, Verdict::kRegressed);
  EXPECT_EQ(read.reason, direct.reason);
}

TEST(GateVerdict, NamesAndSeverity) {
  for (auto v : {Verdict::kImproved, Verdict::kUnchanged, Verdict::kRegressed,
                 Verdict::kInconclusive, Verdict::kMissing}) {
    EXPECT_EQ(verdict_from(to_string(v)), v);
  }
  EXPECT_EQ(worst(Verdict::kImproved, Verdict::kUnchanged), Verdict::kImproved);
  EXPECT_EQ(worst(Verdict::kMissing, Verdict::kInconclusive), Verdict::kInconclusive);
  EXPECT_EQ(worst(Verdict::kRegressed, Verdict::kInconclusive), Verdict::kRegressed);
  GateReport g;
  g.overall = Verdict::kImproved;
  EXPECT_EQ(exit_code(g, true), 0);
}

}  // namespace
}  // namespace rtgate::gate
