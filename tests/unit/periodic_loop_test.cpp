// PeriodicLoop: the one measuring loop of cyclic, the workload probe and lock.latency. Runs here
// on the test's own (SCHED_OTHER) thread at a 1 ms period: the assertions are about counts and
// order, not about latency, so they hold on a loaded machine too.
#include "framework/measure/periodic_loop.h"

#include <gtest/gtest.h>

#include <vector>

namespace rtgate {
namespace {

class CountingHook : public SampleHook {
 public:
  explicit CountingHook(int stop_after) : stop_after_(stop_after) {}
  bool on_sample(const LiveStats& who, std::int64_t deadline_ns,
                 std::int64_t latency_ns) noexcept override {
    deadlines.push_back(deadline_ns);
    latencies.push_back(latency_ns);
    label = who.label;
    return static_cast<int>(deadlines.size()) < stop_after_;
  }
  std::vector<std::int64_t> deadlines, latencies;
  std::string label;

 private:
  int stop_after_;
};

constexpr std::int64_t kMs = 1'000'000;

TEST(PeriodicLoop, RecordsEveryPeriodUntilTheEndAndMarksTheThreadDone) {
  LiveStats live("cpu0");
  PeriodicRecorder rec(kMs, 1000 * kMs, 4, live);
  std::atomic<bool> stop{false};
  int work = 0;
  const std::int64_t start = monotonic_ns();
  PeriodicLoop loop(rec, live, kMs);
  loop.run(start, start + 20 * kMs, stop, [&] { ++work; });
  // 20 deadlines fit; a late wakeup swallows (and counts) the periods it missed, work that ran
  // late the ones it used up.
  EXPECT_EQ(rec.samples() + rec.missed_periods() + rec.work_skipped(), 20u);
  EXPECT_EQ(work, static_cast<int>(rec.samples()));
  EXPECT_FALSE(loop.broke());
  EXPECT_EQ(live.tid.load(), gettid());
  EXPECT_TRUE(live.done.load());
  EXPECT_EQ(live.samples.load(), rec.samples());
}

// Work that runs past the next deadline (a lock held longer than a period) re-anchors the
// schedule: the next deadline is after the work ended, so the next sample measures a wakeup, not
// the work; the periods the work used up are counted as work overruns, not missed periods.
TEST(PeriodicLoop, WorkPastTheNextDeadlineReanchorsInsteadOfBecomingLatency) {
  LiveStats live("lock/rt0");
  PeriodicRecorder rec(kMs, 1000 * kMs, 4, live);
  CountingHook hook(1000);
  std::atomic<bool> stop{false};
  int period = 0;
  std::int64_t work_end = 0;
  const std::int64_t start = monotonic_ns();
  // 40 periods: after the overrun the window still holds 30, so the fourth sample comes even when
  // a loaded machine (the sanitizer pass, the calibrations beside it) wakes this thread late.
  PeriodicLoop(rec, live, kMs, &hook).run(start, start + 40 * kMs, stop, [&] {
    if (++period == 3) {
      sleep_until_ns(monotonic_ns() + 3 * kMs + kMs / 2);
      work_end = monotonic_ns();
    }
  });
  ASSERT_GE(hook.deadlines.size(), 4u);
  EXPECT_GT(hook.deadlines[3], work_end) << "the deadline after the overrun lies ahead of it";
  EXPECT_GE(rec.work_overruns(), 1u);
  EXPECT_GE(rec.work_skipped(), 3u);
  EXPECT_EQ(rec.samples() + rec.missed_periods() + rec.work_skipped(), 40u);
}

TEST(PeriodicLoop, TheHookSeesEachSampleFirstAndCanEndTheLoop) {
  LiveStats live("probe");
  PeriodicRecorder rec(kMs, 1000 * kMs, 4, live);
  std::atomic<bool> stop{false};
  CountingHook hook(5);
  int work = 0;
  const std::int64_t start = monotonic_ns();
  PeriodicLoop loop(rec, live, kMs, &hook);
  loop.run(start, PeriodicLoop::kForever, stop, [&] { ++work; });
  EXPECT_TRUE(loop.broke());
  ASSERT_EQ(hook.deadlines.size(), 5u);
  EXPECT_EQ(rec.samples(), 5u);
  EXPECT_EQ(work, 4) << "the sample that ends the loop does no work";
  EXPECT_EQ(hook.label, "probe");
  EXPECT_EQ(hook.deadlines[0], start + kMs);
  for (std::size_t i = 1; i < hook.deadlines.size(); ++i) {
    EXPECT_GT(hook.deadlines[i], hook.deadlines[i - 1]);
    EXPECT_EQ((hook.deadlines[i] - start) % kMs, 0);
  }
  for (std::int64_t lat : hook.latencies) EXPECT_GE(lat, 0);
  EXPECT_TRUE(live.done.load());
}

TEST(PeriodicLoop, AStopRequestEndsItWithoutTheHook) {
  LiveStats live("cpu1");
  PeriodicRecorder rec(kMs, 1000 * kMs, 4, live);
  std::atomic<bool> stop{true};
  CountingHook hook(1000);
  PeriodicLoop(rec, live, kMs, &hook).run(monotonic_ns(), PeriodicLoop::kForever, stop);
  EXPECT_TRUE(hook.deadlines.empty());
  EXPECT_EQ(rec.samples(), 0u);
  EXPECT_TRUE(live.done.load());
}

}  // namespace
}  // namespace rtgate
