// The gate's rules for one metric at a time, on small in-memory results: the three outcomes and
// what each needs for per-run values, event counts and latency, the worst case deciding. The
// error rates are gate_calibration_test.cpp's.
#include <gtest/gtest.h>

#include "gate/pair/compare.h"
#include "gate_one_case.h"

namespace rtgate::gate {
namespace {

// --- Per-run values: throughput and duration ------------------------------------------------

TEST(GateSamples, ClearDropIsRegressedWithItsEvidence) {
  const GateVerdict g =
      compare(report_of({values(100, 0.03, 5, 1)}), report_of({values(80, 0.03, 5, 2)}));
  const MetricVerdict& m = only(g);
  EXPECT_EQ(m.verdict, Verdict::kRegressed) << m.reason;
  EXPECT_EQ(m.decided_by, "value per run");
  EXPECT_TRUE(m.ratio);
  EXPECT_NEAR(m.effect, 0.8, 0.05);
  EXPECT_LT(m.effect_low, m.effect);
  EXPECT_GT(m.effect_high, m.effect);
  ASSERT_EQ(m.evidence.size(), 1u);
  EXPECT_TRUE(m.evidence[0].deciding);
  EXPECT_EQ(m.evidence[0].test, EvidenceTest::kRunValue);
  EXPECT_LT(m.p_worse, 1e-4);
  EXPECT_EQ(g.overall, Verdict::kRegressed);
  EXPECT_EQ(exit_code(g, false), 1);
}

TEST(GateSamples, UnchangedOnlyWhenTheIntervalIsInsideTheFloor) {
  // 1% apart, CV 1%, 10 runs: the 90% CI of the ratio is well inside +-5%.
  const MetricVerdict precise =
      only(compare(report_of({values(100, 0.01, 10, 3)}), report_of({values(101, 0.01, 10, 4)})));
  EXPECT_EQ(precise.verdict, Verdict::kUnchanged) << precise.reason;
  EXPECT_GT(precise.effect_low, 1 / 1.05);
  EXPECT_LT(precise.effect_high, 1.05);
  // The same means with CV 15% and 3 runs: not significant, and not shown to be within 5% either
  // (these runs came out 9% lower, the worse way).
  const MetricVerdict noisy =
      only(compare(report_of({values(101, 0.15, 3, 6)}), report_of({values(100, 0.15, 3, 5)})));
  EXPECT_EQ(noisy.verdict, Verdict::kInconclusive) << noisy.reason;
  EXPECT_NE(noisy.reason.find("this data detects"), std::string::npos) << noisy.reason;
  EXPECT_NE(noisy.reason.find("runs a side"), std::string::npos) << noisy.reason;
  EXPECT_GT(noisy.detectable, 0);
}

// What a gate asks is whether it got worse: an interval whose worse end is inside the floor
// passes (exit 0) as "not worse", though its better end reaches beyond the floor.
TEST(GateSamples, NotWorseWhenOnlyTheBetterEndReachesBeyondTheFloor) {
  const auto gate = [](std::vector<double> cur) {
    return compare(report_of({per_run("ops", MetricKind::kThroughput, {100, 108, 92, 104, 96})}),
                   report_of({per_run("ops", MetricKind::kThroughput, std::move(cur))}));
  };
  const GateVerdict up = gate({106, 114, 98, 110, 102});
  const MetricVerdict& m = only(up);
  ASSERT_EQ(m.verdict, Verdict::kNotWorse) << m.reason;
  EXPECT_GT(m.effect_low, 1 / 1.05);  // more is better: the low end is the worse one
  EXPECT_GT(m.effect_high, 1.05);
  EXPECT_EQ(m.decided_by, "value per run, non-inferiority");
  EXPECT_NE(m.reason.find("may have improved beyond it"), std::string::npos) << m.reason;
  EXPECT_EQ(exit_code(up, false), 0);
  EXPECT_EQ(verdict_from(to_string(Verdict::kNotWorse)), Verdict::kNotWorse);
  // The mirror image reaches beyond the floor on the worse side: open, not passed.
  const GateVerdict down = gate({94, 102, 86, 98, 90});
  EXPECT_EQ(only(down).verdict, Verdict::kInconclusive) << only(down).reason;
  EXPECT_EQ(exit_code(down, false), 3);
}

TEST(GateSamples, SignificantButWithinTheFloorIsNotRegressed) {
  // 2% lower with CV 0.5% and 10 runs: significant, but the floor is 5%.
  const MetricVerdict m =
      only(compare(report_of({values(100, 0.005, 10, 7)}), report_of({values(98, 0.005, 10, 8)})));
  EXPECT_NE(m.verdict, Verdict::kRegressed) << m.reason;
  EXPECT_EQ(m.verdict, Verdict::kUnchanged) << m.reason;
}

TEST(GateSamples, FewerThanTwoRunsIsInconclusive) {
  const MetricVerdict m =
      only(compare(report_of({values(100, 0.03, 1, 9)}), report_of({values(50, 0.03, 1, 10)})));
  EXPECT_EQ(m.verdict, Verdict::kInconclusive);
  EXPECT_NE(m.reason.find("2 runs a side"), std::string::npos) << m.reason;
}

TEST(GateSamples, DurationLowerIsBetter) {
  auto dur = [](std::vector<double> v) {
    return per_run("t", MetricKind::kDuration, std::move(v));
  };
  const GateVerdict g = compare(report_of({dur({10, 10.2, 9.9, 10.1, 10})}),
                                report_of({dur({14, 14.2, 13.9, 14.1, 14})}));
  EXPECT_EQ(only(g).verdict, Verdict::kRegressed) << only(g).reason;
  const GateVerdict back = compare(report_of({dur({14, 14.2, 13.9, 14.1, 14})}),
                                   report_of({dur({10, 10.2, 9.9, 10.1, 10})}));
  EXPECT_EQ(only(back).verdict, Verdict::kImproved);
}

TEST(GateSamples, TheOptionalNoisyBaselineRule) {
  const RunReport base = report_of({values(100, 0.4, 5, 11)}),
                  cur = report_of({values(20, 0.03, 5, 12)});
  Policy p;
  p.max_baseline_cv_pct = 20;
  const MetricVerdict m = only(compare(base, cur, p));
  EXPECT_EQ(m.verdict, Verdict::kInconclusive);
  EXPECT_NE(m.reason.find("CoeffVar"), std::string::npos) << m.reason;
}

// A gated count of work judged on its per-run values: runs at 0 are data, never dropped.
TEST(GateSamples, ZeroRunsOfAGatedCountAreNeverUnchanged) {
  Policy p;
  p.per_metric["s/work"] = Overrides{.gate = true};
  const auto work = [](std::vector<double> v, Better better) {
    Metric m = per_run("work", MetricKind::kCount, std::move(v));
    m.better = better;
    return m;
  };
  const std::vector<double> base = {1000, 1002, 998, 1001, 999};
  const std::vector<double> cur = {1000, 1001, 0, 0, 0};
  const MetricVerdict more = only(compare(report_of({work(base, Better::kHigher)}),
                                          report_of({work(cur, Better::kHigher)}), p));
  EXPECT_TRUE(more.gated);
  EXPECT_EQ(more.verdict, Verdict::kRegressed) << more.reason;
  EXPECT_EQ(more.decided_test, EvidenceTest::kZeroRuns);
  const MetricVerdict less = only(
      compare(report_of({work(base, Better::kLower)}), report_of({work(cur, Better::kLower)}), p));
  EXPECT_EQ(less.verdict, Verdict::kInconclusive) << less.reason;
  EXPECT_NE(less.reason.find("measured nothing"), std::string::npos) << less.reason;
}

// --- Event counts --------------------------------------------------------------------------

TEST(GateEvents, MissedPeriodsAppearingIsARegression) {
  Policy no_gross;  // the rate test itself (gate_worst_case_test.cpp has the gross rule)
  no_gross.gross_max_factor = 0;
  const MetricVerdict m =
      only(compare(report_of({events("missed_periods", {0, 0, 0, 0, 0})}),
                   report_of({events("missed_periods", {5, 4, 6, 5, 7})}), no_gross));
  EXPECT_TRUE(m.gated);
  EXPECT_EQ(m.verdict, Verdict::kRegressed) << m.reason;
  EXPECT_EQ(m.decided_by, "events per run");
  EXPECT_FALSE(m.ratio);
  EXPECT_NEAR(m.effect, 5.4, 1e-9);
}

TEST(GateEvents, OneBurstRunIsNotARegression) {
  const MetricVerdict m = only(compare(report_of({events("missed_periods", {0, 1, 0, 0, 1})}),
                                       report_of({events("missed_periods", {0, 0, 40, 1, 0})})));
  EXPECT_NE(m.verdict, Verdict::kRegressed) << m.reason;
}

TEST(GateEvents, RareEqualCountsNeedRunsToBeUnchanged) {
  const std::vector<double> five{0, 1, 0, 0, 0};
  EXPECT_EQ(only(compare(report_of({events("m", five)}), report_of({events("m", five)}))).verdict,
            Verdict::kInconclusive);
  std::vector<double> twenty(20, 0.0);
  twenty[3] = 1;
  const MetricVerdict m =
      only(compare(report_of({events("m", twenty)}), report_of({events("m", twenty)})));
  EXPECT_EQ(m.verdict, Verdict::kUnchanged) << m.reason;
}

TEST(GateEvents, OtherCountsAreReportedUnlessThePolicyGatesThem) {
  Metric fair = Metric::count("fairness", 0, "%", Metric::Gating::kReported);
  fair.samples = {10, 11, 10};
  Metric worse = fair;
  worse.samples = {50, 51, 50};
  const GateVerdict g = compare(report_of({fair}), report_of({worse}));
  EXPECT_FALSE(only(g).gated);
  EXPECT_EQ(g.overall, Verdict::kUnchanged);
  Policy p = parse_policy("metrics: {s/fairness: {gate: true}}");
  EXPECT_EQ(compare(report_of({fair}), report_of({worse}), p).overall, Verdict::kRegressed);
}

// --- Latency ----------------------------------------------------------------------------------

TEST(GateLatency, EveryStatisticIsEvidenceAndTheMaxDecidesToo) {
  const MetricVerdict m = only(compare(report_of({latency(1, 5)}), report_of({latency(2, 5)})));
  EXPECT_NE(m.verdict, Verdict::kRegressed) << m.reason;
  ASSERT_NE(evidence(m, "p99"), nullptr);
  ASSERT_NE(evidence(m, "p999"), nullptr);
  ASSERT_NE(evidence(m, "max"), nullptr);
  EXPECT_EQ(evidence(m, "max")->test, EvidenceTest::kRunMax);
  EXPECT_NEAR(evidence(m, "max")->floor, 1.25, 1e-12);
  EXPECT_NEAR(evidence(m, "p99")->floor, 1.10, 1e-12);
}

// --trace analyses are evidence: the same data with and without them gets the same verdict and
// p-values, and a regressed latency carries the current case's worst-sample analysis.
TEST(GateLatency, TraceAnalysisIsCarriedNotJudged) {
  sim::Shape tail;
  tail.tail_scale = 2;
  const RunReport base = report_of({latency(3, 5)});
  RunReport cur = report_of({latency(4, 5, tail)});
  const MetricVerdict plain = only(compare(base, cur));
  trace::SampleAnalysis a;
  a.trigger = "worst";
  a.cpu = 1;
  a.thread = "cpu1";
  a.latency_ns = 900'000;
  a.parts = {{.kind = "task",
              .name = "load-rt1",
              .pid = 42,
              .policy = "SCHED_FIFO",
              .prio = 98,
              .ns = 900'000,
              .count = 1}};
  cur.suites[0].cases[0].analysis = {a};
  RunReport base_traced = base;
  base_traced.suites[0].cases[0].analysis = {a};
  const MetricVerdict traced = only(compare(base_traced, cur));
  EXPECT_EQ(traced.verdict, plain.verdict);
  EXPECT_EQ(traced.p_worse, plain.p_worse);
  EXPECT_EQ(traced.effect, plain.effect);
  ASSERT_EQ(traced.verdict, Verdict::kRegressed);
  ASSERT_EQ(traced.trace.size(), 1u);
  EXPECT_NE(traced.trace[0].find("load-rt1 (pid 42, SCHED_FIFO 98)"), std::string::npos);
  EXPECT_TRUE(plain.trace.empty());
}

TEST(GateLatency, ADoubledTailIsRegressedOnP999) {
  sim::Shape tail;
  tail.tail_scale = 2;
  const MetricVerdict m =
      only(compare(report_of({latency(3, 5)}), report_of({latency(4, 5, tail)})));
  EXPECT_EQ(m.verdict, Verdict::kRegressed) << m.reason;
  EXPECT_EQ(m.decided_by, "p99.9 per run");
  EXPECT_NEAR(m.effect, 2, 0.3);
}

TEST(GateLatency, AStallInEveryRunIsRegressedOnTheMax) {
  Metric cur = latency(6, 5);
  for (LatencySummary& r : cur.runs) r.max = 50'000'000;
  sim::refresh_max(cur);
  Policy no_gross;  // the per-run max's test (gate_worst_case_test.cpp has the gross rule)
  no_gross.gross_max_factor = 0;
  const MetricVerdict m = only(compare(report_of({latency(5, 5)}), report_of({cur}), no_gross));
  EXPECT_EQ(m.verdict, Verdict::kRegressed) << m.reason;
  EXPECT_EQ(m.decided_by, "max per run");
}

TEST(GateLatency, OneOutlierRunDoesNotDecide) {
  const Metric base = latency(7, 5);
  Metric cur = base;
  cur.runs[2].max *= 8;
  sim::refresh_max(cur);
  EXPECT_NE(only(compare(report_of({base}), report_of({cur}))).verdict, Verdict::kRegressed);
}

TEST(GateLatency, IdenticalRunsAreUnchangedWithEnoughRuns) {
  const Metric m = latency(8, 20);
  const MetricVerdict v = only(compare(report_of({m}), report_of({m})));
  EXPECT_EQ(v.verdict, Verdict::kUnchanged) << v.reason;
  EXPECT_TRUE(v.decided_by.ends_with(", equivalence")) << v.decided_by;
}

TEST(GateLatency, BudgetIsAHardLimitEvenWithOneRun) {
  const RunReport base = report_of({latency(9, 1)}), cur = report_of({latency(10, 1)});
  Policy p;
  p.budgets_ns["s/wakeup_latency"] = 20'000;
  const MetricVerdict m = only(compare(base, cur, p));
  EXPECT_EQ(m.verdict, Verdict::kRegressed) << m.reason;
  EXPECT_EQ(m.decided_by, "budget");
  p.budgets_ns["s/wakeup_latency"] = 1e9;
  EXPECT_EQ(only(compare(base, cur, p)).verdict, Verdict::kInconclusive);
}

TEST(GateLatency, OneRunNeedsACalibratedPrior) {
  const RunReport base = report_of({latency(11, 1)}), cur = report_of({latency(12, 1, {}, 3)});
  const MetricVerdict blind = only(compare(base, cur));
  EXPECT_EQ(blind.verdict, Verdict::kInconclusive);
  EXPECT_NE(blind.reason.find("rtgate calibrate"), std::string::npos) << blind.reason;
  const Policy p = parse_policy(
      "metrics: {s/c/wakeup_latency: {prior: {df: 30, p99: 0.05, p999: 0.1, max: 0.2}}}");
  EXPECT_EQ(only(compare(base, cur, p)).verdict, Verdict::kRegressed);
}

TEST(GateLatency, NoSamplesIsInconclusive) {
  Metric empty = latency(13, 5);
  empty.runs.clear();
  empty.histogram = LatencyHistogram();
  EXPECT_EQ(only(compare(report_of({latency(14, 5)}), report_of({empty}))).verdict,
            Verdict::kInconclusive);
}

}  // namespace
}  // namespace rtgate::gate
