#include "framework/trace/host_placement.h"

#include <algorithm>
#include <cstdio>

#include "base/text/units.h"

namespace rtgate::trace {
namespace {

// A hard IRQ handler or vector runs with interrupts off; one that takes longer than this is rare
// enough on a healthy kernel that, when steal can cover it, the host is the likelier cause.
constexpr std::int64_t kHardIrqNs = 100'000;
// One softirq vector's run: the kernel itself hands softirqs to ksoftirqd after 2 ms of them in
// a row, and one vector taking a quarter of that is already a heavy one.
constexpr std::int64_t kSoftirqNs = 500'000;
// The thread from getting the CPU to reading its clock: a return from clock_nanosleep.
constexpr std::int64_t kSelfNs = 100'000;
// A CPU that should have taken the thread's timer interrupt: only an interrupts-off section, or a
// deep C-state's exit, delays it; the deepest exits take about 100-200 us on bare metal.
constexpr std::int64_t kNotDueNs = 200'000;

std::string label(const Segment& s) {
  if (s.kind == "task") return s.name + " (pid " + std::to_string(s.pid) + ")";
  if (s.kind == "self") return "the thread itself";
  if (s.kind == "idle") return "idle";
  return s.kind + " " + s.name;
}

}  // namespace

std::int64_t plausible_ns(const Segment& s, const Milestones& m) {
  if (s.kind == "irq" || s.kind == "vector") return kHardIrqNs;
  if (s.kind == "softirq") return kSoftirqNs;
  if (s.kind == "self") return kSelfNs;
  if (s.kind == "idle") return kNotDueNs;
  if (s.kind == "task" && m.due_ns >= 0 && s.from_ns + s.ns <= m.due_ns) return kNotDueNs;
  return -1;  // untraced, or a task after the timer fired
}

std::int64_t place_host_time(std::vector<Segment>& segments, const Milestones& m,
                             std::int64_t steal_ns) {
  for (Segment& s : segments) s.host_ns = 0;
  if (steal_ns <= 0) return 0;
  std::vector<std::pair<std::int64_t, Segment*>> excess;
  for (Segment& s : segments) {
    const std::int64_t bound = plausible_ns(s, m);
    if (bound >= 0 && s.ns > bound) excess.emplace_back(s.ns - bound, &s);
  }
  std::stable_sort(excess.begin(), excess.end(),
                   [](const auto& x, const auto& y) { return x.first > y.first; });
  std::int64_t left = steal_ns;
  for (auto& [over, s] : excess) {
    if (left == 0) break;
    s->host_ns = std::min(over, left);
    left -= s->host_ns;
  }
  return steal_ns - left;
}

std::string host_note(const std::vector<Segment>& segments, const Milestones& m,
                      std::int64_t placed_ns, std::int64_t steal_ns, std::int64_t window_ns) {
  if (steal_ns <= 0) return "";
  std::string note = "this CPU lost " + text::in_ms(steal_ns) + " to host steal in the " +
                     text::in_ms(window_ns) + " of steal readings around the sample";
  if (placed_ns > 0) {
    note += "; " + text::in_ms(placed_ns) + " of it is placed on the host, in";
    int n = 0;
    for (const Segment& s : segments) {
      if (s.host_ns == 0) continue;
      if (n++ < 3) {
        note += std::string(n > 1 ? "," : "") + " " + label(s) + " (" + text::in_us(s.ns, 0) +
                ", plausible " + text::in_us(plausible_ns(s, m), 0) + ")";
      }
    }
    if (n > 3) note += " and " + std::to_string(n - 3) + " more";
  }
  if (placed_ns < steal_ns) {
    note += "; " + text::in_ms(steal_ns - placed_ns) +
            " is not placed: it fell outside the sample, or inside a stretch the trace cannot "
            "tell from the host (a task's slice after the timer fired, untraced time)";
  }
  return note;
}

}  // namespace rtgate::trace
