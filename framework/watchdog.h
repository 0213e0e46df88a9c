// Watchdog: ends a run whose measuring threads stop making progress, and keeps the machine alive.
//
// It runs at SCHED_FIFO 99 (above every suite thread, which the runner caps at 98) on a
// housekeeping CPU when one exists, so a runaway FIFO spinner cannot starve it. When a tracked
// thread publishes no new sample for `stall_s`, it requests the run's stop and records why; if the
// thread still has not finished `grace_s` later, it demotes it to SCHED_OTHER so the rest of the
// system (and rtgate's own main thread) can run again. Its loop takes no lock and allocates
// nothing: a runaway spinner may have preempted any SCHED_OTHER thread holding one.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "framework/measure/run_context.h"

namespace rtgate {

namespace rt {
class RtThread;
}

class Watchdog {
 public:
  Watchdog(RunContext& ctx, double stall_s, double grace_s = 2.0);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  bool fired() const { return fired_.load(); }
  std::string reason() const;

 private:
  void loop();

  RunContext& ctx_;
  double stall_s_;
  double grace_s_;
  std::atomic<bool> quit_{false};
  // The reason is written once, by the watchdog, before fired_ is released; no lock, so nothing
  // a lower-priority thread holds can delay the watchdog.
  std::atomic<bool> fired_{false};
  char reason_[192] = {};
  std::unique_ptr<rt::RtThread> thread_;
};

}  // namespace rtgate
