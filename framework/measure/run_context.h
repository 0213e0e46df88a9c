// RunContext: what the runner hands a suite for one run — duration, CPUs, the stop flag, and the
// live counters that feed the progress line and the watchdog.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "framework/measure/live_stats.h"

namespace rtgate {

class SampleHook;  // framework/measure/periodic_loop.h

class RunContext {
 public:
  RunContext(double duration_s, std::vector<int> cpus, std::atomic<bool>& stop, int run_index = 0,
             int runs = 1);
  RunContext(const RunContext&) = delete;
  RunContext& operator=(const RunContext&) = delete;

  double duration_s() const { return duration_s_; }
  std::int64_t duration_ns() const { return static_cast<std::int64_t>(duration_s_ * 1e9); }
  // The CPUs this run may use (--cpus, or every CPU the process may run on).
  const std::vector<int>& cpus() const { return cpus_; }
  int run_index() const { return run_index_; }
  // The watchdog's stall time for this run (--watchdog): a suite whose threads may legitimately
  // make no progress for a while (pi.stress's deadlock detection) must stay below it.
  double watchdog_s() const { return watchdog_s_; }
  void set_watchdog_s(double s) { watchdog_s_ = s; }
  int runs() const { return runs_; }

  // Set by SIGINT, the watchdog, or the suite itself. Cheap: a relaxed load.
  bool stop_requested() const noexcept { return stop_.load(std::memory_order_relaxed); }
  const std::atomic<bool>& stop_flag() const noexcept { return stop_; }
  void request_stop() noexcept { stop_.store(true, std::memory_order_relaxed); }

  // Registers a live counter (call during set-up, never on a measured path). The reference stays
  // valid for the context's lifetime. `trace_owner` names the case that the counter's samples
  // belong to: with --trace, the analysis of a sample goes into that case ("": into the suite's
  // own trace record, unless claim_trace names a case later). Labels are unique: when a counter
  // of this context already has `label`, the new one is "label-2", "label-3", ... (a sweep's
  // phases each bring a counter of their own, whose trace samples must go to their own case, and
  // /metrics needs one series a counter); the returned counter's label is the one it got.
  LiveStats& track(const std::string& label, std::string trace_owner = "");
  // Names the case owning the trace samples of the counter `label` once it is known (a probe
  // learns its case when its metrics are added); the first name given stands. Not on a
  // measured path.
  void claim_trace(const std::string& label, std::string case_name);
  // Counter label -> owning case, for the trace analysis once the run is over.
  std::map<std::string, std::string> trace_owners() const;
  // Visits every tracked counter, in registration order, without taking any lock or allocating:
  // the FIFO-99 watchdog calls it, and must never wait on a lock that a SCHED_OTHER thread
  // (track() allocating, the progress line, a serve scrape) can hold.
  template <class Fn>
  void for_each_tracked(Fn&& fn) {
    for (Tracked* t = head_.load(std::memory_order_acquire); t != nullptr;
         t = t->next.load(std::memory_order_acquire)) {
      fn(t->stats);
    }
  }
  // For tests: holds the lock track() takes, as a preempted SCHED_OTHER registrant would.
  std::unique_lock<std::mutex> hold_registration_for_test() {
    return std::unique_lock(tracked_mutex_);
  }

  // What every periodic loop of this run offers each sample to (nullptr: nothing); set before
  // the suite starts, read by the suite when it builds its loops.
  SampleHook* sample_hook() const { return sample_hook_; }
  void set_sample_hook(SampleHook* hook) { sample_hook_ = hook; }

 private:
  double duration_s_;
  std::vector<int> cpus_;
  std::atomic<bool>& stop_;
  int run_index_;
  int runs_;
  double watchdog_s_ = 10;
  // Registrants serialise on the mutex and append each counter to a list by a release store
  // (of the head, or of the last node's next); readers walk it with acquire loads. Nodes live as
  // long as the context (a deque never moves its elements).
  struct Tracked {
    explicit Tracked(std::string label) : stats(std::move(label)) {}
    LiveStats stats;
    std::atomic<Tracked*> next{nullptr};
  };
  mutable std::mutex tracked_mutex_;  // also guards trace_owners_
  std::map<std::string, std::string> trace_owners_;
  std::deque<Tracked> tracked_;
  LiveStats& append_locked(std::string label);  // holding tracked_mutex_
  Tracked* tail_ = nullptr;
  std::atomic<Tracked*> head_{nullptr};
  SampleHook* sample_hook_ = nullptr;
};

}  // namespace rtgate
