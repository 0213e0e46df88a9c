// The clocks a busy loop reads back to back (the oslat suite), as raw ticks: the x86 TSC, or
// CLOCK_MONOTONIC_RAW in ns. Reading either costs tens of ns and never enters the kernel (rdtsc,
// or the vDSO), so a gap between two reads is time the thread did not run.
//
// The TSC is used only where its rate is fixed: constant_tsc (it ticks at one rate whatever the
// core's frequency) and nonstop_tsc (it keeps ticking in deep C-states). Its rate is measured
// against CLOCK_MONOTONIC_RAW (not CLOCK_MONOTONIC, which NTP slews), so converting ticks to ns
// needs neither the kernel's calibration nor a frequency the CPU reports. A loop compares
// readings taken on one CPU only, so whether the TSCs of different CPUs agree does not matter.
#pragma once

#include <time.h>

#include <cstdint>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define RTGATE_HAVE_TSC 1
#else
#define RTGATE_HAVE_TSC 0
#endif

namespace rtgate {

struct RawClock {
  std::uint64_t read() const noexcept {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u +
           static_cast<std::uint64_t>(ts.tv_nsec);
  }
};

#if RTGATE_HAVE_TSC
struct TscClock {
  // The fence keeps rdtsc from running ahead of the loads before it (the kernel's
  // rdtsc_ordered()): otherwise a read can be hoisted across the previous iteration and a gap
  // split between two deltas.
  std::uint64_t read() const noexcept {
    _mm_lfence();
    return __rdtsc();
  }
};
#endif

// "" when the TSC can be the loop's clock here; else why not, in one line.
std::string tsc_unusable();
// `flags`: the "flags" line of /proc/cpuinfo (for tests); the reason, or "".
std::string tsc_unusable_with_flags(const std::string& flags);

// ns per TSC tick, measured against CLOCK_MONOTONIC_RAW over `window_ns` (the caller's thread
// sleeps meanwhile); 0 when the measurement makes no sense (the TSC did not advance).
double calibrate_tsc_ns_per_tick(std::int64_t window_ns = 50'000'000);

}  // namespace rtgate
