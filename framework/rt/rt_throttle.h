// RT throttling as the scheduler itself records it, while a suite runs.
//
// When RT tasks use up sched_rt_runtime_us of a sched_rt_period_us period on a CPU, the kernel
// stops running them there until the period ends: an RT thread's latency then includes the
// throttled time, which no kernel change under test caused. The kernel log says so once per
// boot only ("sched: RT throttling activated"), so after the first time it tells nothing. The
// scheduler's debug file (debugfs sched/debug; /proc/sched_debug before 5.13) shows each rt_rq's
// state: `.rt_throttled` (throttled now) and `.rt_time` (RT time used this period, against
// `.rt_runtime`). The kernel keeps no count of throttling episodes, so RtThrottleWatch samples
// that state often enough to see each one:
//   - a sample with `.rt_throttled` set, or `.rt_time` at or over `.rt_runtime`, is throttling;
//   - between two samples, `.rt_time` can grow by at most the wall time between them; when a
//     period ended between them (it dropped) and it could have reached `.rt_runtime` before
//     then, the watch counts that as throttling too (a false alarm is cheaper than a hidden
//     episode, and only a load within one sampling interval of the budget can raise it). Only
//     over short gaps: when the sampler itself was held off (by the RT load being throttled,
//     on a shared housekeeping CPU) the bound says nothing, and the throttled state itself is
//     what it sees, since the sampler runs exactly while the RT tasks are throttled.
// The polling thread is SCHED_OTHER on housekeeping CPUs (the runner's); the watch backs off so
// that reading the file never takes more than 1% of that thread's time, and while every watched
// rt_rq is far from its budget (RT time grows no faster than the wall clock) it waits until it
// could be near, up to a second: the file lists every task, and reading it 50 times a second was
// most of a cyclic run's own CPU time beyond cyclictest's. Only when no RT task is runnable on
// them: a running task's time is added at the next tick or switch (up to a second later on a
// nohz_full CPU), so while one runs the figure may lag and the watch samples at its base rate.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace rtgate::rt {

// One rt_rq section of the debug file (one per CPU and RT group).
struct RtRqState {
  int cpu = -1;
  std::string group;  // "/" for the root group
  bool throttled = false;
  double rt_time_ms = 0;
  double rt_runtime_ms = 0;
  int nr_running = -1;  // RT tasks runnable at the sample; -1 when the file does not say
};

// Parses every rt_rq section of the scheduler's debug file text; sections that lack the fields
// are left out.
std::vector<RtRqState> parse_rt_rqs(std::string_view text);

class RtThrottleWatch {
 public:
  // Watches the rt_rqs of `cpus`. `debug_file` empty: the kernel's (debugfs, else /proc).
  explicit RtThrottleWatch(std::vector<int> cpus, std::string debug_file = "");

  // False when there is nothing to watch: RT throttling disabled (sched_rt_runtime_us = -1) or
  // no debug file readable; `source()` says which.
  bool active() const { return active_; }
  // True when the kernel does not throttle RT tasks at all (sched_rt_runtime_us = -1).
  bool disabled() const { return disabled_; }
  // How long the caller may wait between polls, and when the next poll is due
  // (CLOCK_MONOTONIC; 0 before the first).
  std::int64_t interval_ns() const { return interval_ns_; }
  std::int64_t next_poll_ns() const { return next_poll_ns_; }
  // Samples the file when the interval has passed since the last sample (cheap otherwise).
  void poll();
  // Feeds one sample (for tests): the file's text, read at `now_ns`.
  void observe(std::string_view text, std::int64_t now_ns);

  // Throttling episodes seen so far, per CPU and in all.
  const std::map<int, std::int64_t>& events_per_cpu() const { return events_; }
  std::int64_t events() const;
  // Where the figure comes from, e.g. "sched/debug, sampled every 20 ms", or why there is none.
  const std::string& source() const { return source_; }
  // "CPU 0: 2 episodes, CPU 3: 1 episode", or "" when none.
  std::string describe() const;

 private:
  // Observes a sample read between t0 and t1 and plans the next one.
  void take(std::string_view text, std::int64_t t0, std::int64_t t1);

  struct Last {
    bool seen = false;
    bool throttled = false;
    double rt_time_ms = 0;
    std::int64_t at_ns = 0;
  };
  std::vector<int> cpus_;
  std::string file_;
  bool active_ = false;
  bool disabled_ = false;
  std::string source_;
  std::int64_t interval_ns_ = 50'000'000;
  std::int64_t base_interval_ns_ = 20'000'000;
  std::int64_t next_poll_ns_ = 0;
  double headroom_ms_ = 0;            // the least budget left on a watched rt_rq at the last sample
  std::map<std::string, Last> last_;  // by "cpu/group"
  std::map<int, std::int64_t> events_;
};

}  // namespace rtgate::rt
