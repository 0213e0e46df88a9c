// StartGate: the common start of a case's measuring threads, fixed when the last of them is
// running rather than before they were created. Under load, creating threads can take longer
// than any fixed lead, and a start time fixed in advance would hand the first sample that delay.
// Each thread calls arrive_and_wait() first thing; the last to arrive sets the start to `lead_ns`
// from then, and every thread gets that same time. Set-up only: it blocks (a futex), never on a
// measured path. If not every thread can be created, abandon() lets the others through (they
// should then see the run's stop request).
#pragma once

#include <atomic>
#include <barrier>
#include <cstdint>

#include "framework/measure/clock.h"

namespace rtgate {

class StartGate {
 public:
  StartGate(int threads, std::int64_t lead_ns)
      : lead_ns_(lead_ns), barrier_(threads, Completion{this}) {}

  std::int64_t arrive_and_wait() {
    barrier_.arrive_and_wait();
    return start_ns_.load(std::memory_order_acquire);
  }

  // For each thread that will never arrive (its creation failed).
  void abandon(int missing) {
    for (int i = 0; i < missing; ++i) barrier_.arrive_and_drop();
  }

 private:
  struct Completion {
    StartGate* gate;
    void operator()() noexcept {
      gate->start_ns_.store(monotonic_ns() + gate->lead_ns_, std::memory_order_release);
    }
  };
  std::int64_t lead_ns_;
  std::atomic<std::int64_t> start_ns_{0};
  std::barrier<Completion> barrier_;
};

}  // namespace rtgate
