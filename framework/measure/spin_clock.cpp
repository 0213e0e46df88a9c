#include "framework/measure/spin_clock.h"

#include <limits>
#include <sstream>

#include "base/io/proc_files.h"
#include "framework/measure/clock.h"

namespace rtgate {
namespace {

bool has_flag(const std::string& flags, const std::string& flag) {
  std::istringstream words(flags);
  std::string w;
  while (words >> w) {
    if (w == flag) return true;
  }
  return false;
}

#if RTGATE_HAVE_TSC
// A TSC reading and the CLOCK_MONOTONIC_RAW time it was taken at: the midpoint of the tightest
// raw-tsc-raw bracket of a few tries (an interrupt inside a bracket widens only that one).
struct Pair {
  std::uint64_t tsc = 0;
  double raw_ns = 0;
};

Pair pair_now() {
  const RawClock raw;
  const TscClock tsc;
  Pair best;
  std::uint64_t tightest = std::numeric_limits<std::uint64_t>::max();
  for (int i = 0; i < 9; ++i) {
    const std::uint64_t r0 = raw.read();
    const std::uint64_t t = tsc.read();
    const std::uint64_t r1 = raw.read();
    if (r1 - r0 < tightest) {
      tightest = r1 - r0;
      best = {t, static_cast<double>(r0) + static_cast<double>(r1 - r0) / 2};
    }
  }
  return best;
}
#endif

}  // namespace

std::string tsc_unusable_with_flags(const std::string& flags) {
  if (!has_flag(flags, "constant_tsc")) {
    return "the TSC's rate follows the CPU's frequency here (no constant_tsc in /proc/cpuinfo)";
  }
  if (!has_flag(flags, "nonstop_tsc")) {
    return "the TSC may stop in deep C-states here (no nonstop_tsc in /proc/cpuinfo)";
  }
  return "";
}

std::string tsc_unusable() {
#if RTGATE_HAVE_TSC
  const std::string cpuinfo = proc::read_file("/proc/cpuinfo").value_or("");
  const std::size_t at = cpuinfo.find("\nflags");
  if (at == std::string::npos) return "/proc/cpuinfo has no flags line";
  const std::size_t colon = cpuinfo.find(':', at);
  const std::size_t end = cpuinfo.find('\n', at + 1);
  if (colon == std::string::npos || colon > end) return "/proc/cpuinfo has no flags line";
  return tsc_unusable_with_flags(cpuinfo.substr(colon + 1, end - colon - 1));
#else
  return "this is not an x86 CPU: there is no TSC";
#endif
}

double calibrate_tsc_ns_per_tick(std::int64_t window_ns) {
#if RTGATE_HAVE_TSC
  const Pair a = pair_now();
  sleep_until_ns(monotonic_ns() + window_ns);
  const Pair b = pair_now();
  if (b.tsc <= a.tsc || b.raw_ns <= a.raw_ns) return 0;
  return (b.raw_ns - a.raw_ns) / static_cast<double>(b.tsc - a.tsc);
#else
  (void)window_ns;
  return 0;
#endif
}

}  // namespace rtgate
