// Run hygiene measured: snapshots of the machine before and after a suite, and the record
// (results/hygiene.h) between two of them.
//
// Foreign RT threads (SCHED_FIFO/RR/DEADLINE threads of other processes) that ran during the
// window, CPU steal time, RT throttling events and the missed periods reported by the suite.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "results/hygiene.h"

namespace rtgate {

struct ThreadSample {
  pid_t pid = 0, tid = 0;
  std::string comm;
  int policy = 0;  // SCHED_* constant
  int priority = 0;
  std::string cpus_allowed;
  bool kernel_thread = false;
  std::uint64_t runtime_ns = 0;  // cumulative
};

struct HygieneSnapshot {
  std::uint64_t monotonic_ns = 0;
  std::vector<ThreadSample> rt_threads;  // every RT thread on the machine
  std::map<int, std::int64_t> steal_ns;  // per CPU, cumulative (cpu_steal.h)
  std::string steal_source;
  std::int64_t kmsg_throttle_events = -1;  // cumulative count, -1 when unreadable
};

HygieneSnapshot take_hygiene_snapshot();
// Only the steal part of a snapshot (cheap: one file read), for each run's own figures.
HygieneSnapshot take_steal_snapshot();

// Compares two snapshots. Threads of the processes in `own_pids` are ours and never foreign.
Hygiene hygiene_between(const HygieneSnapshot& before, const HygieneSnapshot& after,
                        const std::set<pid_t>& own_pids);

// Each CPU's steal between two snapshots, in ms.
std::map<int, double> steal_ms_between(const HygieneSnapshot& before, const HygieneSnapshot& after);

}  // namespace rtgate
