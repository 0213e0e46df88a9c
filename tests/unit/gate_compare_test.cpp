// The gate's rules, one at a time, on small in-memory results: the three outcomes and what each
// needs, the worst case and event counts deciding, completeness, comparability, contamination
// and the multiplicity family. The error rates are gate_calibration_test.cpp's.
#include <gtest/gtest.h>

#include "exporters/json_exporter.h"
#include "framework/gate/compare.h"
#include "gate_sim.h"

namespace rtgate::gate {
namespace {

// One suite "s" with one case "c" holding `metrics`.
RunReport report_of(std::vector<Metric> metrics, const std::string& suite = "s") {
  RunReport r;
  r.environment = sim::environment();
  SuiteResult s;
  s.name = suite;
  Case c;
  c.name = "c";
  c.metrics = std::move(metrics);
  s.cases.push_back(std::move(c));
  r.suites.push_back(std::move(s));
  return r;
}

Metric per_run(const std::string& name, MetricKind kind, std::vector<double> values) {
  Metric m = kind == MetricKind::kThroughput
                 ? Metric::throughput(name, "ops/s", 0)
                 : Metric::count(name, 0, "s", Metric::Gating::kReported);
  m.kind = kind;
  m.better = kind == MetricKind::kThroughput ? Better::kHigher : Better::kLower;
  m.samples = std::move(values);
  return m;
}

Metric values(double mean, double cv, int runs, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(mean, mean * cv);
  std::vector<double> v;
  for (int i = 0; i < runs; ++i) v.push_back(d(rng));
  return per_run("ops", MetricKind::kThroughput, std::move(v));
}

Metric latency(std::uint64_t seed, int runs, const sim::Shape& shape = {}, double factor = 1,
               std::uint64_t samples = 20'000) {
  std::mt19937_64 rng(seed);
  return sim::latency_metric(rng, "wakeup_latency", shape, samples, {},
                             std::vector<double>(static_cast<std::size_t>(runs), 0.0), factor);
}

const MetricVerdict& only(const GateReport& g) { return g.suites.at(0).metrics.at(0); }

const Evidence* evidence(const MetricVerdict& m, const std::string& statistic) {
  for (const Evidence& e : m.evidence) {
    if (e.statistic == statistic) return &e;
  }
  return nullptr;
}

// --- Per-run values: throughput and duration ------------------------------------------------

TEST(GateSamples, ClearDropIsRegressedWithItsEvidence) {
  const GateReport g =
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
  EXPECT_EQ(m.evidence[0].test, "run_value");
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
  // The same means with CV 15% and 3 runs: not significant, and not shown to be within 5% either.
  const MetricVerdict noisy =
      only(compare(report_of({values(100, 0.15, 3, 5)}), report_of({values(101, 0.15, 3, 6)})));
  EXPECT_EQ(noisy.verdict, Verdict::kInconclusive) << noisy.reason;
  EXPECT_NE(noisy.reason.find("this data detects"), std::string::npos) << noisy.reason;
  EXPECT_NE(noisy.reason.find("runs a side"), std::string::npos) << noisy.reason;
  EXPECT_GT(noisy.detectable, 0);
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
  const GateReport g = compare(report_of({dur({10, 10.2, 9.9, 10.1, 10})}),
                               report_of({dur({14, 14.2, 13.9, 14.1, 14})}));
  EXPECT_EQ(only(g).verdict, Verdict::kRegressed) << only(g).reason;
  const GateReport back = compare(report_of({dur({14, 14.2, 13.9, 14.1, 14})}),
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

// --- Event counts --------------------------------------------------------------------------

Metric events(const std::string& name, std::vector<double> per_run) {
  Metric m = Metric::count(name, 0, "periods", Metric::Gating::kEventRate);
  m.samples = std::move(per_run);
  return m;
}

TEST(GateEvents, MissedPeriodsAppearingIsARegression) {
  const MetricVerdict m = only(compare(report_of({events("missed_periods", {0, 0, 0, 0, 0})}),
                                       report_of({events("missed_periods", {5, 4, 6, 5, 7})})));
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
  const GateReport g = compare(report_of({fair}), report_of({worse}));
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
  EXPECT_EQ(evidence(m, "max")->test, "run_max");
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
  const MetricVerdict m = only(compare(report_of({latency(5, 5)}), report_of({cur})));
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
  EXPECT_EQ(v.decided_by, "equivalence");
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

// --- Completeness ---------------------------------------------------------------------------

TEST(GateCompare, WhatTheBaselineHadAndCurrentLacksIsNeverGreen) {
  RunReport base = report_of({values(100, 0.03, 5, 20)});
  base.suites.push_back(report_of({values(100, 0.03, 5, 21)}, "other").suites[0]);
  RunReport cur = report_of({values(100, 0.03, 5, 22)});
  GateReport g = compare(base, cur);
  EXPECT_EQ(g.overall, Verdict::kMissing);
  EXPECT_EQ(exit_code(g, false), 3);
  EXPECT_EQ(exit_code(g, true), 1);
  cur.suites.push_back(SuiteResult::ended(SuiteStatus::kSkipped, "needs SCHED_FIFO"));
  cur.suites.back().name = "other";
  g = compare(base, cur);
  EXPECT_EQ(g.suites[1].verdict, Verdict::kMissing);
  EXPECT_NE(g.suites[1].reason.find("skipped in current"), std::string::npos);
  EXPECT_EQ(exit_code(g, false), 3);
  // New in current only: reported, not gated.
  const GateReport fresh = compare(report_of({values(100, 0.03, 5, 23)}), base);
  EXPECT_FALSE(fresh.suites[1].gated);
}

TEST(GateCompare, FailedOrErroredCurrentIsRegressed) {
  const RunReport base = report_of({values(100, 0.03, 5, 24)});
  for (SuiteStatus st : {SuiteStatus::kFailed, SuiteStatus::kError}) {
    RunReport cur = report_of({values(100, 0.03, 5, 25)});
    cur.suites[0].status = st;
    cur.suites[0].reason = "watchdog";
    const GateReport g = compare(base, cur);
    EXPECT_EQ(g.overall, Verdict::kRegressed);
    EXPECT_EQ(exit_code(g, false), 1);
  }
}

TEST(GateCompare, AnIncompleteCurrentIsNeverGreen) {
  const RunReport base = report_of({values(100, 0.01, 10, 26)});
  RunReport cur = report_of({values(100.5, 0.01, 10, 27)});
  EXPECT_EQ(compare(base, cur).overall, Verdict::kUnchanged);
  cur.complete = false;
  const GateReport g = compare(base, cur);
  EXPECT_EQ(g.overall, Verdict::kInconclusive);
  ASSERT_FALSE(g.incomparable.empty());
  EXPECT_NE(g.incomparable.back().find("incomplete"), std::string::npos);
}

// --- Comparability and contamination --------------------------------------------------------

TEST(GateCompare, DifferentSuiteParametersAreIncomparable) {
  RunReport base = report_of({values(100, 0.03, 5, 28)});
  RunReport cur = report_of({values(50, 0.03, 5, 29)});
  base.suites[0].params["interval_us"] = std::int64_t{1000};
  cur.suites[0].params["interval_us"] = std::int64_t{200};
  const GateReport g = compare(base, cur);
  EXPECT_EQ(g.overall, Verdict::kInconclusive);
  ASSERT_EQ(g.incomparable.size(), 1u);
  EXPECT_NE(g.incomparable[0].find("interval_us: 1000 -> 200"), std::string::npos);
  Policy allow;
  allow.allow_env_mismatch = true;
  EXPECT_EQ(compare(base, cur, allow).overall, Verdict::kRegressed);
}

TEST(GateCompare, DifferentRunOptionsAreIncomparable) {
  RunReport base = report_of({values(100, 0.03, 5, 30)});
  RunReport cur = report_of({values(50, 0.03, 5, 31)});
  base.options = {.duration_s = 10, .runs = 5, .recorded = true};
  cur.options = {.duration_s = 60, .runs = 5, .recorded = true};
  const GateReport g = compare(base, cur);
  EXPECT_EQ(g.overall, Verdict::kInconclusive);
  ASSERT_FALSE(g.incomparable.empty());
  EXPECT_NE(g.incomparable[0].find("duration_s"), std::string::npos) << g.incomparable[0];
  cur.options.duration_s = 10;
  cur.options.runs = 20;  // more runs is not a different measurement
  EXPECT_EQ(compare(base, cur).overall, Verdict::kRegressed);
}

TEST(GateCompare, EnvironmentMismatchIsInconclusiveButABudgetStillFails) {
  const RunReport base = report_of({latency(32, 5)});
  RunReport cur = report_of({latency(33, 5)});
  cur.environment.preempt_model = "full";
  GateReport g = compare(base, cur);
  EXPECT_TRUE(g.environment_mismatch);
  EXPECT_EQ(g.overall, Verdict::kInconclusive);
  Policy budget;
  budget.budgets_ns["s"] = 1000;
  EXPECT_EQ(compare(base, cur, budget).overall, Verdict::kRegressed);
}

TEST(GateCompare, InterferenceOnEitherSideMakesVerdictsInconclusive) {
  const RunReport clean_base = report_of({values(100, 0.03, 5, 34)});
  const RunReport clean_cur = report_of({values(80, 0.03, 5, 35)});
  const ForeignRtThread spinner{
      .pid = 4242, .tid = 4243, .comm = "spinner", .policy = "fifo", .priority = 90};
  const ForeignRtThread kthread{.pid = 1,
                                .tid = 1,
                                .comm = "migration/0",
                                .policy = "fifo",
                                .priority = 99,
                                .kernel_thread = true};
  for (bool on_baseline : {false, true}) {
    RunReport base = clean_base, cur = clean_cur;
    RunReport& side = on_baseline ? base : cur;
    side.suites[0].hygiene.foreign_rt_threads.push_back(kthread);  // the system under test
    EXPECT_EQ(compare(base, cur).overall, Verdict::kRegressed);
    side.suites[0].hygiene.foreign_rt_threads.push_back(spinner);
    const GateReport g = compare(base, cur);
    EXPECT_EQ(g.overall, Verdict::kInconclusive);
    EXPECT_NE(only(g).reason.find("spinner"), std::string::npos) << only(g).reason;
    EXPECT_NE(only(g).reason.find(on_baseline ? "baseline" : "current"), std::string::npos);
    Policy allow;
    allow.allow_contaminated = true;
    EXPECT_EQ(compare(base, cur, allow).overall, Verdict::kRegressed);
  }
}

// --- Multiplicity ---------------------------------------------------------------------------

// The same cyclic data gated alone and beside 16 locks' lock.latency: the cyclic verdicts and
// levels do not change (the family is fixed at 100 metrics, more than either gate judges).
TEST(GateMultiplicity, AMetricDoesNotWeakenWhenMoreIsSelected) {
  std::mt19937_64 rng(40);
  const sim::Change tail{
      .suite = "cyclic", .case_name = "cpu1", .metric = "wakeup_latency", .tail_scale = 2};
  const sim::Layout wide{.locks = 16};
  const RunReport wide_base = sim::side(rng, wide, 5, {});
  const RunReport wide_cur = sim::side(rng, wide, 5, {}, tail);
  RunReport base = wide_base, cur = wide_cur;
  base.suites.resize(1);
  cur.suites.resize(1);
  const GateReport alone = compare(base, cur), beside = compare(wide_base, wide_cur);
  EXPECT_EQ(alone.family, 100);
  EXPECT_EQ(beside.family, 100);
  EXPECT_GT(beside.judged_metrics, 80);
  const MetricVerdict& a = alone.suites[0].metrics[3];
  const MetricVerdict& b = beside.suites[0].metrics[3];
  ASSERT_EQ(a.case_name, "cpu1");
  EXPECT_EQ(a.verdict, Verdict::kRegressed) << a.reason;
  EXPECT_EQ(b.verdict, a.verdict);
  EXPECT_DOUBLE_EQ(b.level, a.level);
}

TEST(GateMultiplicity, BeyondTheFamilySizeAlphaIsSplitFurther) {
  Policy p;
  p.family_size = 4;
  std::vector<Metric> many;
  for (int i = 0; i < 10; ++i) {
    many.push_back(values(100, 0.03, 5, 50 + static_cast<std::uint64_t>(i)));
    many.back().name = "m" + std::to_string(i);
  }
  const GateReport g = compare(report_of(many), report_of(many), p);
  EXPECT_EQ(g.judged_metrics, 10);
  EXPECT_EQ(g.family, 10);
  Policy per_metric;
  per_metric.alpha_scope = AlphaScope::kMetric;
  EXPECT_EQ(compare(report_of(many), report_of(many), per_metric).family, 1);
}

TEST(GateMultiplicity, SequentialLooksSpendAlphaThatSumsToIt) {
  double total = 0;
  for (int n = 5; n <= 20; ++n) total += Looks{.first = 5, .runs = n, .max = 20}.share();
  EXPECT_NEAR(total, 1.0, 1e-12);
  const Looks first{.first = 5, .runs = 5, .max = 20}, last{.first = 5, .runs = 20, .max = 20};
  EXPECT_LT(first.share(), last.share());
  EXPECT_DOUBLE_EQ(Looks{}.share(), 1.0);
}

// --- Result files ---------------------------------------------------------------------------

TEST(GateCompare, ThroughTheJsonReader) {
  sim::Shape tail;
  tail.tail_scale = 2;
  const RunReport base = report_of({latency(60, 5)}), cur = report_of({latency(61, 5, tail)});
  const RunReport base_back = report_from_json(nlohmann::json::parse(to_json_text(base)));
  const RunReport cur_back = report_from_json(nlohmann::json::parse(to_json_text(cur)));
  const MetricVerdict direct = only(compare(base, cur));
  const MetricVerdict read = only(compare(base_back, cur_back));
  EXPECT_EQ(read.verdict, Verdict::kRegressed);
  EXPECT_EQ(read.reason, direct.reason);
}

TEST(GateCompare, KindMismatchIsInconclusive) {
  const RunReport base = report_of({values(100, 0.03, 5, 62)});
  RunReport cur = base;
  cur.suites[0].cases[0].metrics[0].kind = MetricKind::kDuration;
  EXPECT_EQ(only(compare(base, cur)).verdict, Verdict::kInconclusive);
}

TEST(GateVerdict, NamesAndSeverity) {
  for (auto v : {Verdict::kImproved, Verdict::kUnchanged, Verdict::kRegressed,
                 Verdict::kInconclusive, Verdict::kMissing}) {
    EXPECT_EQ(verdict_from(to_string(v)), v);
  }
  EXPECT_EQ(worst(Verdict::kImproved, Verdict::kUnchanged), Verdict::kImproved);
  EXPECT_EQ(worst(Verdict::kMissing, Verdict::kInconclusive), Verdict::kMissing);
  EXPECT_EQ(worst(Verdict::kRegressed, Verdict::kMissing), Verdict::kRegressed);
  GateReport g;
  g.overall = Verdict::kImproved;
  EXPECT_EQ(exit_code(g, true), 0);
  g.overall = Verdict::kMissing;
  EXPECT_EQ(exit_code(g, false), 3);
}

}  // namespace
}  // namespace rtgate::gate
