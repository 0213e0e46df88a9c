#include "framework/measure/periodic_recorder.h"

#include <gtest/gtest.h>

namespace rtgate {
namespace {

constexpr std::int64_t kMs = 1'000'000;

TEST(PeriodicRecorder, OnTimeWakeupsAdvanceOnePeriod) {
  LiveStats live("t");
  PeriodicRecorder r(kMs, 1000 * kMs, 10, live);
  r.start(0);
  std::int64_t next = kMs;
  for (int i = 0; i < 5; ++i) {
    const std::int64_t deadline = next;
    next = r.on_wakeup(deadline, deadline + 20'000);
    EXPECT_EQ(next, deadline + kMs);
  }
  EXPECT_EQ(r.samples(), 5u);
  EXPECT_EQ(r.overruns(), 0u);
  EXPECT_EQ(r.missed_periods(), 0u);
  EXPECT_EQ(r.histogram().max(), 20'000u);
  EXPECT_EQ(live.samples.load(), 5u);
  EXPECT_EQ(live.max_ns.load(), 20'000);
}

TEST(PeriodicRecorder, ALateWakeupSkipsThePeriodsItSwallowed) {
  LiveStats live("t");
  PeriodicRecorder r(kMs, 1000 * kMs, 10, live);
  r.start(0);
  // Due at 1 ms, woke at 4.5 ms: deadlines 2, 3 and 4 ms have passed. One sample, three missed,
  // and the next deadline is the first one still in the future (5 ms).
  const std::int64_t next = r.on_wakeup(kMs, 4 * kMs + kMs / 2);
  EXPECT_EQ(next, 5 * kMs);
  EXPECT_EQ(r.samples(), 1u);
  EXPECT_EQ(r.overruns(), 1u);
  EXPECT_EQ(r.missed_periods(), 3u);
  EXPECT_EQ(r.histogram().max(), static_cast<std::uint64_t>(3 * kMs + kMs / 2));
  // Exactly one period late still overruns: the next deadline had already passed.
  const std::int64_t after = r.on_wakeup(next, next + kMs);
  EXPECT_EQ(after, next + 2 * kMs);
  EXPECT_EQ(r.overruns(), 2u);
  EXPECT_EQ(r.missed_periods(), 4u);
}

// A late wakeup near the end of the run counts only the deadlines the run still had: due at
// 9 ms of a run ending at 10 ms, woken at 12.5 ms, it missed the 10 ms deadline, not 11 and 12.
TEST(PeriodicRecorder, MissedPeriodsStopAtTheEndOfTheRun) {
  LiveStats live("t");
  PeriodicRecorder r(kMs, 1000 * kMs, 10, live);
  r.start(0);
  EXPECT_EQ(r.on_wakeup(9 * kMs, 12 * kMs + kMs / 2, 10 * kMs), 13 * kMs);
  EXPECT_EQ(r.missed_periods(), 1u);
  // The last deadline itself late by two periods: nothing left to miss.
  r.on_wakeup(10 * kMs, 12 * kMs + kMs / 2, 10 * kMs);
  EXPECT_EQ(r.missed_periods(), 1u);
  EXPECT_EQ(r.overruns(), 2u);
}

TEST(PeriodicRecorder, BlockMaximaArePerBlockAndBounded) {
  LiveStats live("t");
  PeriodicRecorder r(kMs, 10 * kMs, 3, live);  // 10 periods a block, room for 3 blocks
  r.start(0);
  std::int64_t next = kMs;
  for (int i = 1; i <= 50; ++i) {
    const std::int64_t lat = (i % 10 == 5) ? 1000 * i : 100;
    next = r.on_wakeup(next, next + lat);
  }
  // Blocks close at 10, 20, 30 ms...; only 3 are kept, never a reallocation.
  ASSERT_EQ(r.block_maxima().size(), 3u);
  EXPECT_EQ(r.block_maxima()[0], 5000);
  EXPECT_EQ(r.block_maxima()[1], 15000);
  EXPECT_EQ(r.block_maxima()[2], 25000);
  EXPECT_EQ(r.block_maxima().capacity(), 3u);
}

// The open block is kept when the loop ends (short runs, a stop request, SIGINT).
TEST(PeriodicRecorder, FinishKeepsThePartialBlocksMaximum) {
  LiveStats live("t");
  PeriodicRecorder r(kMs, 10 * kMs, 3, live);
  r.start(0);
  std::int64_t next = kMs;
  for (int i = 1; i <= 5; ++i) next = r.on_wakeup(next, next + 100 * i);
  EXPECT_TRUE(r.block_maxima().empty());
  r.finish();
  ASSERT_EQ(r.block_maxima().size(), 1u);
  EXPECT_EQ(r.block_maxima()[0], 500);
  r.finish();
  EXPECT_EQ(r.block_maxima().size(), 1u) << "an empty block adds nothing";
}

}  // namespace
}  // namespace rtgate
