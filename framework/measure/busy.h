// Busy work of a known length, for critical sections and competing spinners. Both are bounded:
// they end after the given time whatever happens.
#pragma once

#include <time.h>

#include <cstdint>

#include "framework/measure/clock.h"

namespace rtgate {

// Spins until `ns` of wall time have passed.
inline void spin_for_ns(std::int64_t ns) noexcept {
  const std::int64_t end = monotonic_ns() + ns;
  while (monotonic_ns() < end) {
  }
}

inline std::int64_t thread_cpu_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Spins until this thread has consumed `ns` of CPU time (time preempted does not count), or
// until `limit_ns` of wall time have passed.
inline void burn_cpu_ns(std::int64_t ns, std::int64_t limit_ns) noexcept {
  const std::int64_t start = thread_cpu_ns(), end = monotonic_ns() + limit_ns;
  while (thread_cpu_ns() - start < ns && monotonic_ns() < end) {
  }
}

}  // namespace rtgate
