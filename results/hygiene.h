// Run hygiene as a result records it: what makes a latency figure untrustworthy (foreign RT
// threads that ran during the window, CPU steal time, RT throttling events and the missed
// periods reported by the suite), and the contamination reasons it gives.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
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

// Folds the hygiene of a later window of the same suite into `into` (run --until-decided runs a
// suite again): foreign threads united by tid, steal and missed periods summed, throttling summed
// when both are known.
void merge_hygiene(Hygiene& into, const Hygiene& later);

// Which foreign threads could have run on `cpu` (their allowed CPUs include it).
// Kernel threads are part of the system under test and are never counted as contamination.
std::vector<std::string> contamination_reasons_for_cpu(const Hygiene& h, int cpu);
// Reasons that apply to the whole suite (user-space foreign RT threads anywhere, steal,
// throttling).
std::vector<std::string> contamination_reasons(const Hygiene& h);

}  // namespace rtgate
