// Worst-sample analysis (the idea of rtla timerlat's auto-analysis, built on sched/irq/timer
// events): for one marked sample of a periodic loop — the thread was due at the deadline and ran
// `latency` later — what the CPU did in between. The interval [deadline, deadline + latency] is
// cut at every context change seen in the CPU's events (sched_switch, IRQ, softirq and vector
// entry/exit), and each piece is credited to what ran in it: a task (comm, pid, policy, priority),
// an IRQ handler, a softirq, an interrupt vector (local timer, reschedule, IPI), the idle task, or
// the measuring thread itself once it had the CPU. The pieces partition the interval, so the
// parts add up to the measured latency exactly; time the trace cannot account for (it begins
// after the deadline, events were lost) is its own part, "untraced".
//
// Milestones (after the deadline): when the thread's hrtimer fired, when it was woken, when it got
// the CPU. PI boosts (sched_pi_setprio) on the CPU inside the interval are listed.
//
// In a VM, given the CPU's host steal around the sample, the time the host most plausibly took is
// its own part, "host" (host_placement.h has the rule), and the task that delayed the thread once
// the host's time is set aside is named (delayed_by).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "framework/trace/trace_event.h"

namespace rtgate::trace {

struct AnalysisPart {
  // "task", "irq", "softirq", "vector", "idle", "self", "untraced", "host" (vCPU not running)
  std::string kind;
  std::string name;  // comm, IRQ handler, softirq (TIMER, NET_RX, ...), vector (local_timer, ...)
  pid_t pid = 0;     // task
  std::string policy;      // task: SCHED_FIFO, SCHED_RR, SCHED_OTHER, ... ("RT" when unknown)
  int prio = 0;            // task: the SCHED_FIFO/RR priority (1-99), or the nice value
  std::int64_t ns = 0;     // time credited to it inside the interval
  int count = 0;           // stretches (handler invocations, times the task held the CPU)
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
  int run = 0;          // the run (0-based) it was measured in
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

// The sample's CPU's steal in the window of the collector's steal readings that encloses it.
struct WindowSteal {
  std::int64_t ns = -1;  // -1: not known
  std::int64_t window_ns = 0;
};

// A measuring loop's marker (TraceHook::format_marker), read back from the trace.
struct Marker {
  int cpu = -1;
  pid_t tid = 0;
  std::int64_t ts = 0;
  std::string thread;
  std::int64_t deadline_ns = 0, latency_ns = 0;
  bool is_break = false;
};
std::optional<Marker> parse_marker(const TraceEvent& e);

// The policy of a live task ("SCHED_FIFO"), or "" when it cannot be told (the task is gone).
using PolicyOf = std::function<std::string(pid_t)>;
std::string policy_of_live_task(pid_t pid);

// `events`: the marker CPU's events in time order, up to the marker. `current` is the task that
// was running on the CPU before the first of them (-1: unknown, inferred from the events).
SampleAnalysis analyze_sample(const Marker& marker, const std::vector<const TraceEvent*>& events,
                              pid_t current, const PolicyOf& policy_of, WindowSteal steal = {});

// "load-rt0 (pid 4242, SCHED_FIFO 98)"
std::string task_label(const AnalysisPart& task);

const char* softirq_name(std::int64_t vec);

}  // namespace rtgate::trace
