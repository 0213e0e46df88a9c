#include "framework/trace/cfs_while_rt.h"

#include <algorithm>

namespace rtgate::trace {
namespace {

constexpr int kMaxRtPrio = 100;  // kernel priorities below it are RT (and DEADLINE's -1)
constexpr std::int64_t kMinStretchNs = 100'000;

// sched_switch's prev_state: the task-state bits (S, D, T, t, X, Z, P, I: the low byte) are all
// clear for a task switched away still runnable; 0x100 marks a preemption.
bool still_runnable(std::int64_t prev_state) { return (prev_state & 0xff) == 0; }

}  // namespace

bool CfsWhileRt::fair_over_rt(const Cpu& c) {
  return !c.rt_runnable.empty() && c.current > 0 && c.current_prio >= kMaxRtPrio;
}

void CfsWhileRt::close(Cpu& c, std::int64_t ts) {
  if (c.stretch_from >= 0 && ts - c.stretch_from >= kMinStretchNs) c.ns += ts - c.stretch_from;
  c.stretch_from = -1;
}

void CfsWhileRt::update(Cpu& c, std::int64_t ts) {
  if (fair_over_rt(c)) {
    if (c.stretch_from < 0) c.stretch_from = ts;
  } else {
    close(c, ts);
  }
}

void CfsWhileRt::drop_everywhere(pid_t pid, std::int64_t ts) {
  for (auto& [n, c] : cpus_) {
    if (c.rt_runnable.erase(pid) > 0) update(c, ts);
  }
}

void CfsWhileRt::add(const TraceEvent& e) {
  last_ts_ = std::max(last_ts_, e.ts);
  switch (e.type) {
    case Ev::kSwitch: {
      Cpu& c = cpus_[e.cpu];
      drop_everywhere(e.pid2, e.ts);
      if (e.pid > 0 && e.prio < kMaxRtPrio && still_runnable(e.value)) {
        c.rt_runnable.insert(e.pid);
      }
      if (e.pid2 == 0) c.rt_runnable.clear();
      c.current = e.pid2;
      c.current_prio = e.prio2;
      update(c, e.ts);
      break;
    }
    case Ev::kWakeup:
    case Ev::kMigrate: {
      if (e.prio2 >= kMaxRtPrio || e.pid2 <= 0) break;
      drop_everywhere(e.pid2, e.ts);
      const auto target = cpus_.find(static_cast<int>(e.value));
      if (target == cpus_.end()) break;  // a CPU whose switches are not traced
      Cpu& c = target->second;
      // A migration moves a task that is waiting to run; a wakeup makes it so.
      if (e.pid2 != c.current) c.rt_runnable.insert(e.pid2);
      update(c, e.ts);
      break;
    }
    case Ev::kPiSetprio:
      // Deboosted to the fair class while waiting: it no longer holds the fair class back.
      if (e.prio2 >= kMaxRtPrio) drop_everywhere(e.pid2, e.ts);
      break;
    default:
      break;
  }
}

std::map<int, std::int64_t> CfsWhileRt::result() const {
  std::map<int, std::int64_t> out;
  for (const auto& [n, c] : cpus_) {
    Cpu end = c;
    close(end, last_ts_);
    out[n] = end.ns;
  }
  return out;
}

}  // namespace rtgate::trace
