// The one periodic measuring loop of every RT measurement (cyclic, the RT probe of the workload
// suites, lock.latency's RT threads): sleep to an absolute CLOCK_MONOTONIC deadline, feed the
// wakeup to the thread's PeriodicRecorder, offer the sample to the run's SampleHook (trace
// markers and break-on-threshold for --trace: one code path for every loop), then do the
// caller's per-period work (lock.latency takes its lock there; work that runs past the next
// deadline re-anchors the schedule, PeriodicRecorder::reanchor). It publishes the thread's tid
// when it starts and `done` when it ends, for the watchdog.
//
// Nothing here allocates, logs or locks: the recorder and hook are set up before the thread
// starts, and the work is the caller's (it must obey the same rule).
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "framework/measure/clock.h"
#include "framework/measure/live_stats.h"
#include "framework/measure/periodic_recorder.h"

namespace rtgate {

// Sees every sample of every periodic loop of a run. Called on the measuring thread right after
// the wakeup was recorded: it must not allocate, log or take a lock a lower-priority thread can
// hold. Returns false to end the loop (a break threshold was crossed).
class SampleHook {
 public:
  virtual ~SampleHook() = default;
  virtual bool on_sample(const LiveStats& who, std::int64_t deadline_ns,
                         std::int64_t latency_ns) noexcept = 0;
};

struct NoWork {
  void operator()() const noexcept {}
};

class PeriodicLoop {
 public:
  static constexpr std::int64_t kForever = std::numeric_limits<std::int64_t>::max();

  PeriodicLoop(PeriodicRecorder& rec, LiveStats& live, std::int64_t interval_ns,
               SampleHook* hook = nullptr)
      : rec_(rec), live_(live), interval_ns_(interval_ns), hook_(hook) {}

  // Deadlines start_ns + interval, + 2 intervals, ... up to end_ns (kForever: until `stop`);
  // returns when the next deadline is past end_ns, `stop` is set or the hook says stop.
  template <class Work = NoWork>
  void run(std::int64_t start_ns, std::int64_t end_ns, const std::atomic<bool>& stop,
           Work&& work = {}) {
    live_.tid.store(gettid(), std::memory_order_relaxed);
    rec_.start(start_ns);
    std::int64_t next = start_ns + interval_ns_;
    while (next <= end_ns && !stop.load(std::memory_order_relaxed)) {
      const std::int64_t deadline = next;
      sleep_until_ns(deadline);
      const std::int64_t woke = monotonic_ns();
      next = rec_.on_wakeup(deadline, woke, end_ns);
      if (hook_ != nullptr && !hook_->on_sample(live_, deadline, woke - deadline)) [[unlikely]] {
        broke_ = true;
        break;
      }
      if constexpr (!std::is_same_v<std::decay_t<Work>, NoWork>) {
        work();
        next = rec_.reanchor(next, monotonic_ns(), end_ns);
      }
    }
    rec_.finish();
    live_.done.store(true, std::memory_order_relaxed);
  }

  // The hook ended the loop.
  bool broke() const { return broke_; }

 private:
  PeriodicRecorder& rec_;
  LiveStats& live_;
  std::int64_t interval_ns_;
  SampleHook* hook_;
  bool broke_ = false;
};

}  // namespace rtgate
