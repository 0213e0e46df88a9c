// Busy work of a known length, for critical sections and competing spinners. Both are bounded:
// they end after the given time whatever happens.
#pragma once

#include <time.h>

#include <cstddef>
#include <cstdint>

#include "framework/measure/clock.h"

namespace rtgate {

// Spins until `ns` of wall time have passed.
inline void spin_for_ns(std::int64_t ns) noexcept {
  const std::int64_t end = monotonic_ns() + ns;
  while (monotonic_ns() < end) {
  }
}

// A span in which a spinning thread's loop did not run: an interrupt, a preemption, or, in a
// guest, its vCPU off the host's CPU while the guest's clocks (the thread's CPU clock included)
// went on.
struct Gap {
  std::int64_t from_ns = 0, to_ns = 0;
  std::int64_t length() const noexcept { return to_ns - from_ns; }
};

// Spins until `until_ns` (CLOCK_MONOTONIC), keeping the `max_gaps` longest gaps of `min_gap_ns`
// or more between consecutive clock reads in `gaps`. Returns how many it kept.
inline std::size_t spin_until_noting_gaps(std::int64_t until_ns, std::int64_t min_gap_ns, Gap* gaps,
                                          std::size_t max_gaps) noexcept {
  std::size_t kept = 0;
  for (std::int64_t last = monotonic_ns(); last < until_ns;) {
    const std::int64_t now = monotonic_ns();
    if (now - last >= min_gap_ns && max_gaps > 0) {
      std::size_t slot = kept;
      if (kept == max_gaps) {  // full: replace the shortest, if this one is longer
        slot = 0;
        for (std::size_t i = 1; i < kept; ++i) {
          if (gaps[i].length() < gaps[slot].length()) slot = i;
        }
        if (gaps[slot].length() >= now - last) slot = max_gaps;
      } else {
        ++kept;
      }
      if (slot < max_gaps) gaps[slot] = {last, now};
    }
    last = now;
  }
  return kept;
}

inline std::int64_t thread_cpu_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Spins until this thread has consumed `ns` of CPU time (time preempted does not count), or
// until `limit_ns` of wall time have passed. Returns the sum of the gaps of `min_gap_ns` or more
// between the loop's consecutive wall-clock reads: time the loop did not run although, in a guest
// that cannot see its steal, its CPU clock may have gone on (see Gap).
inline std::int64_t burn_cpu_ns(std::int64_t ns, std::int64_t limit_ns,
                                std::int64_t min_gap_ns = 20'000) noexcept {
  const std::int64_t start = thread_cpu_ns();
  std::int64_t last = monotonic_ns(), gaps = 0;
  const std::int64_t end = last + limit_ns;
  while (thread_cpu_ns() - start < ns) {
    const std::int64_t now = monotonic_ns();
    if (now - last >= min_gap_ns) gaps += now - last;
    last = now;
    if (now >= end) break;
  }
  return gaps;
}

}  // namespace rtgate
