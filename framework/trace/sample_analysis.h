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
#include "results/sample_analysis.h"

namespace rtgate::trace {

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

const char* softirq_name(std::int64_t vec);

}  // namespace rtgate::trace
