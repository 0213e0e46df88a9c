// CfsWhileRt: how long each traced CPU ran SCHED_OTHER (fair-class) tasks while an RT task on that
// CPU was runnable: the time the fair deadline server (or, on older kernels, RT throttling,
// sched_rt_runtime_us) gave the fair class at the RT tasks' expense, plus any long stretch in
// which a fair task kept the CPU in the kernel without being preempted. A measuring thread that is
// due in such a stretch waits it out.
//
// From sched_switch alone (with its prev_state and priorities) and the wakeups and migrations on
// the traced CPUs:
//   - an RT task (kernel priority below 100: SCHED_FIFO, SCHED_RR, SCHED_DEADLINE or PI-boosted)
//     is runnable on a CPU from its sched_wakeup with that target CPU, or from a switch away from
//     it in the runnable state (preempted), until it is switched in, migrates away or a PI
//     deboost returns it to the fair class;
//   - a CPU that switches to its idle task has no runnable task left (the kernel does not idle
//     with one queued, unless RT throttling holds the RT class back, which idles only when no fair
//     task is waiting either): its list is cleared, which also drops a task that left it unseen
//     (a migration done by an untraced CPU);
//   - stretches under 100 us are left out: that is an RT wakeup preempting the fair task, which
//     takes microseconds, not the server's or throttling's slices of milliseconds.
// Wakeups done by an untraced CPU are not seen: the RT task then counts from its first preemption.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <set>

#include "framework/trace/trace_event.h"

namespace rtgate::trace {

class CfsWhileRt {
 public:
  // Events in time order (each CPU's in order; a wakeup from another CPU may come slightly late).
  void add(const TraceEvent& e);
  // Per CPU that showed a sched_switch: the time counted, in ns (a stretch still open ends at
  // the last event seen on any CPU).
  std::map<int, std::int64_t> result() const;

 private:
  struct Cpu {
    pid_t current = -1;
    int current_prio = -1;           // kernel priority; -1 unknown
    std::set<pid_t> rt_runnable;     // RT tasks runnable here, not running
    std::int64_t stretch_from = -1;  // a fair task has run with one of them waiting since
    std::int64_t ns = 0;
  };
  static bool fair_over_rt(const Cpu& c);
  static void close(Cpu& c, std::int64_t ts);
  // Opens a stretch when a fair task now runs over a waiting RT task, closes it when not.
  static void update(Cpu& c, std::int64_t ts);
  void drop_everywhere(pid_t pid, std::int64_t ts);

  std::map<int, Cpu> cpus_;
  std::int64_t last_ts_ = 0;
};

}  // namespace rtgate::trace
