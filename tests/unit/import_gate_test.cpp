// What the result file and the gate make of imported metrics: a summary-only metric and a
// histogram's unknown quantiles survive a write and both readers, the gate judges only what
// both sides have and says what it cannot compare, and an imported suite against rtgate's own
// is never silently one instrument.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "gate/pair/compare.h"
#include "importers/import_files.h"
#include "results/result_json.h"

namespace rtgate {
namespace {

Metric histogram_metric(std::uint64_t base_ns) {
  LatencyHistogram h;
  for (int i = 0; i < 1000; ++i) h.record(static_cast<std::int64_t>(base_ns + (i % 50) * 100));
  return Metric::latency("wakeup_latency", std::move(h), {});
}

Metric summary_only(std::uint64_t max_ns) {
  Metric m;
  m.name = "wakeup_latency";
  m.kind = MetricKind::kLatency;
  m.unit = "ns";
  m.summary_only = true;
  LatencySummary s;
  s.count = 1000;
  s.min = max_ns / 10;
  s.mean = static_cast<double>(max_ns) / 5;
  s.max = max_ns;
  m.runs = {s, s, s};
  return m;
}

RunReport report_with(Metric m, bool imported) {
  RunReport r;
  r.tool_version = RTGATE_VERSION;
  r.started_at = "2026-01-01T00:00:00Z";
  r.environment.hostname = "h";
  SuiteResult s;
  s.name = "cyclic";
  s.runs = static_cast<int>(m.runs.size());
  if (imported) s.imported = ImportRecord{.tool = "cyclictest", .version = "2.40"};
  Case c;
  c.name = "cpu0";
  c.metrics.push_back(std::move(m));
  s.cases.push_back(std::move(c));
  r.suites.push_back(std::move(s));
  return r;
}

const Metric& only_metric(const RunReport& r) { return r.suites.at(0).cases.at(0).metrics.at(0); }

TEST(ImportGate, SummaryOnlyMetricSurvivesBothReaders) {
  Metric with_unknown = histogram_metric(40'000);
  with_unknown.unknown_quantiles = {"p9999"};
  for (const Metric& m : {summary_only(90'000), with_unknown}) {
    const RunReport r = report_with(m, true);
    const std::string text = to_json_text(r);
    EXPECT_EQ(text.find("\"p99\":0"), std::string::npos) << "an unknown written as 0";
    const RunReport full = report_from_text(text);
    char path[] = "/tmp/rtgate-import-gate-XXXXXX";
    const int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    close(fd);
    const RunReport history = read_report_file(path, {.history_only = true});
    std::remove(path);
    for (const RunReport* back : {&full, &history}) {
      const Metric& b = only_metric(*back);
      EXPECT_EQ(b.summary_only, m.summary_only);
      EXPECT_EQ(b.unknown_quantiles, m.unknown_quantiles);
      ASSERT_EQ(b.runs.size(), m.runs.size());
      EXPECT_EQ(b.runs[0].max, m.runs[0].max);
      EXPECT_EQ(b.runs[0].count, m.runs[0].count);
      ASSERT_TRUE(back->suites[0].imported);
      EXPECT_EQ(back->suites[0].imported->tool, "cyclictest");
    }
  }
}

TEST(ImportGate, QuantilesASideDoesNotHaveAreNotComparableAndNeverUnchanged) {
  // Identical maxima on both sides, so the max cannot regress; p99 and p99.9 cannot be judged.
  const RunReport base = report_with(summary_only(90'000), true);
  RunReport cur = report_with(histogram_metric(40'000), true);
  Metric& c = cur.suites[0].cases[0].metrics[0];
  c.runs = {c.runs[0], c.runs[0], c.runs[0]};  // three runs, as the baseline
  for (LatencySummary& r : c.runs) r.max = 90'000;
  c.histogram.reset();
  LatencyHistogram h;
  for (int i = 0; i < 3000; ++i) h.record(i % 3000 == 0 ? 90'000 : 40'000);
  c.histogram = std::move(h);
  const gate::GateVerdict g = gate::compare(base, cur);
  const gate::MetricVerdict& v = g.suites.at(0).metrics.at(0);
  EXPECT_EQ(v.verdict, gate::Verdict::kInconclusive) << v.reason;
  std::vector<std::string> unknown;
  bool max_judged = false;
  for (const gate::Evidence& e : v.evidence) {
    if (e.test == gate::EvidenceTest::kNotComparable) unknown.push_back(e.statistic);
    if (e.test == gate::EvidenceTest::kRunMax) max_judged = true;
  }
  EXPECT_EQ(unknown, (std::vector<std::string>{"p99", "p999"}));
  EXPECT_TRUE(max_judged);
  EXPECT_NE(v.reason.find("not comparable: the baseline has count, min, mean and max only"),
            std::string::npos)
      << v.reason;
}

TEST(ImportGate, SummaryOnlyBudgetJudgesTheExactMax) {
  gate::Policy policy;
  policy.budgets_ns["cyclic/wakeup_latency"] = 50'000;
  const RunReport base = report_with(summary_only(40'000), true);
  const RunReport cur = report_with(summary_only(90'000), true);
  const gate::GateVerdict g = gate::compare(base, cur, policy);
  const gate::MetricVerdict& v = g.suites.at(0).metrics.at(0);
  EXPECT_EQ(v.verdict, gate::Verdict::kRegressed) << v.reason;
  EXPECT_EQ(v.decided_by, "budget");
}

TEST(ImportGate, ImportedAgainstRtgatesOwnIsListedAsAnotherInstrument) {
  const RunReport base = report_with(summary_only(90'000), true);
  const RunReport cur = report_with(summary_only(90'000), false);
  const gate::GateVerdict g = gate::compare(base, cur);
  ASSERT_FALSE(g.incomparable.empty());
  EXPECT_EQ(g.incomparable[0], "cyclic: measured by: 'cyclictest 2.40 (imported)' -> 'rtgate'");
  // Two imports of the same tool are one instrument.
  EXPECT_TRUE(gate::compare(base, base).incomparable.empty());
}

}  // namespace
}  // namespace rtgate
