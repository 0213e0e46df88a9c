// The worst-sample analysis on hand-made event sequences: the parts partition the interval
// (they add up to the latency), each is credited to what ran, milestones and PI boosts are found,
// and gaps in the trace are named rather than hidden.
#include "framework/trace/sample_analysis.h"

#include <gtest/gtest.h>

#include <numeric>

namespace rtgate::trace {
namespace {

constexpr pid_t kTid = 100, kSpinner = 200;
constexpr std::int64_t kD = 1'000'000;  // the deadline

TraceEvent ev(std::int64_t ts, Ev type, pid_t pid) {
  TraceEvent e;
  e.ts = ts;
  e.type = type;
  e.pid = pid;
  e.cpu = 1;
  return e;
}
TraceEvent sw(std::int64_t ts, pid_t prev, int prev_prio, const char* prev_comm, pid_t next,
              int next_prio, const char* next_comm) {
  TraceEvent e = ev(ts, Ev::kSwitch, prev);
  e.prio = prev_prio;
  e.comm = prev_comm;
  e.pid2 = next;
  e.prio2 = next_prio;
  e.comm2 = next_comm;
  return e;
}
TraceEvent with(TraceEvent e, pid_t pid2, std::uint64_t addr = 0, std::string name = "",
                std::int64_t value = 0) {
  e.pid2 = pid2;
  e.addr = addr;
  e.comm2 = std::move(name);
  e.value = value;
  return e;
}

std::vector<const TraceEvent*> ptrs(const std::vector<TraceEvent>& v) {
  std::vector<const TraceEvent*> out;
  for (const auto& e : v) out.push_back(&e);
  return out;
}

Marker marker(std::int64_t latency) {
  return {.cpu = 1, .tid = kTid, .ts = kD + latency + 500, .thread = "cpu1",
          .deadline_ns = kD, .latency_ns = latency};
}

std::int64_t sum(const SampleAnalysis& a) {
  return std::accumulate(a.parts.begin(), a.parts.end(), std::int64_t{0},
                         [](std::int64_t s, const AnalysisPart& p) { return s + p.ns; });
}

std::string fifo(pid_t) { return "SCHED_FIFO"; }

// A FIFO 98 spinner holds the CPU from before the deadline; the thread's timer fires at +2 us
// inside the local timer vector, it is woken, and gets the CPU when the spinner sleeps.
std::vector<TraceEvent> spinner_story() {
  std::vector<TraceEvent> v;
  v.push_back(with(ev(kD - 900'000, Ev::kHrtimerStart, kTid), 0, 0xabc));
  v.push_back(sw(kD - 899'000, kTid, 4, "rtgate-cyc1", kSpinner, 1, "load-rt1"));
  v.push_back(with(ev(kD + 1'000, Ev::kVectorEntry, kSpinner), 0, 0, "local_timer"));
  v.push_back(with(ev(kD + 2'000, Ev::kHrtimerExpire, kSpinner), 0, 0xabc));
  v.push_back(with(ev(kD + 3'000, Ev::kWaking, kSpinner), kTid));
  v.push_back(with(ev(kD + 5'000, Ev::kVectorExit, kSpinner), 0, 0, "local_timer"));
  v.push_back(with(ev(kD + 50'000, Ev::kIrqEntry, kSpinner), 0, 0, "virtio0-input", 24));
  v.push_back(with(ev(kD + 60'000, Ev::kIrqExit, kSpinner), 0, 0, "", 24));
  v.push_back(sw(kD + 300'000, kSpinner, 1, "load-rt1", kTid, 4, "rtgate-cyc1"));
  return v;
}

TEST(SampleAnalysis, CreditsTheSpinnerThatHeldTheCpuAndThePartsAddUp) {
  const auto events = spinner_story();
  const SampleAnalysis a = analyze_sample(marker(302'000), ptrs(events), -1, &fifo);
  EXPECT_EQ(sum(a), 302'000) << "a partition of [deadline, deadline + latency]";
  ASSERT_FALSE(a.parts.empty());
  const AnalysisPart& top = a.parts.front();
  EXPECT_EQ(top.kind, "task");
  EXPECT_EQ(top.name, "load-rt1");
  EXPECT_EQ(top.pid, kSpinner);
  EXPECT_EQ(top.policy, "SCHED_FIFO");
  EXPECT_EQ(top.prio, 98);
  EXPECT_EQ(top.ns, 1'000 + 45'000 + 240'000) << "all but the vector, the IRQ and the thread";
  EXPECT_EQ(a.timer_fired_ns, 2'000);
  EXPECT_EQ(a.woken_ns, 3'000);
  EXPECT_EQ(a.got_cpu_ns, 300'000);
  auto part = [&](const std::string& kind) {
    for (const auto& p : a.parts) {
      if (p.kind == kind) return p;
    }
    return AnalysisPart{};
  };
  EXPECT_EQ(part("vector").name, "local_timer");
  EXPECT_EQ(part("vector").ns, 4'000);
  EXPECT_EQ(part("irq").name, "virtio0-input");
  EXPECT_EQ(part("irq").ns, 10'000);
  EXPECT_EQ(part("self").ns, 2'000);
  EXPECT_NE(a.summary().find("load-rt1 (pid 200, SCHED_FIFO 98)"), std::string::npos)
      << a.summary();
}

TEST(SampleAnalysis, NestedSoftirqAndPiBoostsAreNamed) {
  std::vector<TraceEvent> v;
  v.push_back(sw(kD - 10, 1, 120, "bash", 0, 120, "swapper/1"));
  v.push_back(ev(kD + 100, Ev::kVectorEntry, 0));
  v.back().comm2 = "local_timer";
  v.push_back(ev(kD + 200, Ev::kVectorExit, 0));
  v.back().comm2 = "local_timer";
  v.push_back(with(ev(kD + 200, Ev::kSoftirqEntry, 0), 0, 0, "", 1));  // TIMER
  v.push_back(with(ev(kD + 700, Ev::kSoftirqExit, 0), 0, 0, "", 1));
  TraceEvent boost = with(ev(kD + 750, Ev::kPiSetprio, 0), 300, 0, "holder");
  boost.prio = 120;
  boost.prio2 = 4;
  v.push_back(boost);
  v.push_back(sw(kD + 800, 0, 120, "swapper/1", kTid, 4, "rtgate-cyc1"));
  const SampleAnalysis a = analyze_sample(marker(1'000), ptrs(v), -1, {});
  EXPECT_EQ(sum(a), 1'000);
  bool softirq = false;
  for (const auto& p : a.parts) softirq = softirq || (p.kind == "softirq" && p.name == "TIMER");
  EXPECT_TRUE(softirq);
  ASSERT_EQ(a.pi_boosts.size(), 1u);
  EXPECT_EQ(a.pi_boosts[0].comm, "holder");
  EXPECT_EQ(a.pi_boosts[0].new_prio, 4);
  EXPECT_EQ(a.pi_boosts[0].at_ns, 750);
}

TEST(SampleAnalysis, ATraceThatBeginsLateSaysSo) {
  std::vector<TraceEvent> v;
  v.push_back(sw(kD + 400, kSpinner, 1, "load-rt1", kTid, 4, "rtgate-cyc1"));
  const SampleAnalysis a = analyze_sample(marker(500), ptrs(v), -1, {});
  EXPECT_EQ(sum(a), 500);
  ASSERT_FALSE(a.parts.empty());
  EXPECT_EQ(a.parts.front().kind, "untraced");
  EXPECT_EQ(a.parts.front().ns, 400);
  EXPECT_NE(a.note.find("after the deadline"), std::string::npos);
}

// The switch out of idle can be missing from a kernel's trace: the task the next event names
// (its common_pid) is taken as current from the event before it on.
TEST(SampleAnalysis, AMissingSwitchIsInferredFromTheEventsCommonPid) {
  std::vector<TraceEvent> v;
  v.push_back(sw(kD - 100, kTid, 4, "rtgate-cyc1", 0, 120, "swapper/1"));
  v.push_back(with(ev(kD + 100, Ev::kWaking, 0), kSpinner));  // idle wakes the spinner
  v.push_back(ev(kD + 200, Ev::kHrtimerStart, kSpinner));      // the spinner runs: no switch
  v.push_back(sw(kD + 900, kSpinner, 1, "load-rt1", kTid, 4, "rtgate-cyc1"));
  const SampleAnalysis a = analyze_sample(marker(1'000), ptrs(v), -1, {});
  EXPECT_EQ(sum(a), 1'000);
  ASSERT_GE(a.parts.size(), 2u);
  EXPECT_EQ(a.parts.front().kind, "task");
  EXPECT_EQ(a.parts.front().ns, 800) << "from the waking (the last idle event) to the switch";
  EXPECT_NE(a.note.find("missing from the trace"), std::string::npos) << a.note;
}

TEST(SampleAnalysis, ParsesTheHooksMarker) {
  TraceEvent e = ev(5, Ev::kMarker, kTid);
  e.comm2 = "tracing_mark_write: rtgate: pi_mutex/rt0 latency_ns=612345 deadline_ns=123 break";
  const auto m = parse_marker(e);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->thread, "pi_mutex/rt0");
  EXPECT_EQ(m->latency_ns, 612345);
  EXPECT_EQ(m->deadline_ns, 123);
  EXPECT_TRUE(m->is_break);
  e.comm2 = "someone else's marker";
  EXPECT_FALSE(parse_marker(e));
}

}  // namespace
}  // namespace rtgate::trace
