// StartLine: the common start of a case's measuring threads, fixed when the last of them is
// running rather than before they were created. Under load, creating threads can take longer
// than any fixed lead, and a start time fixed in advance would hand the first sample that delay.
// Each thread calls arrive_and_wait() first thing; the last to arrive sets the start to `lead_ns`
// from then, and every thread gets that same time. Set-up only: it blocks (a futex), never on a
// measured path. If not every thread can be created, abandon() lets the others through (they
// should then see the run's stop request).
//
// prepare_and_wait() first runs the thread's own set-up: a measuring thread builds its state
// (recorder, histogram, counters) itself, on its own CPU, so the kernel places those pages on
// that CPU's NUMA node (first touch) and each thread's state is a separate allocation. Built by
// the suite's thread, it would all sit on that thread's node: remote memory on the measured path
// of a big board.
#pragma once

#include <atomic>
#include <barrier>
#include <cstdint>

#include "framework/measure/clock.h"

namespace rtgate {

class StartLine {
 public:
  StartLine(int threads, std::int64_t lead_ns)
      : lead_ns_(lead_ns), barrier_(threads, Completion{this}) {}

  std::int64_t arrive_and_wait() {
    barrier_.arrive_and_wait();
    return start_ns_.load(std::memory_order_acquire);
  }

  // Runs `prepare` on the calling thread, then arrives. If `prepare` throws, the thread drops
  // out of the start (the others are not held) and the exception propagates: RtThread records it
  // and the run stops.
  template <class Prepare>
  std::int64_t prepare_and_wait(Prepare&& prepare) {
    try {
      prepare();
    } catch (...) {
      barrier_.arrive_and_drop();
      throw;
    }
    return arrive_and_wait();
  }

  // For each thread that will never arrive (its creation failed).
  void abandon(int missing) {
    for (int i = 0; i < missing; ++i) barrier_.arrive_and_drop();
  }

 private:
  struct Completion {
    StartLine* line;
    void operator()() noexcept {
      line->start_ns_.store(monotonic_ns() + line->lead_ns_, std::memory_order_release);
    }
  };
  std::int64_t lead_ns_;
  std::atomic<std::int64_t> start_ns_{0};
  std::barrier<Completion> barrier_;
};

}  // namespace rtgate
