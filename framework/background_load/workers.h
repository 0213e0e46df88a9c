// Workers: the threads behind an in-process load, with one stop flag, a per-thread op counter and
// the start-to-stop time. Threads are rt::RtThreads, so a load's policy is explicit at birth (a
// SCHED_OTHER load started from a SCHED_FIFO thread must not inherit FIFO) and asynchronous
// signals stay with the main thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "framework/background_load/load.h"
#include "framework/rt/rt_thread.h"

namespace rtgate::load {

// SCHED_OTHER, unpinned: the starting thread's CPUs (what rt::allowed_cpus() reports).
rt::ThreadSpec other_thread(std::string name);

class Workers {
 public:
  // One cache line each, so counting is not itself a source of cross-CPU traffic.
  struct alignas(64) Counter {
    std::atomic<std::uint64_t> value{0};
    // Single writer: a relaxed load and store, no locked instruction.
    void add(std::uint64_t n) {
      value.store(value.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    }
  };
  using Body = std::function<void(int index, Counter& ops)>;

  Workers() = default;
  ~Workers() { stop(); }
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;

  // Starts n threads: thread i is born from spec(i) and runs body(i, its counter). Throws
  // LoadError after requesting a stop; the owner joins the threads already started with stop(),
  // since only it knows how to wake a thread blocked in its body.
  void start(int n, const std::function<rt::ThreadSpec(int)>& spec, const Body& body);
  // Bodies poll this and return soon after it turns true.
  bool stopping() const { return stop_.load(std::memory_order_relaxed); }
  void request_stop() { stop_.store(true, std::memory_order_relaxed); }
  void join();  // idempotent; fixes the end time
  void stop() {
    request_stop();
    join();
  }

  std::uint64_t ops() const;
  double seconds() const;  // start to stop, or to now while running; 0 before start
  // kind, spec, instances and unit as given; seconds, ops and ops/s from the workers.
  LoadReport report(std::string kind, std::string spec, int instances, std::string unit) const;

 private:
  std::atomic<bool> stop_{false};
  int n_ = 0;
  std::unique_ptr<Counter[]> counters_;
  std::vector<std::unique_ptr<rt::RtThread>> threads_;
  std::int64_t start_ns_ = 0;
  std::int64_t end_ns_ = 0;
};

}  // namespace rtgate::load
