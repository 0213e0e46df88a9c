// Host placement: which stretches of an analysed sample the hypervisor most plausibly took.
//
// In a VM the host can take the vCPU away (steal); the guest's trace then shows nothing for that
// time, and it vanishes into whatever context was current: a timer handler that "runs" 7.5 ms, an
// idle CPU that does not wake for its due timer. The trace alone cannot tell where steal fell.
// What rtgate knows is the steal of each CPU between two of the collector's readings (about
// 50-100 ms apart, cpu_steal.h). The rule:
//
//   1. Each stretch of one context in the sample's interval gets the longest time that context can
//      plausibly take on a healthy guest kernel: a hard IRQ handler or interrupt vector 100 us, a
//      softirq 500 us, the thread itself (from getting the CPU to reading its clock) 100 us, the
//      idle task while the thread was due 200 us, and a task still running before the thread's
//      timer fired 200 us (the timer interrupt was due: only an interrupts-off section holds it
//      back). A task after the timer fired is never bounded: a higher-priority one has a right to
//      the CPU, and a lower-priority one may be in the kernel without preemption points (a
//      preempt=none or voluntary kernel), which is what rtgate is there to show. Nor is time the
//      trace does not show.
//   2. Only the excess over the bound can be the host's, and only as much as the window's steal
//      covers: the steal is placed on the stretches with the largest excess first. A stretch
//      keeps at least its bound, so the guest is never made to look faster than it could be,
//      and a real slow handler still shows at the bound.
//   3. Steal that no implausible stretch can take stays unplaced, and the note says so: it fell
//      outside the sample, or inside a stretch the trace cannot tell from the host.
//
// The rule can misplace a genuinely slow stretch (a long IRQs-off section) on the host only when
// the same CPU lost at least that much time to steal within the same window; without steal it
// places nothing.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace rtgate::trace {

// One stretch of a single context inside a sample's interval, as analyze_sample cut it.
struct Segment {
  std::string kind;  // AnalysisPart::kind: task, irq, softirq, vector, idle, self, untraced
  std::string name;
  pid_t pid = 0;
  std::int64_t from_ns = 0;  // after the deadline
  std::int64_t ns = 0;
  std::int64_t host_ns = 0;  // set by place_host_time
};

// When the thread was due to run, after the deadline: its timer fired (or, when the trace did not
// show that, it was woken) at `due_ns`; -1 when not known.
struct Milestones {
  std::int64_t due_ns = -1;
};

// The longest a stretch can plausibly last on a healthy guest, or -1: no bound.
std::int64_t plausible_ns(const Segment& s, const Milestones& m);

// Places up to `steal_ns` on the segments' excess over their bounds (largest first), setting
// host_ns; returns the total placed.
std::int64_t place_host_time(std::vector<Segment>& segments, const Milestones& m,
                             std::int64_t steal_ns);

// The note on a placement: what was placed, from how much steal, and what was left.
std::string host_note(const std::vector<Segment>& segments, const Milestones& m,
                      std::int64_t placed_ns, std::int64_t steal_ns, std::int64_t window_ns);

}  // namespace rtgate::trace
