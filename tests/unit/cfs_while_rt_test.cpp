// CfsWhileRt on hand-made sched_switch / wakeup / migration sequences: the time a CPU ran fair
// tasks while an RT task there was runnable (the fair server's or RT throttling's share), and
// none for an RT task that slept, for the microseconds of a wakeup preemption, or after the CPU
// went idle or the task moved away.
#include "framework/trace/cfs_while_rt.h"

#include <gtest/gtest.h>

namespace rtgate::trace {
namespace {

constexpr pid_t kHog = 200, kShell = 300, kMake = 301, kThread = 100;
constexpr int kRt = 2, kFair = 120;
constexpr std::int64_t kRunnablePreempted = 0x100;  // "R+"
constexpr std::int64_t kSleeping = 1;               // "S"
constexpr std::int64_t kUs = 1'000, kMs = 1'000'000;

TraceEvent sw(std::int64_t ts, int cpu, pid_t prev, int prev_prio, std::int64_t prev_state,
              pid_t next, int next_prio) {
  TraceEvent e;
  e.ts = ts;
  e.cpu = cpu;
  e.type = Ev::kSwitch;
  e.pid = prev;
  e.prio = prev_prio;
  e.value = prev_state;
  e.pid2 = next;
  e.prio2 = next_prio;
  return e;
}

TraceEvent moved(Ev type, std::int64_t ts, int on_cpu, pid_t pid, int prio, int target) {
  TraceEvent e;
  e.ts = ts;
  e.cpu = on_cpu;
  e.type = type;
  e.pid2 = pid;
  e.prio2 = prio;
  e.value = target;
  return e;
}

std::int64_t on(const CfsWhileRt& c, int cpu) {
  const auto r = c.result();
  const auto it = r.find(cpu);
  return it == r.end() ? -1 : it->second;
}

// The fair server's pattern: the hog is preempted (still runnable) for a fair task's 50 ms slice,
// during which two fair tasks take turns, then gets the CPU back.
TEST(CfsWhileRt, CountsTheFairSliceAnRtTaskWaitedThrough) {
  CfsWhileRt c;
  c.add(sw(0, 1, 0, kFair, 0, kHog, kRt));
  c.add(sw(1 * kMs, 1, kHog, kRt, kRunnablePreempted, kShell, kFair));
  c.add(sw(20 * kMs, 1, kShell, kFair, kSleeping, kMake, kFair));
  c.add(sw(51 * kMs, 1, kMake, kFair, kRunnablePreempted, kHog, kRt));
  c.add(sw(60 * kMs, 1, kHog, kRt, kSleeping, kShell, kFair));  // slept: nothing waits
  c.add(sw(90 * kMs, 1, kShell, kFair, kSleeping, 0, kFair));
  EXPECT_EQ(on(c, 1), 50 * kMs);
}

TEST(CfsWhileRt, AWakeupPreemptionOfMicrosecondsIsNotCounted) {
  CfsWhileRt c;
  c.add(sw(0, 1, 0, kFair, 0, kShell, kFair));
  for (std::int64_t t = 1 * kMs; t < 100 * kMs; t += 1 * kMs) {
    c.add(moved(Ev::kWakeup, t, 1, kThread, 4, 1));
    c.add(sw(t + 5 * kUs, 1, kShell, kFair, kRunnablePreempted, kThread, 4));
    c.add(sw(t + 20 * kUs, 1, kThread, 4, kSleeping, kShell, kFair));
  }
  EXPECT_EQ(on(c, 1), 0);
}

TEST(CfsWhileRt, AWokenRtTaskWaitsUntilItGetsTheCpu) {
  CfsWhileRt c;
  c.add(sw(0, 1, 0, kFair, 0, kShell, kFair));
  c.add(moved(Ev::kWakeup, 10 * kMs, 1, kThread, 4, 1));
  c.add(sw(13 * kMs, 1, kShell, kFair, kRunnablePreempted, kThread, 4));
  EXPECT_EQ(on(c, 1), 3 * kMs);
}

// A CPU going idle has nothing runnable: a task that left it unseen no longer counts.
TEST(CfsWhileRt, IdleOrAMigrationEndsTheWait) {
  CfsWhileRt c;
  c.add(sw(0, 0, 0, kFair, 0, kMake, kFair));  // CPU 0 is traced too
  c.add(sw(0, 1, 0, kFair, 0, kHog, kRt));
  c.add(sw(1 * kMs, 1, kHog, kRt, kRunnablePreempted, kShell, kFair));
  c.add(sw(2 * kMs, 1, kShell, kFair, kSleeping, 0, kFair));
  c.add(sw(5 * kMs, 1, 0, kFair, 0, kShell, kFair));
  c.add(sw(9 * kMs, 1, kShell, kFair, kRunnablePreempted, kHog, kRt));
  c.add(sw(10 * kMs, 1, kHog, kRt, kRunnablePreempted, kShell, kFair));
  c.add(moved(Ev::kMigrate, 11 * kMs, 1, kHog, kRt, 0));  // pushed to CPU 0
  c.add(sw(30 * kMs, 1, kShell, kFair, kSleeping, 0, kFair));
  EXPECT_EQ(on(c, 1), 2 * kMs) << "1-2 ms, then 10-11 ms; not after idle, not after it moved";
  EXPECT_EQ(on(c, 0), 19 * kMs) << "it waited on CPU 0 from 11 ms to the last event seen";
}

// A fair task boosted by PI is RT while it holds the lock; deboosted, it waits as a fair task.
TEST(CfsWhileRt, APiDeboostEndsTheWait) {
  CfsWhileRt c;
  c.add(sw(0, 1, 0, kFair, 0, kMake, kRt));  // kMake running boosted
  c.add(sw(1 * kMs, 1, kMake, kRt, kRunnablePreempted, kShell, kFair));
  TraceEvent deboost;
  deboost.ts = 3 * kMs;
  deboost.cpu = 0;
  deboost.type = Ev::kPiSetprio;
  deboost.pid2 = kMake;
  deboost.prio = kRt;
  deboost.prio2 = kFair;
  c.add(deboost);
  c.add(sw(40 * kMs, 1, kShell, kFair, kSleeping, kMake, kFair));
  EXPECT_EQ(on(c, 1), 2 * kMs);
}

TEST(CfsWhileRt, AWakeupForACpuWhoseSwitchesAreNotTracedIsIgnored) {
  CfsWhileRt c;
  c.add(sw(0, 1, 0, kFair, 0, kShell, kFair));
  c.add(moved(Ev::kWakeup, 1 * kMs, 1, kThread, 4, 3));
  c.add(sw(5 * kMs, 1, kShell, kFair, kSleeping, 0, kFair));
  EXPECT_EQ(on(c, 1), 0);
  EXPECT_EQ(on(c, 3), -1);
}

}  // namespace
}  // namespace rtgate::trace
