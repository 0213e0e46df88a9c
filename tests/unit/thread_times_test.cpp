// A thread's wall time splits into CPU, preemption and the host's part, exactly: a FIFO spinner
// preempted by a higher one on its CPU sees the preemption as run delay, not as its own time.
#include "framework/measure/thread_times.h"

#include <gtest/gtest.h>

#include "framework/measure/busy.h"
#include "framework/rt/cpu_list.h"
#include "framework/rt/rt_checks.h"
#include "framework/rt/rt_thread.h"

namespace rtgate {
namespace {

TEST(ThreadTimes, TheSplitAddsUpToTheWallTime) {
  const ThreadTimesReader reader;
  const ThreadTimes a = reader.now();
  spin_for_ns(20'000'000);
  const WindowSplit w = split_window(a, reader.now());
  EXPECT_GE(w.wall_ns, 20'000'000);
  // Within 0.1 ms: the three clocks are read one after another, and read again when a preemption
  // fell between them (more than 50 us from the first to the last).
  EXPECT_NEAR(static_cast<double>(w.wall_ns),
              static_cast<double>(w.cpu_ns + w.preempted_ns + w.unaccounted_ns), 1e5);
}

TEST(ThreadTimes, PreemptionByAHigherFifoThreadIsRunDelay) {
  if (const std::string why = rt::probe_sched_fifo(); !why.empty()) GTEST_SKIP() << why;
  const int cpu = rt::allowed_cpus().back();
  WindowSplit w;
  rt::RtThread low({.name = "tt-low", .priority = 10, .cpus = {cpu}}, [&] {
    const ThreadTimesReader reader;
    if (!reader.has_run_delay()) return;
    const ThreadTimes a = reader.now();
    // 30 ms of CPU, with a FIFO-20 thread taking the CPU for 20 ms in the middle.
    burn_cpu_ns(10'000'000, 1'000'000'000);
    rt::RtThread high({.name = "tt-high", .priority = 20, .cpus = {cpu}},
                      [] { spin_for_ns(20'000'000); });
    burn_cpu_ns(20'000'000, 1'000'000'000);
    high.join();
    w = split_window(a, reader.now());
  });
  low.join();
  if (w.wall_ns == 0) GTEST_SKIP() << "no schedstat here";
  // Wide bounds: the 20 ms is the high thread's spin in wall time, of which the host may take
  // some (then it is in neither our CPU nor our run delay).
  EXPECT_GE(w.preempted_ns + w.unaccounted_ns, 19'000'000);
  EXPECT_GE(w.cpu_ns, 30'000'000);
  // Within 0.1 ms: the three clocks are read one after another.
  EXPECT_NEAR(static_cast<double>(w.wall_ns),
              static_cast<double>(w.cpu_ns + w.preempted_ns + w.unaccounted_ns), 1e5);
  std::printf("  wall %.1f ms = cpu %.1f + preempted %.1f + host %.1f\n",
              static_cast<double>(w.wall_ns) / 1e6, static_cast<double>(w.cpu_ns) / 1e6,
              static_cast<double>(w.preempted_ns) / 1e6,
              static_cast<double>(w.unaccounted_ns) / 1e6);
}

}  // namespace
}  // namespace rtgate
