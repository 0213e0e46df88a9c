// The classic priority-inversion scenario, on one CPU, for any lock.
//
//   low  (FIFO low_prio)  takes the lock and works `critical_ns` of CPU time inside it;
//   high (FIFO high_prio) is started, blocks on the lock;
//   mid  (FIFO mid_prio)  is started once high sleeps in the kernel, and spins `spin_ns`.
//
// Without priority inheritance mid keeps low off the CPU, so high waits >= spin_ns. With PI the
// kernel boosts low to high's priority, mid cannot preempt it, and high waits about critical_ns.
// A conductor thread on another CPU (FIFO, above all three) sequences the steps and reads low's
// effective priority from /proc while high is blocked.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace rtgate::rt {

struct InversionSetup {
  int cpu = -1;  // where low, mid and high run; -1: the last allowed CPU
  int low_prio = 10;
  int mid_prio = 20;
  int high_prio = 30;
  std::int64_t critical_ns = 5'000'000;  // low's CPU time inside the lock
  std::int64_t spin_ns = 50'000'000;     // mid's busy loop, wall time
  std::function<void()> low_acquire, low_release, high_acquire, high_release;
};

struct InversionResult {
  std::int64_t high_wait_ns = 0;  // from high's lock call to its return
  // Kernel-reported priorities (/proc/<tid>/stat field 18: -1 - rt_priority for RT tasks).
  int low_prio_while_blocked = 0;  // low's effective priority while high was blocked
  int high_prio_reported = 0;
  bool high_blocked = false;  // high was seen sleeping in the kernel before mid started
  std::string error;          // non-empty: the scenario could not be run (no second CPU, EPERM)
};

// Needs SCHED_FIFO and at least two CPUs. Bounded: every spin is time-limited.
InversionResult run_inversion(const InversionSetup& setup);

// /proc/self/task/<tid>/stat field 18 ("priority"), or INT_MIN when unreadable.
int kernel_priority(int tid);
// /proc/self/task/<tid>/stat field 3 ("state"), or '?'.
char kernel_state(int tid);

}  // namespace rtgate::rt
