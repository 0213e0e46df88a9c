// Clocks for measurement: CLOCK_MONOTONIC in nanoseconds, without allocation or locking.
#pragma once

#include <errno.h>
#include <time.h>

#include <cstdint>

namespace rtgate {

inline std::int64_t monotonic_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

inline timespec to_timespec(std::int64_t ns) noexcept {
  timespec ts;
  ts.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
  ts.tv_nsec = static_cast<long>(ns % 1'000'000'000);
  return ts;
}

// Sleeps until the absolute CLOCK_MONOTONIC time `ns`, resuming after signals.
inline void sleep_until_ns(std::int64_t ns) noexcept {
  const timespec ts = to_timespec(ns);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

}  // namespace rtgate
