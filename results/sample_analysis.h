// A worst (or threshold) sample explained from a trace, as a result records it: the latency cut
// into named parts that add up to it (framework/trace/sample_analysis.h makes it).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rtgate::trace {

struct AnalysisPart {
  // "task", "irq", "softirq", "vector", "idle", "self", "untraced", "host" (vCPU not running)
  std::string kind;
  std::string name;    // comm, IRQ handler, softirq (TIMER, NET_RX, ...), vector (local_timer, ...)
  pid_t pid = 0;       // task
  std::string policy;  // task: SCHED_FIFO, SCHED_RR, SCHED_OTHER, ... ("RT" when unknown)
  int prio = 0;        // task: the SCHED_FIFO/RR priority (1-99), or the nice value
  std::int64_t ns = 0;  // time credited to it inside the interval
  int count = 0;        // stretches (handler invocations, times the task held the CPU)
};

struct PiBoost {
  pid_t pid = 0;
  std::string comm;
  int old_prio = 0, new_prio = 0;  // kernel priorities (lower is higher)
  std::int64_t at_ns = 0;          // after the deadline
};

struct SampleAnalysis {
  // "worst" (the CPU's worst sample), "guest_worst" (its worst once host time is set aside, when
  // that is another sample), "threshold", "break"
  std::string trigger;
  int run = 0;  // the run (0-based) it was measured in
  int cpu = -1;
  std::string thread;  // the loop's label (cpu1, probe, pi_mutex/rt0)
  pid_t tid = 0;
  std::int64_t deadline_ns = 0;  // CLOCK_MONOTONIC
  std::int64_t latency_ns = 0;
  // After the deadline; -1 when the trace did not show it.
  std::int64_t timer_fired_ns = -1, woken_ns = -1, got_cpu_ns = -1;
  std::vector<AnalysisPart> parts;  // largest first; sum == latency_ns
  std::vector<PiBoost> pi_boosts;
  // The CPU's host steal between the collector's steal readings around the sample, and the
  // readings' distance (the window); -1: not read.
  std::int64_t steal_ns = -1, steal_window_ns = 0;
  // The task that delayed the thread: the largest part once the host's and the thread's own time
  // are set aside, when that part is a task and holds at least a quarter of the guest's time.
  std::optional<AnalysisPart> delayed_by;
  std::string note;          // what the trace could not show, or what the parts suggest
  std::string excerpt_file;  // the raw events, in a file beside the result JSON
  std::string excerpt;       // those events as text (not in the JSON: the file has them)

  // "cpu1 worst 612.3 us: load-rt0 (pid 4242, SCHED_FIFO 98) 598.1 us 97.7%, irq virtio0 ...",
  // then "; delayed by load-rt0 (pid 4242, SCHED_FIFO 98)" when a task did.
  std::string summary(std::size_t max_parts = 3) const;
  std::int64_t host_ns() const;  // the "host" part
  std::int64_t guest_latency_ns() const { return latency_ns - host_ns(); }
};

// "load-rt0 (pid 4242, SCHED_FIFO 98)"
std::string task_label(const AnalysisPart& task);

}  // namespace rtgate::trace
