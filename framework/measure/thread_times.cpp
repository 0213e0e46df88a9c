#include "framework/measure/thread_times.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>

#include "framework/measure/clock.h"

namespace rtgate {
namespace {

std::int64_t thread_cpu() noexcept {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// "sum_exec_runtime run_delay pcount": the second number.
std::int64_t second_number(const char* p, const char* end) noexcept {
  while (p < end && *p != ' ') ++p;
  while (p < end && *p == ' ') ++p;
  std::int64_t v = 0;
  for (; p < end && *p >= '0' && *p <= '9'; ++p) v = v * 10 + (*p - '0');
  return v;
}

}  // namespace

ThreadTimesReader::ThreadTimesReader() noexcept
    : fd_(open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC)) {}

ThreadTimesReader::~ThreadTimesReader() {
  if (fd_ >= 0) close(fd_);
}

ThreadTimes ThreadTimesReader::now() const noexcept {
  // The three clocks are read one after another; a preemption between them would land in the
  // run delay but not in the wall window. So the reads are bracketed by the wall clock and done
  // again (a bounded number of times) when the bracket shows the thread was away.
  constexpr std::int64_t kTightNs = 50'000;
  ThreadTimes t;
  for (int attempt = 0; attempt < 4; ++attempt) {
    const std::int64_t before = monotonic_ns();
    if (fd_ >= 0) {
      char buf[96];
      const ssize_t n = pread(fd_, buf, sizeof buf, 0);
      if (n > 0) t.run_delay_ns = second_number(buf, buf + n);
    }
    t.cpu_ns = thread_cpu();
    t.wall_ns = monotonic_ns();
    if (t.wall_ns - before <= kTightNs) break;
  }
  return t;
}

WindowSplit split_window(const ThreadTimes& a, const ThreadTimes& b) noexcept {
  WindowSplit w;
  w.wall_ns = b.wall_ns - a.wall_ns;
  w.cpu_ns = b.cpu_ns - a.cpu_ns;
  w.preempted_ns = std::max<std::int64_t>(0, b.run_delay_ns - a.run_delay_ns);
  w.unaccounted_ns = std::max<std::int64_t>(0, w.wall_ns - w.cpu_ns - w.preempted_ns);
  return w;
}

}  // namespace rtgate
