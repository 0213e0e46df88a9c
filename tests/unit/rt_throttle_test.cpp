// RtThrottleWatch: RT throttling read from the scheduler's own rt_rq state (its debug file),
// counted per CPU and episode, including an episode that began and ended between two samples.
#include "framework/rt/rt_throttle.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace rtgate::rt {
namespace {

// The layout of sched/debug (kernel 6.18, abridged): each CPU's cfs_rq, rt_rq and dl_rq sections.
std::string debug_text(bool throttled0, double rt_time0, double rt_time1 = 0, int running = 1) {
  auto rt_rq = [running](int cpu, bool throttled, double rt_time) {
    return "rt_rq[" + std::to_string(cpu) +
           "]:/\n  .rt_nr_running                 : " + std::to_string(running) + "\n" +
           "  .rt_throttled                  : " + (throttled ? "1" : "0") + "\n" +
           "  .rt_time                       : " + std::to_string(rt_time) + "\n" +
           "  .rt_runtime                    : 950.000000\n\n";
  };
  return "cpu#0\n  .nr_running                    : 2\n\ncfs_rq[0]:/\n"
         "  .throttled                     : 0\n  .throttle_count                : 0\n\n" +
         rt_rq(0, throttled0, rt_time0) + "dl_rq[0]:\n  .dl_nr_running                 : 0\n\n" +
         rt_rq(1, false, rt_time1) + "dl_rq[1]:\n  .dl_nr_running                 : 0\n";
}

constexpr std::int64_t kMs = 1'000'000;

TEST(RtThrottle, ParsesEveryRtRqAndOnlyItsFields) {
  const auto rqs = parse_rt_rqs(debug_text(true, 952.5, 12.25));
  ASSERT_EQ(rqs.size(), 2u);
  EXPECT_EQ(rqs[0].cpu, 0);
  EXPECT_EQ(rqs[0].group, "/");
  EXPECT_TRUE(rqs[0].throttled);
  EXPECT_DOUBLE_EQ(rqs[0].rt_time_ms, 952.5);
  EXPECT_DOUBLE_EQ(rqs[0].rt_runtime_ms, 950.0);
  EXPECT_EQ(rqs[1].cpu, 1);
  EXPECT_FALSE(rqs[1].throttled) << "the cfs_rq's .throttled is not the rt_rq's";
  EXPECT_DOUBLE_EQ(rqs[1].rt_time_ms, 12.25);
  EXPECT_EQ(rqs[1].nr_running, 1);
  EXPECT_EQ(parse_rt_rqs("rt_rq[0]:/\n  .rt_throttled : 0\n  .rt_time : 1\n  .rt_runtime : 950\n")
                .at(0)
                .nr_running,
            -1)
      << "a kernel that does not say";
}

TEST(RtThrottle, MalformedTextYieldsNoStateRatherThanGarbage) {
  EXPECT_TRUE(parse_rt_rqs("").empty());
  EXPECT_TRUE(parse_rt_rqs("rt_rq[x]:/\n  .rt_throttled : 1\n").empty());
  EXPECT_TRUE(parse_rt_rqs("rt_rq[0]:/\n  .rt_throttled : 1\n").empty()) << "fields missing";
  EXPECT_TRUE(parse_rt_rqs("rt_rq[0]:/\n  .rt_throttled : yes\n  .rt_time : 1\n"
                           "  .rt_runtime : 950\n")
                  .empty());
}

// A watch on a file that does not exist is inactive and says why.
TEST(RtThrottle, WithoutTheDebugFileTheWatchSaysItCannotSee) {
  RtThrottleWatch w({0}, "/nonexistent/sched_debug");
  EXPECT_FALSE(w.active());
  EXPECT_NE(w.source().find("unavailable"), std::string::npos);
}

class RtThrottleObserve : public ::testing::Test {
 protected:
  // Samples fed by hand (observe() does not need the file; this one has no rt_rq state).
  RtThrottleObserve() : w_({0, 1}, "/proc/self/status") {}
  RtThrottleWatch w_;
};

TEST_F(RtThrottleObserve, OneEpisodeIsCountedOnceHoweverManySamplesSeeIt) {
  w_.observe(debug_text(false, 400), 0);
  w_.observe(debug_text(true, 950.1), 20 * kMs);
  w_.observe(debug_text(true, 950.1), 40 * kMs);
  w_.observe(debug_text(false, 3), 60 * kMs);
  EXPECT_EQ(w_.events(), 1);
  EXPECT_EQ(w_.events_per_cpu().at(0), 1);
  EXPECT_EQ(w_.describe(), "CPU 0: 1 episode");
  w_.observe(debug_text(true, 951), 1060 * kMs);  // the next period's
  EXPECT_EQ(w_.events(), 2);
}

TEST_F(RtThrottleObserve, AnEpisodeBetweenTwoSamplesIsInferredFromTheBudget) {
  // 940 ms used, 20 ms later a new period: the budget (950) could have been reached.
  w_.observe(debug_text(false, 940), 0);
  w_.observe(debug_text(false, 2), 20 * kMs);
  EXPECT_EQ(w_.events(), 1);
}

TEST_F(RtThrottleObserve, AGapInSamplingIsNotTakenForAnEpisode) {
  // The sampler was held off for a second (it shares a CPU with a throttled hog): CPU 1's RT
  // time went from 16 ms to 0.2 ms across a period end, far from the budget.
  w_.observe(debug_text(false, 0, 16), 0);
  w_.observe(debug_text(false, 0, 0.2), 1000 * kMs);
  EXPECT_EQ(w_.events(), 0);
}

TEST_F(RtThrottleObserve, AModerateRtLoadIsNotThrottling) {
  // 500 ms of RT time a period: the period ends far from the budget.
  for (int i = 0; i < 200; ++i) {
    w_.observe(debug_text(false, (i % 50) * 10.0, 5), static_cast<std::int64_t>(i) * 20 * kMs);
  }
  EXPECT_EQ(w_.events(), 0);
  EXPECT_EQ(w_.describe(), "");
}

// Far from the budget, with no RT task runnable, the watch waits until the budget could be near
// (up to a second); near it, throttled, or with a task whose time may lag, at its base interval
// (20 ms for the default 950 of 1000 ms). RT time cannot grow faster than the clock.
TEST(RtThrottle, TheWatchSamplesOftenOnlyNearTheBudget) {
  char path[] = "/tmp/rtgate-sched-debug.XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  const auto interval_after = [&](const std::string& text) {
    std::ofstream(path) << text;
    RtThrottleWatch w({0, 1}, path);
    EXPECT_TRUE(w.active());
    w.poll();
    return w.interval_ns();
  };
  // The base interval follows this machine's sched_rt_runtime_us (20 ms at the default).
  const std::int64_t base = interval_after(debug_text(true, 950.5, 20));  // throttled now
  EXPECT_GE(base, 5 * kMs);
  EXPECT_LE(base, 20 * kMs);
  EXPECT_EQ(interval_after(debug_text(false, 100, 20, 0)), 850 * kMs - 2 * base);
  EXPECT_EQ(interval_after(debug_text(false, 20, 750, 0)), 200 * kMs - 2 * base) << "200 ms left";
  EXPECT_EQ(interval_after(debug_text(false, 945, 20, 0)), base) << "5 ms of headroom";
  EXPECT_EQ(interval_after(debug_text(false, 100, 20, 1)), base)
      << "an RT task runnable: its time since the last tick is not in the figure";
  std::remove(path);
}

TEST(RtThrottle, OnlyTheWatchedCpusCount) {
  RtThrottleWatch w({1}, "/proc/self/status");
  w.observe(debug_text(true, 951), 0);
  EXPECT_EQ(w.events(), 0);
}

}  // namespace
}  // namespace rtgate::rt
