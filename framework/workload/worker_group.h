// WorkerGroup: the threads of a workload suite, started together and timed together.
//
// run_group() starts N SCHED_OTHER threads (through load::Workers), thread i pinned to
// cpus[i % cpus.size()] when CPUs are given, holds them at a start gate until all are up,
// releases them at once and times the group from that release to the return of its last body.
// Each body gets a Worker: its index and CPU, keep_going() (false once the group's duration is
// up or the run was asked to stop: SIGINT, the watchdog, a sibling that threw) and add(n),
// which counts work into a per-thread counter and publishes it to the run's live stats, so the
// watchdog sees progress and the progress line shows it. getrusage(2) is read at the release
// and after the join, so a run reports the CPU time (user, system) it cost.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "framework/measure/cpu_usage.h"
#include "framework/measure/live_stats.h"
#include "framework/measure/run_context.h"

namespace rtgate::workload {

struct GroupSpec {
  std::string name;  // thread names "<name><i>", live labels "<name>/<i>"
  int threads = 1;
  std::vector<int> cpus;         // thread i on cpus[i % size]; empty: unpinned
  std::int64_t duration_ns = 0;  // 0: no time limit (the bodies do a fixed amount of work)
};

// When a group's bodies must stop. Shared by its workers; set by run_group().
struct GroupClock {
  explicit GroupClock(const RunContext& ctx_) : ctx(ctx_) {}
  bool keep_going() const;

  const RunContext& ctx;
  std::atomic<bool> abort{false};       // a body threw, or the group could not start
  std::atomic<std::int64_t> end_ns{0};  // CLOCK_MONOTONIC end; 0: none
};

// A body's view of its group. Lives as long as the group runs.
// Cache-line aligned: one worker's counter never shares a line with another's.
class alignas(64) Worker {
 public:
  Worker(int index, int cpu, LiveStats& live, const GroupClock& clock)
      : index_(index), cpu_(cpu), live_(live), clock_(clock) {}
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  int index() const { return index_; }
  int cpu() const { return cpu_; }  // -1 when unpinned
  // False once the duration is up or a stop was requested. Reads the clock: call it once per
  // batch of work (well under 10 ms of it), not once per operation.
  bool keep_going() const { return clock_.keep_going(); }
  // Counts n more operations (single writer: this worker's thread).
  void add(std::uint64_t n) {
    ops_ += n;
    live_.publish(ops_, 0);
  }
  std::uint64_t ops() const { return ops_; }
  LiveStats& live() { return live_; }

 private:
  int index_;
  int cpu_;
  LiveStats& live_;
  const GroupClock& clock_;
  std::uint64_t ops_ = 0;
};

struct GroupRun {
  int threads = 0;
  double seconds = 0;  // common start to the last body's return
  std::uint64_t ops = 0;
  std::vector<std::uint64_t> per_thread;
  // getrusage(RUSAGE_SELF) from the release to the join: the workers' CPU time, plus the little
  // the RT probe and the runner's threads use meanwhile.
  CpuUsage cpu;
  bool stopped = false;  // a stop request, not the duration or the work's end, ended it
  std::string error;     // the first exception a body threw, if any (the others were stopped)

  double ops_per_s() const { return seconds > 0 ? static_cast<double>(ops) / seconds : 0; }
};

using Body = std::function<void(Worker&)>;

// Runs `body` on spec.threads threads and returns once all have returned. Throws
// std::runtime_error when a thread cannot be created (the ones already started are stopped
// and joined first).
GroupRun run_group(RunContext& ctx, const GroupSpec& spec, const Body& body);

}  // namespace rtgate::workload
