#include "framework/trace/sample_analysis.h"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <string_view>
#include <tuple>

#include "base/text/sched_policy.h"
#include "base/text/units.h"
#include "framework/trace/host_placement.h"

namespace rtgate::trace {
namespace {

struct Task {
  std::string comm;
  int prio = -1;  // kernel priority; -1 unknown
};

// What the CPU was doing: the innermost IRQ context, or else the current task.
struct Ctx {
  std::string kind, name;
};

using Key = std::tuple<std::string, std::string, pid_t>;

std::int64_t field(std::string_view text, std::string_view key) {
  const std::size_t at = text.find(key);
  if (at == std::string_view::npos) return -1;
  std::int64_t v = -1;
  const char* p = text.data() + at + key.size();
  std::from_chars(p, text.data() + text.size(), v);
  return v;
}

}  // namespace

const char* softirq_name(std::int64_t vec) {
  static const char* const kNames[] = {"HI",       "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
                                       "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};
  return vec >= 0 && vec < 10 ? kNames[vec] : "softirq?";
}

std::optional<Marker> parse_marker(const TraceEvent& e) {
  if (e.type != Ev::kMarker) return std::nullopt;
  std::string_view t = e.comm2;
  constexpr std::string_view kPrefix = "rtgate: ";
  const std::size_t at = t.find(kPrefix);  // after the "tracing_mark_write: " some kernels add
  if (at == std::string_view::npos) return std::nullopt;
  t.remove_prefix(at + kPrefix.size());
  const std::size_t space = t.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  Marker m;
  m.cpu = e.cpu;
  m.tid = e.pid;
  m.ts = e.ts;
  m.thread = std::string(t.substr(0, space));
  m.latency_ns = field(t, "latency_ns=");
  m.deadline_ns = field(t, "deadline_ns=");
  m.is_break = t.find(" break") != std::string_view::npos;
  if (m.latency_ns < 0 || m.deadline_ns <= 0) return std::nullopt;
  return m;
}

std::string policy_of_live_task(pid_t pid) {
  const int policy = sched_getscheduler(pid);
  return policy < 0 ? "" : text::kernel_policy_name(policy);
}

namespace {

// Walks the marker CPU's events across the interval [deadline, deadline + latency], cutting it at
// every context change and crediting each stretch to what ran in it; notes the milestones and
// PI boosts in the analysis as it goes.
class Walk {
 public:
  Walk(const Marker& m, pid_t current, SampleAnalysis& a)
      : m_(m), a_(a), d_(m.deadline_ns), w_(m.deadline_ns + m.latency_ns), cur_(current) {}

  void run(const std::vector<const TraceEvent*>& events) {
    const std::int64_t first_ts = events.empty() ? w_ : events.front()->ts;
    if (first_ts > d_) {
      credit({"untraced", "", 0}, "untraced", "not in the trace", 0, d_, std::min(first_ts, w_));
      a_.note = "the trace begins " + text::in_us(first_ts - d_) + " after the deadline";
    }
    std::int64_t t = std::max(first_ts, d_);
    for (const TraceEvent* e : events) {
      if (e->ts > w_) break;
      // Every event names the task current on its CPU (common_pid; prev_pid for a switch). When
      // that is not the task the switches said, a sched_switch is missing from the trace (some
      // kernels drop the switch out of idle): the task is taken from the event, from the
      // previous event on.
      if (e->pid != cur_) {
        if (cur_ >= 0 && e->ts >= d_) ++missed_switches;
        irqs_.clear();
        cur_ = e->pid;
      }
      credit_span(t, e->ts);
      t = std::max(t, e->ts);
      on_event(*e);
    }
    credit_span(t, w_);
  }

  std::map<pid_t, Task> tasks;
  // The interval cut into stretches of one context each, and each stretch's part.
  std::vector<Segment> segments;
  std::vector<Key> segment_keys;
  int missed_switches = 0;

 private:
  void credit(Key key, const std::string& kind, const std::string& name, pid_t pid,
              std::int64_t from, std::int64_t to) {
    if (to <= from) return;
    if (!segment_keys.empty() && segment_keys.back() == key) {
      segments.back().ns += to - from;
      return;
    }
    segments.push_back(
        {.kind = kind, .name = name, .pid = pid, .from_ns = from - d_, .ns = to - from});
    segment_keys.push_back(std::move(key));
  }

  // Credits [from, to] (clipped to the interval) to what the CPU was doing.
  void credit_span(std::int64_t from, std::int64_t to) {
    from = std::max(from, d_);
    to = std::min(to, w_);
    if (to <= from) return;
    if (!irqs_.empty()) {
      const Ctx& c = irqs_.back();
      return credit({c.kind, c.name, 0}, c.kind, c.name, 0, from, to);
    }
    if (cur_ < 0) return credit({"untraced", "", 0}, "untraced", "not in the trace", 0, from, to);
    if (cur_ == m_.tid) return credit({"self", "", 0}, "self", m_.thread, cur_, from, to);
    if (cur_ == 0) return credit({"idle", "", 0}, "idle", "idle", 0, from, to);
    credit({"task", "", cur_}, "task", tasks[cur_].comm, cur_, from, to);
  }

  void learn(pid_t pid, const std::string& comm, int prio) {
    Task& t = tasks[pid];
    if (!comm.empty()) t.comm = comm;
    if (prio >= 0) t.prio = prio;
  }

  // Pops the innermost context of `kind` (an exit whose entry predates the events is ignored).
  void leave(const char* kind) {
    for (auto it = irqs_.rbegin(); it != irqs_.rend(); ++it) {
      if (it->kind == kind) {
        irqs_.erase(std::next(it).base(), irqs_.end());
        return;
      }
    }
  }

  void on_event(const TraceEvent& e) {
    switch (e.type) {
      case Ev::kSwitch:
        learn(e.pid, e.comm, e.prio);
        learn(e.pid2, e.comm2, e.prio2);
        irqs_.clear();
        cur_ = e.pid2;
        if (e.pid2 == m_.tid && e.ts >= d_ && a_.got_cpu_ns < 0) a_.got_cpu_ns = e.ts - d_;
        break;
      case Ev::kWaking:
      case Ev::kWakeup:
        learn(e.pid2, e.comm2, e.prio2);
        if (e.pid2 == m_.tid && e.ts >= d_ && a_.woken_ns < 0) a_.woken_ns = e.ts - d_;
        break;
      case Ev::kPiSetprio:
        learn(e.pid2, e.comm2, e.prio2);
        if (e.ts >= d_) a_.pi_boosts.push_back({e.pid2, e.comm2, e.prio, e.prio2, e.ts - d_});
        break;
      case Ev::kIrqEntry:
        irqs_.push_back({"irq", e.comm2});
        break;
      case Ev::kSoftirqEntry:
        irqs_.push_back({"softirq", softirq_name(e.value)});
        break;
      case Ev::kVectorEntry:
        irqs_.push_back({"vector", e.comm2});
        break;
      case Ev::kIrqExit:
        leave("irq");
        break;
      case Ev::kSoftirqExit:
        leave("softirq");
        break;
      case Ev::kVectorExit:
        leave("vector");
        break;
      case Ev::kHrtimerStart:
        if (e.pid == m_.tid && e.ts < d_) timer_ = e.addr;
        break;
      case Ev::kHrtimerExpire:
        if (timer_ != 0 && e.addr == timer_ && a_.timer_fired_ns < 0 && e.ts >= d_ - 1000) {
          a_.timer_fired_ns = std::max<std::int64_t>(0, e.ts - d_);
        }
        break;
      default:
        break;
    }
  }

  const Marker& m_;
  SampleAnalysis& a_;
  const std::int64_t d_, w_;  // the deadline and the wakeup
  std::vector<Ctx> irqs_;
  pid_t cur_;
  std::uint64_t timer_ = 0;  // the thread's hrtimer, armed before the deadline
};

// Each context's part of the interval once the host's share (`segments`' host_ns) is set aside,
// and the host's own part; tasks named, with their policy and priority.
std::map<Key, AnalysisPart> parts_of(const Walk& walk, const PolicyOf& policy_of) {
  std::map<Key, AnalysisPart> parts;
  AnalysisPart host{.kind = "host", .name = "vCPU not running"};
  for (std::size_t i = 0; i < walk.segments.size(); ++i) {
    const Segment& s = walk.segments[i];
    if (s.host_ns > 0) {
      host.ns += s.host_ns;
      ++host.count;
    }
    AnalysisPart& p = parts[walk.segment_keys[i]];
    if (p.kind.empty()) {
      p.kind = s.kind;
      p.name = s.name;
      p.pid = s.pid;
    }
    p.ns += s.ns - s.host_ns;
    ++p.count;
  }
  if (host.ns > 0) parts[{"host", "", 0}] = host;
  for (auto& [key, p] : parts) {
    if (p.kind != "task") continue;
    const auto it = walk.tasks.find(p.pid);
    const Task task = it == walk.tasks.end() ? Task{} : it->second;
    if (p.name.empty()) p.name = task.comm;
    p.policy = policy_of ? policy_of(p.pid) : "";
    if (task.prio >= 0 && task.prio < 100) {
      p.prio = 99 - task.prio;
      if (p.policy.empty() || p.policy == "SCHED_OTHER") p.policy = "RT";  // boosted or gone
    } else if (task.prio >= 100) {
      p.prio = task.prio - 120;
      if (p.policy.empty()) p.policy = "SCHED_OTHER";
    }
  }
  return parts;
}

// What delayed the thread: the largest part once the host's and the thread's own time are set
// aside, named when it is a task with at least a quarter of the guest's time. A stretch the host
// took part of does not count: how long its context really ran there is not known.
std::optional<AnalysisPart> delayer(const Walk& walk, const std::map<Key, AnalysisPart>& parts,
                                    std::int64_t guest_ns) {
  std::map<Key, std::int64_t> certain;
  for (std::size_t i = 0; i < walk.segments.size(); ++i) {
    if (walk.segments[i].host_ns == 0) certain[walk.segment_keys[i]] += walk.segments[i].ns;
  }
  const AnalysisPart* top = nullptr;
  std::int64_t top_ns = 0;
  for (const auto& [key, p] : parts) {
    if (p.kind == "host" || p.kind == "self" || certain[key] <= top_ns) continue;
    top = &p;
    top_ns = certain[key];
  }
  if (top != nullptr && top->kind == "task" && top_ns * 4 >= guest_ns) return *top;
  return std::nullopt;
}

void add_note(SampleAnalysis& a, const std::string& note) {
  a.note = (a.note.empty() ? "" : a.note + "; ") + note;
}

// What the parts suggest: a timer interrupt held back, a task that was not preempted, an idle
// CPU.
void add_suggestions(SampleAnalysis& a, const Walk& walk, const Marker& m, const Milestones& due) {
  if (a.parts.empty()) return;
  const AnalysisPart& top = a.parts.front();
  const bool mostly = top.ns * 2 > a.latency_ns;
  // The top task ran mostly before the thread's timer fired: the interrupt came late, which no
  // task's priority explains.
  std::int64_t before_due = 0;
  for (const Segment& s : walk.segments) {
    if (top.kind == "task" && s.kind == "task" && s.pid == top.pid && due.due_ns >= 0 &&
        s.from_ns + s.ns <= due.due_ns) {
      before_due += s.ns - s.host_ns;
    }
  }
  if (before_due * 2 > top.ns && mostly) {
    add_note(a, "the thread's timer fired " +
                    text::in_us(a.timer_fired_ns >= 0 ? a.timer_fired_ns : due.due_ns) +
                    " after its deadline while " + top.name +
                    " ran: the timer interrupt was held back (interrupts off) or, in a VM, "
                    "delivered late by the hypervisor (a nested guest running, a busy host)");
  }
  // A task the measuring thread outranks kept the CPU: it was in the kernel, not preemptible
  // (a preempt_disable() or spinlock section, or a kernel built without full preemption).
  const auto self = walk.tasks.find(m.tid);
  const auto holder = walk.tasks.find(top.pid);
  if (top.kind == "task" && self != walk.tasks.end() && self->second.prio >= 0 &&
      before_due * 2 <= top.ns && holder != walk.tasks.end() &&
      holder->second.prio > self->second.prio && mostly) {
    add_note(a, "a lower-priority task (" + holder->second.comm +
                    ") kept the CPU while the thread was runnable: it ran in the kernel without "
                    "being preempted (preemption disabled, or a kernel without full preemption)");
  }
  if (top.kind == "idle" && mostly) {
    add_note(a,
             "the CPU was idle while the thread was due: a deep C-state exit, or (in a VM) the "
             "hypervisor not running this vCPU");
  }
}

}  // namespace

SampleAnalysis analyze_sample(const Marker& m, const std::vector<const TraceEvent*>& events,
                              pid_t current, const PolicyOf& policy_of, WindowSteal steal) {
  SampleAnalysis a;
  a.trigger = m.is_break ? "break" : "threshold";
  a.cpu = m.cpu;
  a.thread = m.thread;
  a.tid = m.tid;
  a.deadline_ns = m.deadline_ns;
  a.latency_ns = m.latency_ns;
  Walk walk(m, current, a);
  walk.run(events);

  // The host's share (host_placement.h), then each context's part of what is left.
  const Milestones due{.due_ns = a.timer_fired_ns >= 0 ? a.timer_fired_ns : a.woken_ns};
  for (Segment& s : walk.segments) {
    if (s.kind == "task" && s.name.empty()) s.name = walk.tasks[s.pid].comm;
  }
  a.steal_ns = steal.ns;
  a.steal_window_ns = steal.window_ns;
  const std::int64_t placed = place_host_time(walk.segments, due, steal.ns);
  std::map<Key, AnalysisPart> parts = parts_of(walk, policy_of);
  a.delayed_by = delayer(walk, parts, m.latency_ns - placed);
  for (auto& [key, p] : parts) a.parts.push_back(std::move(p));
  std::stable_sort(a.parts.begin(), a.parts.end(),
                   [](const AnalysisPart& x, const AnalysisPart& y) { return x.ns > y.ns; });

  if (walk.missed_switches > 0) {
    a.note = std::to_string(walk.missed_switches) +
             " context switch(es) missing from the trace: the running task was taken from the "
             "events it wrote" +
             (a.note.empty() ? "" : "; " + a.note);
  }
  add_suggestions(a, walk, m, due);
  if (std::string host_says = host_note(walk.segments, due, placed, steal.ns, steal.window_ns);
      !host_says.empty()) {
    add_note(a, host_says);
  }
  return a;
}

}  // namespace rtgate::trace
