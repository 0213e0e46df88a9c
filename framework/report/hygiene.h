// Run hygiene: what makes a latency figure untrustworthy, measured before and after a suite.
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

namespace rtgate {

struct ForeignRtThread {
  pid_t pid = 0;
  pid_t tid = 0;
  std::string comm;
  std::string policy;        // "fifo" | "rr" | "deadline"
  int priority = 0;          // rt_priority (1..99); 0 for deadline
  std::string cpus_allowed;  // Cpus_allowed_list, e.g. "1" or "0-1"
  bool kernel_thread = false;
  std::uint64_t runtime_ns = 0;  // CPU time consumed during the window
};

struct Hygiene {
  std::vector<ForeignRtThread> foreign_rt_threads;  // those that ran during the window
  double steal_ms = 0;                              // summed over CPUs
  std::map<int, double> steal_ms_per_cpu;
  // Each run's steal per CPU, in run order: what the gate weighs that run's figures against.
  std::vector<std::map<int, double>> steal_ms_per_run;
  std::string steal_source;  // cpu_steal.h: "steal clock (...)" or "/proc/stat (...)"
  // How the kernel keeps SCHED_OTHER tasks alive under RT load here (the fair server, RT
  // throttling, neither), its budget, and what the run saw of it.
  std::string cfs_protection;
  std::int64_t rt_throttled = -1;    // throttling events seen in the window; -1 = unknown
  std::string rt_throttled_source;   // where that figure came from, e.g. "kmsg"
  std::uint64_t missed_periods = 0;  // filled from the suite's cases
};

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

// Folds the hygiene of a later window of the same suite into `into` (run --until-decided runs a
// suite again): foreign threads united by tid, steal and missed periods summed, throttling summed
// when both are known.
void merge_hygiene(Hygiene& into, const Hygiene& later);

// Compares two snapshots. Threads of the processes in `own_pids` are ours and never foreign.
Hygiene hygiene_between(const HygieneSnapshot& before, const HygieneSnapshot& after,
                        const std::set<pid_t>& own_pids);

// Each CPU's steal between two snapshots, in ms.
std::map<int, double> steal_ms_between(const HygieneSnapshot& before, const HygieneSnapshot& after);

// Which foreign threads could have run on `cpu` (their allowed CPUs include it).
// Kernel threads are part of the system under test and are never counted as contamination.
std::vector<std::string> contamination_reasons_for_cpu(const Hygiene& h, int cpu);
// Reasons that apply to the whole suite (user-space foreign RT threads anywhere, steal,
// throttling).
std::vector<std::string> contamination_reasons(const Hygiene& h);

}  // namespace rtgate
