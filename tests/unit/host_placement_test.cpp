// Host placement on hand-made event sequences with hand-made steal: the time the host most
// plausibly took is its own part only where a stretch is too long for what ran and the window's
// steal covers it, never more than that steal, never out of a task's slice after the timer fired;
// the parts still add up to the latency, and the task that delayed the thread is named apart from
// it.
#include "framework/trace/host_placement.h"

#include <gtest/gtest.h>

#include <numeric>

#include "framework/trace/sample_analysis.h"

namespace rtgate::trace {
namespace {

constexpr pid_t kTid = 100, kHog = 200, kShell = 300;
constexpr int kTidPrio = 4;              // SCHED_FIFO 95, as the kernel numbers it
constexpr int kHogPrio = 2;              // SCHED_FIFO 97
constexpr int kShellPrio = 120;          // SCHED_OTHER, nice 0
constexpr std::int64_t kD = 10'000'000;  // the deadline
constexpr std::int64_t kUs = 1'000, kMs = 1'000'000;

TraceEvent ev(std::int64_t ts, Ev type, pid_t pid, std::string name = "") {
  TraceEvent e;
  e.ts = ts;
  e.type = type;
  e.pid = pid;
  e.cpu = 1;
  e.comm2 = std::move(name);
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
TraceEvent timer(std::int64_t ts, Ev type, pid_t pid) {
  TraceEvent e = ev(ts, type, pid);
  e.addr = 0xabc;
  return e;
}
TraceEvent wake(std::int64_t ts, pid_t by) {
  TraceEvent e = ev(ts, Ev::kWaking, by);
  e.pid2 = kTid;
  e.prio2 = kTidPrio;
  return e;
}

// The thread's timer interrupt at `at` on a CPU current with `pid`: the local_timer vector from
// `at` to `exit`, the timer firing and the thread woken 1 and 2 us into it.
void timer_irq(std::vector<TraceEvent>& v, pid_t pid, std::int64_t at, std::int64_t exit) {
  v.push_back(ev(at, Ev::kVectorEntry, pid, "local_timer"));
  v.push_back(timer(at + kUs, Ev::kHrtimerExpire, pid));
  v.push_back(wake(at + 2 * kUs, pid));
  v.push_back(ev(exit, Ev::kVectorExit, pid, "local_timer"));
}

// The thread armed its timer and slept; `next` got the CPU.
std::vector<TraceEvent> slept(pid_t next, int next_prio, const char* next_comm) {
  std::vector<TraceEvent> v;
  v.push_back(timer(kD - 900 * kUs, Ev::kHrtimerStart, kTid));
  v.push_back(sw(kD - 899 * kUs, kTid, kTidPrio, "rtgate-cyc1", next, next_prio, next_comm));
  return v;
}

std::vector<const TraceEvent*> ptrs(const std::vector<TraceEvent>& v) {
  std::vector<const TraceEvent*> out;
  for (const auto& e : v) out.push_back(&e);
  return out;
}

Marker marker(std::int64_t latency) {
  return {.cpu = 1,
          .tid = kTid,
          .ts = kD + latency + 500,
          .thread = "cpu1",
          .deadline_ns = kD,
          .latency_ns = latency};
}

std::int64_t sum(const SampleAnalysis& a) {
  return std::accumulate(a.parts.begin(), a.parts.end(), std::int64_t{0},
                         [](std::int64_t s, const AnalysisPart& p) { return s + p.ns; });
}

std::int64_t part(const SampleAnalysis& a, const std::string& kind) {
  for (const auto& p : a.parts) {
    if (p.kind == kind) return p.ns;
  }
  return 0;
}

std::string fifo_or_other(pid_t pid) { return pid == kShell ? "SCHED_OTHER" : "SCHED_FIFO"; }

SampleAnalysis analyse(const std::vector<TraceEvent>& v, std::int64_t latency, WindowSteal st) {
  return analyze_sample(marker(latency), ptrs(v), -1, &fifo_or_other, st);
}

// The reported case: an idle vCPU, the timer's vector "running" 7583 us, the thread 60 us late
// after it. With 9 ms of steal in the window, all but a handler's plausible 100 us is the host's.
std::vector<TraceEvent> stolen_timer_handler() {
  std::vector<TraceEvent> v = slept(0, 120, "swapper/1");
  timer_irq(v, 0, kD + 50 * kUs, kD + 7633 * kUs);
  v.push_back(sw(kD + 7640 * kUs, 0, 120, "swapper/1", kTid, kTidPrio, "rtgate-cyc1"));
  return v;
}

TEST(HostPlacement, ATimerHandlerOfMillisecondsIsTheHostsWhenStealCoversIt) {
  const SampleAnalysis a = analyse(stolen_timer_handler(), 7700 * kUs, {9 * kMs, 100 * kMs});
  EXPECT_EQ(sum(a), 7700 * kUs) << "the parts still partition the interval";
  ASSERT_FALSE(a.parts.empty());
  EXPECT_EQ(a.parts.front().kind, "host");
  EXPECT_EQ(a.parts.front().name, "vCPU not running");
  EXPECT_EQ(a.parts.front().ns, 7483 * kUs);
  EXPECT_EQ(part(a, "vector"), 100 * kUs) << "the handler keeps what a handler can take";
  EXPECT_EQ(a.host_ns(), 7483 * kUs);
  EXPECT_EQ(a.guest_latency_ns(), 217 * kUs);
  EXPECT_EQ(a.steal_ns, 9 * kMs);
  EXPECT_EQ(a.steal_window_ns, 100 * kMs);
  EXPECT_FALSE(a.delayed_by) << "no task delayed the thread";
  EXPECT_NE(a.summary().find("host (vCPU not running) 7483.0 us 97%"), std::string::npos)
      << a.summary();
  EXPECT_NE(a.note.find("7.48 ms of it is placed on the host, in vector local_timer"),
            std::string::npos)
      << a.note;
  EXPECT_NE(a.note.find("1.52 ms is not placed"), std::string::npos) << a.note;
}

TEST(HostPlacement, NothingIsPlacedWithoutStealOrWithoutAReading) {
  for (const WindowSteal st : {WindowSteal{0, 100 * kMs}, WindowSteal{}}) {
    const SampleAnalysis a = analyse(stolen_timer_handler(), 7700 * kUs, st);
    EXPECT_EQ(sum(a), 7700 * kUs);
    EXPECT_EQ(a.host_ns(), 0);
    EXPECT_EQ(part(a, "vector"), 7583 * kUs) << "the trace's view, as before";
    EXPECT_EQ(a.note.find("host steal"), std::string::npos) << a.note;
  }
}

TEST(HostPlacement, NeverMoreThanTheWindowsSteal) {
  const SampleAnalysis a = analyse(stolen_timer_handler(), 7700 * kUs, {2 * kMs, 60 * kMs});
  EXPECT_EQ(sum(a), 7700 * kUs);
  EXPECT_EQ(a.host_ns(), 2 * kMs);
  EXPECT_EQ(part(a, "vector"), 5583 * kUs) << "beyond what steal explains, the handler keeps it";
  EXPECT_EQ(a.note.find("not placed"), std::string::npos) << "all of the steal was placed";
}

// The hog (SCHED_FIFO 97, above the thread) spins through the deadline: the thread's timer fires
// on time, and it waits 1.5 ms for the hog. Steal in the window changes nothing: a higher-priority
// task has a right to the CPU, so the trace cannot tell steal in its slice from its spinning.
TEST(HostPlacement, AHigherPriorityTaskKeepsItsSliceAndIsNamed) {
  std::vector<TraceEvent> v = slept(0, 120, "swapper/1");
  v.push_back(sw(kD - 500 * kUs, 0, 120, "swapper/1", kHog, kHogPrio, "rtg_hog"));
  timer_irq(v, kHog, kD + kUs, kD + 5 * kUs);
  v.push_back(sw(kD + 1500 * kUs, kHog, kHogPrio, "rtg_hog", kTid, kTidPrio, "rtgate-cyc1"));
  const SampleAnalysis a = analyse(v, 1510 * kUs, {10 * kMs, 100 * kMs});
  EXPECT_EQ(sum(a), 1510 * kUs);
  EXPECT_EQ(a.host_ns(), 0);
  ASSERT_TRUE(a.delayed_by);
  EXPECT_EQ(a.delayed_by->name, "rtg_hog");
  EXPECT_EQ(a.delayed_by->pid, kHog);
  EXPECT_EQ(a.delayed_by->policy, "SCHED_FIFO");
  EXPECT_EQ(a.delayed_by->prio, 97);
  EXPECT_EQ(a.delayed_by->ns, 1496 * kUs);
  EXPECT_NE(a.summary().find("; delayed by rtg_hog (pid 200, SCHED_FIFO 97)"), std::string::npos)
      << a.summary();
  EXPECT_NE(a.note.find("10.00 ms is not placed"), std::string::npos) << a.note;
}

// The vCPU was taken away while a shell ran before the deadline and given back 3 ms after it: the
// timer interrupt comes at once, so the shell's stretch up to it is one the timer should have
// cut short. After the wakeup the shell (below the thread) keeps the CPU 10 us more: plausible.
TEST(HostPlacement, ATaskStillRunningWhenTheTimerWasDueIsTheHosts) {
  std::vector<TraceEvent> v = slept(kShell, kShellPrio, "bash");
  timer_irq(v, kShell, kD + 3 * kMs, kD + 3010 * kUs);
  v.push_back(sw(kD + 3020 * kUs, kShell, kShellPrio, "bash", kTid, kTidPrio, "rtgate-cyc1"));
  const SampleAnalysis a = analyse(v, 3030 * kUs, {4 * kMs, 80 * kMs});
  EXPECT_EQ(sum(a), 3030 * kUs);
  EXPECT_EQ(a.host_ns(), 2800 * kUs) << "the shell keeps the 200 us of a late timer";
  EXPECT_EQ(a.timer_fired_ns, 3001 * kUs);
  EXPECT_FALSE(a.delayed_by)
      << "the shell's 10 us after the wakeup are under a quarter of the guest's 230 us";
  // Without steal nothing is placed, and the note says what the trace does show: a late timer
  // interrupt (interrupts off, or a hypervisor delivering it late without stealing the vCPU, as
  // when a nested guest runs), not a task that kept the CPU from a runnable thread.
  const SampleAnalysis clean = analyse(v, 3030 * kUs, {0, 80 * kMs});
  EXPECT_EQ(clean.host_ns(), 0);
  EXPECT_NE(clean.note.find("timer fired 3001.0 us after its deadline while bash ran"),
            std::string::npos)
      << clean.note;
  EXPECT_EQ(clean.note.find("lower-priority task"), std::string::npos) << clean.note;
}

// A lower-priority task keeping the CPU 4 ms after the thread was woken is a kernel without
// preemption points where it ran (preempt=none, or a long preempt-off section): what rtgate is
// there to show. Steal in the window does not take it away.
TEST(HostPlacement, ALowerPriorityTaskThatWasNotPreemptedKeepsItsTime) {
  std::vector<TraceEvent> v = slept(kShell, kShellPrio, "bash");
  timer_irq(v, kShell, kD + 2 * kUs, kD + 6 * kUs);
  v.push_back(sw(kD + 4006 * kUs, kShell, kShellPrio, "bash", kTid, kTidPrio, "rtgate-cyc1"));
  const SampleAnalysis a = analyse(v, 4010 * kUs, {5 * kMs, 100 * kMs});
  EXPECT_EQ(sum(a), 4010 * kUs);
  EXPECT_EQ(a.host_ns(), 0);
  ASSERT_TRUE(a.delayed_by);
  EXPECT_EQ(a.delayed_by->name, "bash");
  EXPECT_EQ(a.delayed_by->policy, "SCHED_OTHER");
  EXPECT_NE(a.note.find("lower-priority task (bash)"), std::string::npos) << a.note;
  EXPECT_NE(a.note.find("5.00 ms is not placed"), std::string::npos) << a.note;
}

// An idle CPU that does not take its due timer for 5 ms, then a thread slow to read its clock:
// both are implausible; the largest excess is placed first and the steal runs out on the second.
TEST(HostPlacement, TheLargestExcessIsPlacedFirst) {
  std::vector<TraceEvent> v = slept(0, 120, "swapper/1");
  timer_irq(v, 0, kD + 5 * kMs, kD + 5005 * kUs);
  v.push_back(sw(kD + 5010 * kUs, 0, 120, "swapper/1", kTid, kTidPrio, "rtgate-cyc1"));
  const SampleAnalysis a = analyse(v, 6010 * kUs, {5 * kMs, 100 * kMs});
  EXPECT_EQ(sum(a), 6010 * kUs);
  EXPECT_EQ(a.host_ns(), 5 * kMs);
  EXPECT_EQ(part(a, "idle"), 205 * kUs) << "idle: 5005 us, of which 4800 us over its bound";
  EXPECT_EQ(part(a, "self"), 800 * kUs) << "the 200 us of steal left of the thread's 900 over";
}

TEST(HostPlacement, TimeTheTraceDoesNotShowIsNeverPlaced) {
  std::vector<TraceEvent> v;
  v.push_back(sw(kD + 4 * kMs, kHog, kHogPrio, "rtg_hog", kTid, kTidPrio, "rtgate-cyc1"));
  const SampleAnalysis a = analyse(v, 4010 * kUs, {10 * kMs, 100 * kMs});
  EXPECT_EQ(a.host_ns(), 0);
  EXPECT_EQ(part(a, "untraced"), 4 * kMs);
}

TEST(HostPlacement, BoundsByWhatRan) {
  const Milestones due{.due_ns = 50 * kUs};
  const auto bound = [&](Segment s) { return plausible_ns(s, due); };
  EXPECT_EQ(bound({.kind = "vector", .ns = 1}), 100 * kUs);
  EXPECT_EQ(bound({.kind = "irq", .ns = 1}), 100 * kUs);
  EXPECT_EQ(bound({.kind = "softirq", .ns = 1}), 500 * kUs);
  EXPECT_EQ(bound({.kind = "self", .ns = 1}), 100 * kUs);
  EXPECT_EQ(bound({.kind = "idle", .ns = 1}), 200 * kUs);
  EXPECT_EQ(bound({.kind = "untraced", .ns = 1}), -1);
  EXPECT_EQ(bound({.kind = "task", .from_ns = 0, .ns = 50 * kUs}), 200 * kUs)
      << "running when the timer was due";
  EXPECT_EQ(bound({.kind = "task", .from_ns = 40 * kUs, .ns = kMs}), -1)
      << "still running when the timer fired";
  EXPECT_EQ(plausible_ns({.kind = "task", .ns = kMs}, {}), -1) << "milestones unknown";
}

}  // namespace
}  // namespace rtgate::trace
