// The classic priority-inversion scenario, on one CPU, for any lock.
//
//   low  (FIFO low_prio)  takes the lock and parks on a futex, holding it;
//   mid  (FIFO mid_prio)  is started and parks on a futex;
//   high (FIFO high_prio) is started, wakes low and mid, then blocks on the lock;
//   then low works `critical_ns` of CPU time inside the lock, unless mid (spinning `spin_ns`)
//   keeps it off the CPU.
//
// Without priority inheritance mid keeps low off the CPU, so high waits >= spin_ns. With PI the
// kernel boosts low to high's priority, mid cannot preempt it, and high waits about critical_ns.
// The order needs no observer and no timing: high wakes low and mid while high itself runs on
// the shared CPU, so neither runs before high blocks, and mid runs then only if low was not
// boosted. Earlier, low's critical section started when it took the lock and mid was started
// once the conductor saw high asleep in /proc: under TCG, creating the threads alone outlasted
// the critical section, and high found the lock free in every round.
// The conductor (FIFO, above all three) still watches /proc while high waits, to report low's
// effective priority; that reading is evidence, not what the scenario depends on.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "framework/measure/thread_times.h"

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
  // High called lock while low still held it (low released after high's call): the scenario
  // engaged. Decided by the two threads' own clock readings, not by an observer.
  bool contended = false;
  // What the conductor saw in /proc while high waited (it may see nothing on a slow machine).
  bool high_seen_blocked = false;  // high was seen asleep in the kernel ('S' or 'D')
  char high_state_seen = '?';      // the state it was seen in
  // Kernel-reported priorities (/proc/<tid>/stat field 18: -1 - rt_priority for RT tasks); only
  // meaningful with high_seen_blocked.
  int low_prio_while_blocked = 0;  // low's highest effective priority seen while high waited
  int high_prio_reported = 0;
  // Where low's critical section went (thread_times.h): on CPU, preempted by another task, or
  // taken by the host. High's wait is this window plus low's wakeup and high's own.
  WindowSplit low_window;
  // The gaps in low's busy loop inside that section (busy.h): time it did not run. Beyond its
  // run delay it is IRQ time, or, in a guest whose CPU clock absorbs the host's time, the host.
  std::int64_t low_gaps_ns = 0;
  // Mid started spinning before high's lock call returned: the lock holder was not boosted
  // above mid. The kernel's PI is what stops that, whatever else delayed the round.
  bool mid_ran_while_high_waited = false;
  std::string error;  // non-empty: the scenario could not be run (no second CPU, EPERM)
};

// Needs SCHED_FIFO and at least two CPUs. Bounded: every spin is time-limited.
InversionResult run_inversion(const InversionSetup& setup);

// /proc/self/task/<tid>/stat field 18 ("priority"), or INT_MIN when unreadable.
int kernel_priority(int tid);
// /proc/self/task/<tid>/stat field 3 ("state"), or '?'.
char kernel_state(int tid);

}  // namespace rtgate::rt
