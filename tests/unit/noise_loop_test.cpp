// NoiseLoop (oslat's measurement) on a scripted clock: which deltas are noise, what counts as
// measured time, what the trace hook is told, and when the loop ends. The clock advances a fixed
// step per read, with jumps at chosen reads (the gaps), so every figure is exact.
#include "suites/oslat/noise_loop.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "framework/measure/spin_clock.h"

namespace rtgate {
namespace {

// Read i returns the time of read i-1 plus `step`, plus jumps[i] when there is one.
class ScriptedClock {
 public:
  ScriptedClock(std::uint64_t step, std::map<std::uint64_t, std::uint64_t> jumps)
      : step_(step), jumps_(std::move(jumps)) {}
  std::uint64_t read() const noexcept {
    const auto it = jumps_.find(reads_);
    now_ += step_ + (it == jumps_.end() ? 0 : it->second);
    ++reads_;
    return now_;
  }
  std::uint64_t reads() const { return reads_; }
  std::uint64_t now() const { return now_; }

 private:
  std::uint64_t step_;
  std::map<std::uint64_t, std::uint64_t> jumps_;
  mutable std::uint64_t now_ = 1'000'000, reads_ = 0;
};

class RecordingHook : public SampleHook {
 public:
  explicit RecordingHook(bool go_on = true) : go_on_(go_on) {}
  bool on_sample(const LiveStats& who, std::int64_t deadline_ns,
                 std::int64_t latency_ns) noexcept override {
    label = who.label;
    deadlines.push_back(deadline_ns);
    latencies.push_back(latency_ns);
    return go_on_;
  }
  std::string label;
  std::vector<std::int64_t> deadlines, latencies;

 private:
  bool go_on_;
};

TEST(NoiseLoop, CountsOnlyDeltasOverTheThresholdAsNoise) {
  // 10 ns per read; at reads 100 and 200 the thread "lost" 5000 and 990 ns. With a 1000 ns
  // threshold the first delta (5010) is noise and the second (1000) is not: noise is strictly
  // longer than the threshold.
  const ScriptedClock clock(10, {{100, 5000}, {200, 990}});
  NoiseRecorder rec(4);
  LiveStats live("cpu3");
  std::atomic<bool> stop{false};
  NoiseLoop loop(clock, 1.0, 1000, rec, live, nullptr, 100'000);
  EXPECT_TRUE(loop.spin(50'000, stop));
  rec.close_period();
  EXPECT_EQ(rec.gaps, 1u);
  EXPECT_EQ(rec.noise.count(), 1u);
  EXPECT_EQ(rec.noise.max(), 5010u);
  EXPECT_EQ(rec.noise_ns, 5010);
  EXPECT_EQ(rec.worst_ns, 5010);
  ASSERT_EQ(rec.period_max.size(), 1u);
  EXPECT_EQ(rec.period_max[0], 5010.0);
  // Measured time is everything from the first read to the last except the one read the loop
  // spent on its own bookkeeping after the gap.
  EXPECT_EQ(rec.runtime_ticks, clock.now() - 1'000'010 - 10);
  // The clock lands exactly on the budget's end (every step is a multiple of 10).
  EXPECT_EQ(rec.runtime_ticks, 50'000u - 10);
  EXPECT_FALSE(loop.broke());
}

TEST(NoiseLoop, ConvertsTicksAndTellsTheHookWhereTheGapBegan) {
  // 2 ticks per ns (a 2 GHz TSC): a 4000-tick jump is a 2005 ns gap (4010 ticks).
  const ScriptedClock clock(10, {{50, 4000}});
  NoiseRecorder rec(2);
  LiveStats live("cpu1");
  RecordingHook hook;
  std::atomic<bool> stop{false};
  NoiseLoop loop(clock, 0.5, 1000, rec, live, &hook, 10'000);
  const std::int64_t before = monotonic_ns();
  EXPECT_TRUE(loop.spin(20'000, stop));
  const std::int64_t after = monotonic_ns();
  ASSERT_EQ(hook.latencies.size(), 1u);
  EXPECT_EQ(hook.latencies[0], 2005);
  EXPECT_EQ(hook.label, "cpu1");
  // The gap's start on CLOCK_MONOTONIC: the monotonic reading taken after the gap, less the
  // scripted time since the gap began; so within this test's own monotonic window, shifted back.
  EXPECT_LE(hook.deadlines[0], after - 2005);
  EXPECT_GE(hook.deadlines[0], before - 2005 - 10);
  EXPECT_EQ(rec.noise.max(), 2005u);
}

TEST(NoiseLoop, TheHookEndsTheLoopAtTheFirstGapItRefuses) {
  const ScriptedClock clock(10, {{30, 3000}, {60, 3000}});
  NoiseRecorder rec(2);
  LiveStats live("cpu0");
  RecordingHook hook(false);
  std::atomic<bool> stop{false};
  NoiseLoop loop(clock, 1.0, 1000, rec, live, &hook, 100'000);
  EXPECT_FALSE(loop.spin(1'000'000, stop));
  EXPECT_TRUE(loop.broke());
  EXPECT_EQ(hook.latencies.size(), 1u);
  EXPECT_EQ(rec.gaps, 1u);
  EXPECT_LT(clock.reads(), 40u) << "it stopped at the gap, not at the budget";
}

TEST(NoiseLoop, AStopRequestEndsItAtTheNextCheckpointAndProgressIsPublished) {
  const ScriptedClock clock(10, {});
  NoiseRecorder rec(2);
  LiveStats live("cpu0");
  std::atomic<bool> stop{false};
  NoiseLoop loop(clock, 1.0, 1000, rec, live, nullptr, 1000);
  EXPECT_TRUE(loop.spin(10'000, stop));
  // A checkpoint every 1000 ns over 10000 ns: progress published at each but the last (where
  // the budget ends the loop), without a single gap.
  EXPECT_EQ(rec.checks, 9u);
  EXPECT_EQ(live.samples.load(), 9u);
  EXPECT_EQ(rec.gaps, 0u);
  stop = true;
  const std::uint64_t reads = clock.reads();
  EXPECT_FALSE(loop.spin(1'000'000, stop));
  EXPECT_LE(clock.reads() - reads, 102u) << "one checkpoint's worth of reads";
  EXPECT_FALSE(loop.broke());
}

TEST(NoiseLoop, KeepsOnePeriodMaximumPerPeriodAndZeroForAQuietOne) {
  const ScriptedClock clock(10, {{20, 7000}});
  NoiseRecorder rec(3);
  LiveStats live("cpu0");
  std::atomic<bool> stop{false};
  NoiseLoop loop(clock, 1.0, 1000, rec, live, nullptr, 1000);
  loop.spin(5000, stop);
  rec.close_period();
  loop.spin(5000, stop);
  rec.close_period();
  EXPECT_EQ(rec.period_max, (std::vector<double>{7010.0, 0.0}));
  // Capacity bounds it: never an allocation on the measuring thread.
  rec.close_period();
  rec.close_period();
  EXPECT_EQ(rec.period_max.size(), 3u);
}

TEST(SpinClock, TheTscNeedsAConstantAndNonstopRate) {
  EXPECT_EQ(tsc_unusable_with_flags("fpu tsc constant_tsc rep_good nonstop_tsc"), "");
  EXPECT_NE(tsc_unusable_with_flags("fpu tsc nonstop_tsc").find("constant_tsc"), std::string::npos);
  EXPECT_NE(tsc_unusable_with_flags("fpu tsc constant_tsc").find("nonstop_tsc"), std::string::npos);
  // Whole words only.
  EXPECT_NE(tsc_unusable_with_flags("constant_tsc_x nonstop_tsc"), "");
}

TEST(SpinClock, CalibrationAgreesWithTheKernelClockWhereThereIsATsc) {
  if (!tsc_unusable().empty()) GTEST_SKIP() << tsc_unusable();
  const double ns_per_tick = calibrate_tsc_ns_per_tick(20'000'000);
  // Every constant TSC shipped runs between 100 MHz and 10 GHz.
  ASSERT_GT(ns_per_tick, 0.1);
  ASSERT_LT(ns_per_tick, 10.0);
  // 50 ms of TSC ticks converted back: within 0.1% of CLOCK_MONOTONIC_RAW's 50 ms. The
  // calibration's error is its two brackets, well under a microsecond over 20 ms; each reading
  // here is bracketed by two raw reads as well, retried while a bracket is wider than 10 us (a
  // preemption between the two clocks, which a loaded VM's host can make milliseconds long).
#if RTGATE_HAVE_TSC
  const auto pair = [] {
    const TscClock tsc;
    const RawClock raw;
    for (int i = 0;; ++i) {
      const std::uint64_t r0 = raw.read(), t = tsc.read(), r1 = raw.read();
      if (r1 - r0 < 10'000 || i == 1000) return std::pair{t, (r0 + r1) / 2};
    }
  };
  const auto [t0, r0] = pair();
  sleep_until_ns(monotonic_ns() + 50'000'000);
  const auto [t1, r1] = pair();
  const double measured = static_cast<double>(t1 - t0) * ns_per_tick;
  EXPECT_NEAR(measured, static_cast<double>(r1 - r0), 0.001 * static_cast<double>(r1 - r0));
#endif
}

}  // namespace
}  // namespace rtgate
