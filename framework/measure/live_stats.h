// LiveStats: what a measuring thread publishes while it runs, for the progress line and the
// watchdog. One writer (the measuring thread, relaxed stores only: no RMW, no lock, no
// allocation), any number of readers.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <string>

namespace rtgate {

struct alignas(64) LiveStats {
  explicit LiveStats(std::string label_) : label(std::move(label_)) {}
  LiveStats(const LiveStats&) = delete;
  LiveStats& operator=(const LiveStats&) = delete;

  void publish(std::uint64_t samples_so_far, std::int64_t max_so_far_ns) noexcept {
    samples.store(samples_so_far, std::memory_order_relaxed);
    max_ns.store(max_so_far_ns, std::memory_order_relaxed);
  }

  const std::string label;  // e.g. "cpu0"
  std::atomic<std::uint64_t> samples{0};
  std::atomic<std::int64_t> max_ns{0};
  std::atomic<pid_t> tid{0};      // set once the thread runs, so the watchdog can demote it
  std::atomic<bool> done{false};  // a finished thread is not stalled

  // The watchdog's own bookkeeping (only its thread touches these): the sample count it last saw
  // and since when, kept here so that the FIFO-99 watchdog never allocates.
  struct Watch {
    bool seen = false;
    std::uint64_t samples = 0;
    std::int64_t since_ns = 0;
  } watch;
};

}  // namespace rtgate
