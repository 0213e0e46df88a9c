// The gate's rules across a comparison, on small in-memory results: completeness, comparability,
// contamination, the multiplicity family and results read back from files. The per-metric rules
// are gate_metric_rules_test.cpp's; the error rates gate_calibration_test.cpp's.
#include <gtest/gtest.h>

#include "gate/pair/compare.h"
#include "gate_one_case.h"
#include "results/result_json.h"

namespace rtgate::gate {
namespace {

// --- Completeness ---------------------------------------------------------------------------

TEST(GateCompare, WhatTheBaselineHadAndCurrentLacksIsNeverGreen) {
  RunReport base = report_of({values(100, 0.03, 5, 20)});
  base.suites.push_back(report_of({values(100, 0.03, 5, 21)}, "other").suites[0]);
  RunReport cur = report_of({values(100, 0.03, 5, 22)});
  GateVerdict g = compare(base, cur);
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
  const GateVerdict fresh = compare(report_of({values(100, 0.03, 5, 23)}), base);
  EXPECT_FALSE(fresh.suites[1].gated);
}

TEST(GateCompare, FailedOrErroredCurrentIsRegressed) {
  const RunReport base = report_of({values(100, 0.03, 5, 24)});
  for (SuiteStatus st : {SuiteStatus::kFailed, SuiteStatus::kError}) {
    RunReport cur = report_of({values(100, 0.03, 5, 25)});
    cur.suites[0].status = st;
    cur.suites[0].reason = "watchdog";
    const GateVerdict g = compare(base, cur);
    EXPECT_EQ(g.overall, Verdict::kRegressed);
    EXPECT_EQ(exit_code(g, false), 1);
  }
}

TEST(GateCompare, AnIncompleteCurrentIsNeverGreen) {
  const RunReport base = report_of({values(100, 0.01, 10, 26)});
  RunReport cur = report_of({values(100.5, 0.01, 10, 27)});
  EXPECT_EQ(compare(base, cur).overall, Verdict::kUnchanged);
  cur.complete = false;
  const GateVerdict g = compare(base, cur);
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
  const GateVerdict g = compare(base, cur);
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
  const GateVerdict g = compare(base, cur);
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
  GateVerdict g = compare(base, cur);
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
    const GateVerdict g = compare(base, cur);
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
  const GateVerdict alone = compare(base, cur), beside = compare(wide_base, wide_cur);
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
  const GateVerdict g = compare(report_of(many), report_of(many), p);
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

TEST(VerdictEnum, NamesAndSeverity) {
  for (auto v : {Verdict::kImproved, Verdict::kUnchanged, Verdict::kRegressed,
                 Verdict::kInconclusive, Verdict::kMissing}) {
    EXPECT_EQ(verdict_from(to_string(v)), v);
  }
  EXPECT_EQ(worst(Verdict::kImproved, Verdict::kUnchanged), Verdict::kImproved);
  EXPECT_EQ(worst(Verdict::kMissing, Verdict::kInconclusive), Verdict::kMissing);
  EXPECT_EQ(worst(Verdict::kRegressed, Verdict::kMissing), Verdict::kRegressed);
  GateVerdict g;
  g.overall = Verdict::kImproved;
  EXPECT_EQ(exit_code(g, true), 0);
  g.overall = Verdict::kMissing;
  EXPECT_EQ(exit_code(g, false), 3);
}

}  // namespace
}  // namespace rtgate::gate
