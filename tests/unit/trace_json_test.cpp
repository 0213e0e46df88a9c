// The trace evidence in the result JSON: written only for traced results, read back field for
// field, and absent or malformed trace fields never stop a result from loading.
#include "results/trace_json.h"

#include <gtest/gtest.h>

#include "framework/trace/cause_profile.h"
#include "results/result_json.h"

namespace rtgate {
namespace {

RunReport traced_report() {
  RunReport r;
  SuiteResult s;
  s.name = "cyclic";
  Case c;
  c.name = "cpu1";
  c.labels = {{"cpu", "1"}};
  trace::SampleAnalysis a;
  a.trigger = "worst";
  a.run = 2;
  a.cpu = 1;
  a.thread = "cpu1";
  a.tid = 77;
  a.deadline_ns = 123;
  a.latency_ns = 3000;
  a.timer_fired_ns = 10;
  a.woken_ns = 20;
  a.got_cpu_ns = 2900;
  a.parts = {{.kind = "task",
              .name = "load-rt1",
              .pid = 42,
              .policy = "SCHED_FIFO",
              .prio = 98,
              .ns = 2900,
              .count = 1},
             {.kind = "softirq", .name = "NET_RX", .ns = 100, .count = 2}};
  a.pi_boosts = {{.pid = 5, .comm = "holder", .old_prio = 120, .new_prio = 4, .at_ns = 50}};
  a.note = "n";
  a.excerpt_file = "cyclic.cpu1.txt";
  a.excerpt = "not in the JSON";
  c.analysis = {a};
  s.cases.push_back(c);
  TraceRecord t;
  t.runs = 3;
  t.events = 1000;
  t.lost = 1;
  t.markers = 9;
  t.break_reason = "break: cpu1 latency 3.0 us over --break-us 2";
  t.locks.traced = true;
  t.locks.locks = {{.lock = "rename_lock",
                    .kind = "SPIN",
                    .caller = "d_walk+0x1",
                    .wait = {.count = 4, .total_ns = 400, .max_ns = 200}}};
  t.locks.mmap_lock_write = {.count = 2, .total_ns = 30, .max_ns = 20};
  s.trace = t;
  r.suites.push_back(s);
  return r;
}

TEST(TraceJson, RoundTrips) {
  const RunReport back = report_from_json(nlohmann::json::parse(to_json_text(traced_report())));
  const SuiteResult& s = back.suites.at(0);
  ASSERT_EQ(s.cases.at(0).analysis.size(), 1u);
  const trace::SampleAnalysis& a = s.cases[0].analysis[0];
  EXPECT_EQ(a.trigger, "worst");
  EXPECT_EQ(a.run, 2);
  EXPECT_EQ(a.tid, 77);
  EXPECT_EQ(a.got_cpu_ns, 2900);
  ASSERT_EQ(a.parts.size(), 2u);
  EXPECT_EQ(a.parts[0].prio, 98);
  EXPECT_EQ(a.parts[0].policy, "SCHED_FIFO");
  EXPECT_EQ(a.parts[1].name, "NET_RX");
  EXPECT_EQ(a.parts[1].count, 2);
  ASSERT_EQ(a.pi_boosts.size(), 1u);
  EXPECT_EQ(a.pi_boosts[0].comm, "holder");
  EXPECT_EQ(a.excerpt_file, "cyclic.cpu1.txt");
  EXPECT_EQ(a.excerpt, "") << "the excerpt is in its file, not the JSON";
  ASSERT_TRUE(s.trace);
  EXPECT_EQ(s.trace->events, 1000u);
  EXPECT_EQ(s.trace->break_reason, "break: cpu1 latency 3.0 us over --break-us 2");
  ASSERT_TRUE(s.trace->locks.traced);
  EXPECT_EQ(s.trace->locks.locks.at(0).caller, "d_walk+0x1");
  EXPECT_EQ(s.trace->locks.mmap_lock_write.max_ns, 20);
}

TEST(TraceJson, UntracedResultsHaveNoTraceFieldsAndOldOnesLoad) {
  RunReport r = traced_report();
  r.suites[0].trace.reset();
  r.suites[0].cases[0].analysis.clear();
  const auto j = to_json(r);
  EXPECT_FALSE(j["suites"][0].contains("trace"));
  EXPECT_FALSE(j["suites"][0]["cases"][0].contains("analysis"));
  auto doc = nlohmann::json::parse(to_json_text(traced_report()));
  doc["suites"][0]["trace"] = "garbage";
  doc["suites"][0]["cases"][0]["analysis"] = {{{"latency_ns", "x"}, {"parts", 3}}};
  const RunReport back = report_from_json(doc);
  EXPECT_EQ(back.suites[0].cases[0].analysis.at(0).latency_ns, 0);
  EXPECT_TRUE(back.suites[0].cases[0].analysis[0].parts.empty());
}

TEST(TraceJson, MergingRunsKeepsTheWorstPerCpuAndBoundsCrossings) {
  std::vector<trace::SampleAnalysis> into;
  trace::SampleAnalysis w;
  w.trigger = "worst";
  w.cpu = 1;
  w.thread = "cpu1";
  w.latency_ns = 100;
  merge_analyses(into, {w});
  w.latency_ns = 300;
  w.run = 1;
  trace::SampleAnalysis t = w;
  t.trigger = "threshold";
  std::vector<trace::SampleAnalysis> later(kMaxCrossings + 3, t);
  later.push_back(w);
  merge_analyses(into, later);
  int worst = 0, crossings = 0;
  for (const auto& a : into) {
    worst += a.trigger == "worst";
    crossings += a.trigger == "threshold";
    if (a.trigger == "worst") {
      EXPECT_EQ(a.latency_ns, 300);
    }
  }
  EXPECT_EQ(worst, 1);
  EXPECT_EQ(crossings, static_cast<int>(kMaxCrossings));
}

// The host's part, the window's steal, the task that delayed the thread, the steal source and the
// fair class's time over waiting RT tasks: written, read back, and absent from older results.
TEST(TraceJson, HostStealFieldsRoundTripAndOlderResultsLoadWithout) {
  RunReport r = traced_report();
  trace::SampleAnalysis& a = r.suites[0].cases[0].analysis[0];
  a.parts.insert(a.parts.begin(),
                 {.kind = "host", .name = "vCPU not running", .ns = 7000, .count = 1});
  a.latency_ns += 7000;
  a.steal_ns = 9000;
  a.steal_window_ns = 100'000'000;
  a.delayed_by = a.parts[1];
  r.suites[0].trace->steal_source = "steal clock";
  r.suites[0].trace->cfs_while_rt_runnable_ms = {{1, {12.5, 0}}};
  const auto doc = nlohmann::json::parse(to_json_text(r));
  const auto& aj = doc["suites"][0]["cases"][0]["analysis"][0];
  EXPECT_EQ(
      aj["parts"][0],
      (nlohmann::json{{"kind", "host"}, {"name", "vCPU not running"}, {"ns", 7000}, {"count", 1}}));
  EXPECT_EQ(aj["delayed_by"]["name"], "load-rt1");
  EXPECT_EQ(aj["delayed_by"]["prio"], 98);
  EXPECT_EQ(doc["suites"][0]["trace"]["cfs_while_rt_runnable_ms"]["1"][0], 12.5);
  const RunReport back = report_from_json(doc);
  const trace::SampleAnalysis& b = back.suites[0].cases[0].analysis.at(0);
  EXPECT_EQ(b.host_ns(), 7000);
  EXPECT_EQ(b.guest_latency_ns(), 3000);
  EXPECT_EQ(b.steal_ns, 9000);
  EXPECT_EQ(b.steal_window_ns, 100'000'000);
  ASSERT_TRUE(b.delayed_by);
  EXPECT_EQ(b.delayed_by->pid, 42);
  EXPECT_EQ(b.delayed_by->policy, "SCHED_FIFO");
  EXPECT_EQ(back.suites[0].trace->steal_source, "steal clock");
  EXPECT_EQ(back.suites[0].trace->cfs_while_rt_runnable_ms.at(1), (std::vector<double>{12.5, 0}));

  const RunReport old = report_from_json(nlohmann::json::parse(to_json_text(traced_report())));
  const trace::SampleAnalysis& o = old.suites[0].cases[0].analysis.at(0);
  EXPECT_EQ(o.steal_ns, -1) << "not read";
  EXPECT_FALSE(o.delayed_by);
  EXPECT_EQ(o.host_ns(), 0);
  EXPECT_TRUE(old.suites[0].trace->cfs_while_rt_runnable_ms.empty());
  auto bad = doc;
  bad["suites"][0]["trace"]["cfs_while_rt_runnable_ms"] = {{"x", {1}}, {"2", "y"}};
  bad["suites"][0]["cases"][0]["analysis"][0]["delayed_by"] = 5;
  const RunReport tolerated = report_from_json(bad);
  EXPECT_FALSE(tolerated.suites[0].cases[0].analysis.at(0).delayed_by);
  EXPECT_TRUE(tolerated.suites[0].trace->cfs_while_rt_runnable_ms.empty());
}

// A run's guest worst replaces another's only when more of it was the guest's.
TEST(TraceJson, MergingRanksGuestWorstsByTheirGuestLatency) {
  trace::SampleAnalysis g;
  g.trigger = "guest_worst";
  g.cpu = 1;
  g.thread = "cpu1";
  g.latency_ns = 2000;
  std::vector<trace::SampleAnalysis> into{g};
  trace::SampleAnalysis hosted = g;
  hosted.latency_ns = 9000;
  hosted.parts = {{.kind = "host", .ns = 8000}};
  merge_analyses(into, {hosted});
  ASSERT_EQ(into.size(), 1u);
  EXPECT_EQ(into[0].latency_ns, 2000) << "9000 ns of which 8000 the host's is 1000 of the guest's";
  g.latency_ns = 2500;
  merge_analyses(into, {g});
  EXPECT_EQ(into[0].latency_ns, 2500);
}

TEST(TraceJson, CauseProfilesThresholdsAndPerRunLockCountsRoundTrip) {
  RunReport r = traced_report();
  trace::CauseProfile p;
  p.threshold_ns = 50'000;
  p.samples = 40;
  p.not_analysed = 3;
  p.ns = 4'000'000;
  p.slices = 12;
  p.causes["softirq NET_RX"] = {.samples = 17, .ns = 900'000, .slice_sq = 31.5};
  p.causes["self"] = {.samples = 40, .ns = 100'000, .slice_sq = 140};
  r.suites[0].cases[0].causes = p;
  r.suites[0].trace->threshold_ns = 50'000;
  r.suites[0].trace->threshold_from = "the baseline's p99";
  r.suites[0].trace->locks.runs = 3;
  r.suites[0].trace->locks.locks[0].per_run = {1, 0, 3};
  const auto j = to_json(r);
  // Largest latency first, for a reader of the JSON.
  EXPECT_EQ(j["suites"][0]["cases"][0]["causes"]["classes"][0]["cause"], "softirq NET_RX");
  const RunReport back = report_from_json(nlohmann::json::parse(to_json_text(r)));
  const Case& c = back.suites.at(0).cases.at(0);
  ASSERT_TRUE(c.causes);
  EXPECT_EQ(c.causes->threshold_ns, 50'000);
  EXPECT_EQ(c.causes->samples, 40u);
  EXPECT_EQ(c.causes->not_analysed, 3u);
  EXPECT_EQ(c.causes->slices, 12u);
  EXPECT_EQ(c.causes->causes.at("softirq NET_RX").samples, 17u);
  EXPECT_DOUBLE_EQ(c.causes->causes.at("softirq NET_RX").slice_sq, 31.5);
  EXPECT_EQ(c.causes->causes.at("self").ns, 100'000);
  const TraceRecord& t = *back.suites[0].trace;
  EXPECT_EQ(t.threshold_ns, 50'000);
  EXPECT_EQ(t.threshold_from, "the baseline's p99");
  EXPECT_EQ(t.locks.runs, 3);
  EXPECT_EQ(t.locks.locks.at(0).per_run, (std::vector<std::uint64_t>{1, 0, 3}));
  // A result from before profiles: no "causes", no threshold, no per-run lock counts.
  const RunReport old = report_from_json(nlohmann::json::parse(to_json_text(traced_report())));
  EXPECT_FALSE(old.suites[0].cases[0].causes);
  EXPECT_EQ(old.suites[0].trace->threshold_ns, 0);
  EXPECT_TRUE(old.suites[0].trace->locks.locks.at(0).per_run.empty());
}

TEST(TraceJson, MergingRunsMergesProfilesAndKeepsLockCountsPerRun) {
  SuiteResult a, b;
  for (SuiteResult* s : {&a, &b}) {
    Case c;
    c.name = "cpu1";
    trace::CauseProfileBuilder builder(10);
    trace::SampleAnalysis sample;
    sample.latency_ns = 20;
    sample.parts = {{.kind = "irq", .name = "eth0", .ns = 20}};
    builder.add(sample);
    c.causes = builder.result();
    s->cases.push_back(c);
    s->trace.emplace();
    s->trace->runs = 1;
    s->trace->threshold_ns = 10;
    s->trace->locks.traced = true;
    s->trace->locks.runs = 1;
  }
  a.trace->locks.locks = {
      {.lock = "rename_lock", .kind = "SPIN", .wait = {.count = 5}, .per_run = {5}}};
  b.trace->locks.locks = {{.lock = "dcache", .kind = "SPIN", .wait = {.count = 2}, .per_run = {2}}};
  a.merge_run(b);
  EXPECT_EQ(a.cases[0].causes->samples, 2u);
  EXPECT_EQ(a.cases[0].causes->causes.at("irq eth0").samples, 2u);
  EXPECT_EQ(a.trace->threshold_ns, 10);
  EXPECT_EQ(a.trace->locks.runs, 2);
  for (const trace::LockWait& w : a.trace->locks.locks) {
    EXPECT_EQ(w.per_run, w.lock == "rename_lock" ? (std::vector<std::uint64_t>{5, 0})
                                                 : (std::vector<std::uint64_t>{0, 2}))
        << w.lock;
  }
  b.trace->threshold_ns = 20;
  a.merge_run(b);
  EXPECT_EQ(a.trace->threshold_ns, -1) << "runs over different thresholds";
}

}  // namespace
}  // namespace rtgate
