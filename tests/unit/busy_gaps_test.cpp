// spin_until_noting_gaps (framework/measure/busy.h): a FIFO spinner preempted by a higher FIFO
// thread on its CPU sees the preemption as one gap in its loop, and keeps the longest gaps when
// it has room for fewer than it saw.
#include <gtest/gtest.h>

#include <array>

#include "framework/measure/busy.h"
#include "framework/measure/clock.h"
#include "framework/rt/cpu_list.h"
#include "framework/rt/rt_checks.h"
#include "framework/rt/rt_thread.h"

namespace rtgate {
namespace {

// Spins 60 ms at FIFO 10 on one CPU while a FIFO-20 thread on that CPU sleeps 10 ms and then
// spins 20 ms: the spinner's loop cannot run for those 20 ms.
template <std::size_t N>
std::size_t spin_preempted(std::array<Gap, N>& gaps, std::int64_t* began) {
  const int cpu = rt::allowed_cpus().back();
  std::size_t kept = 0;
  rt::RtThread low({.name = "gap-low", .priority = 10, .cpus = {cpu}}, [&] {
    rt::RtThread high({.name = "gap-high", .priority = 20, .cpus = {cpu}}, [] {
      sleep_until_ns(monotonic_ns() + 10'000'000);
      spin_for_ns(20'000'000);
    });
    *began = monotonic_ns();
    kept = spin_until_noting_gaps(*began + 60'000'000, 20'000, gaps.data(), gaps.size());
    high.join();
  });
  low.join();
  return kept;
}

std::size_t longest(const Gap* gaps, std::size_t n) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < n; ++i) {
    if (gaps[i].length() > gaps[best].length()) best = i;
  }
  return best;
}

TEST(BusyGaps, APreemptionIsOneGapOfItsLength) {
  if (const std::string why = rt::probe_sched_fifo(); !why.empty()) GTEST_SKIP() << why;
  std::array<Gap, 8> gaps{};
  std::int64_t began = 0;
  const std::size_t kept = spin_preempted(gaps, &began);
  ASSERT_GE(kept, 1u);
  const Gap& g = gaps[longest(gaps.data(), kept)];
  // The high thread's 20 ms of wall time, all of it outside the loop; under 45 ms because the
  // gap cannot outlast the high thread's sleep and spin by more than a slow wakeup.
  EXPECT_GE(g.length(), 20'000'000) << g.length();
  EXPECT_LT(g.length(), 45'000'000) << g.length();
  EXPECT_GE(g.from_ns, began);
  EXPECT_LE(g.to_ns, began + 60'000'000 + g.length());
}

TEST(BusyGaps, WithRoomForOneTheLongestIsKept) {
  if (const std::string why = rt::probe_sched_fifo(); !why.empty()) GTEST_SKIP() << why;
  std::array<Gap, 1> gaps{};
  std::int64_t began = 0;
  ASSERT_EQ(spin_preempted(gaps, &began), 1u);
  EXPECT_GE(gaps[0].length(), 20'000'000) << gaps[0].length();
}

TEST(BusyGaps, AnUnbrokenSpinEndsOnTime) {
  std::array<Gap, 4> gaps{};
  const std::int64_t until = monotonic_ns() + 5'000'000;
  spin_until_noting_gaps(until, 20'000, gaps.data(), gaps.size());
  EXPECT_GE(monotonic_ns(), until);
}

}  // namespace
}  // namespace rtgate
