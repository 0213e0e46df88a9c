// The runner with test suites registered only in this binary: repetitions merge, SIGINT-style
// interrupts keep partial results, exceptions become "error", and the watchdog ends a stuck suite.
#include "framework/runner.h"

#include <gtest/gtest.h>

#include <thread>

#include "framework/measure/clock.h"
#include "framework/measure/run_context.h"
#include "framework/rt/rt_checks.h"
#include "framework/rt/rt_thread.h"

namespace rtgate {
namespace {

// Publishes progress every ms until the duration ends or stop is requested.
SuiteResult ticking(const Params& p, RunContext& ctx) {
  LiveStats& live = ctx.track("tick");
  const std::int64_t end = monotonic_ns() + ctx.duration_ns();
  LatencyHistogram h;
  std::uint64_t n = 0;
  while (monotonic_ns() < end && !ctx.stop_requested()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    h.record(1000 + ctx.run_index());
    live.publish(++n, 1000);
  }
  live.done = true;
  SuiteResult r;
  Case c{.name = "only", .labels = {}, .metrics = {}};
  c.metrics.push_back(Metric::latency("lat", h, {static_cast<double>(ctx.run_index())}));
  c.metrics.push_back(Metric::throughput("ops", "ops/s", 100.0 + ctx.run_index()));
  r.cases.push_back(c);
  r.status = p.get_bool("fail") ? SuiteStatus::kFailed : SuiteStatus::kPassed;
  return r;
}

SuiteResult throwing(const Params&, RunContext&) { throw std::runtime_error("boom"); }

// Registers a counter and then never advances it: the watchdog must notice.
SuiteResult stuck(const Params&, RunContext& ctx) {
  ctx.track("stuck");
  while (!ctx.stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return {};
}

// A measuring thread whose body throws (PiMutex::lock throwing, bad_alloc): the suite must end as
// "error" with the reason, not reach std::terminate.
SuiteResult thread_throws(const Params&, RunContext& ctx) {
  LiveStats& live = ctx.track("thrower");
  {
    rt::RtThread t({.name = "rtgate-thrower", .policy = rt::Policy::kOther},
                   [] { throw std::runtime_error("lock failed: EDEADLK"); });
  }
  live.done.store(true);
  while (!ctx.stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return {};
}

RTGATE_SUITE({.name = "test.thread_throws",
              .tags = {"test"},
              .summary = "",
              .params = {},
              .run = &thread_throws});
RTGATE_SUITE({.name = "test.ticking",
              .tags = {"test"},
              .summary = "",
              .params = {ParamSpec::boolean("fail", false, "")},
              .run = &ticking});
RTGATE_SUITE(
    {.name = "test.throwing", .tags = {"test"}, .summary = "", .params = {}, .run = &throwing});
RTGATE_SUITE({.name = "test.stuck", .tags = {"test"}, .summary = "", .params = {}, .run = &stuck});
RTGATE_SUITE({.name = "test.needs_rt",
              .tags = {"test"},
              .summary = "",
              .params = {},
              .needs = Needs::kSchedFifo,
              .run = &ticking});

SelectedSuite selected(const char* name) {
  const SuiteDescriptor* d = Registry::instance().find(name);
  return {d, Params(d->params)};
}

TEST(Runner, AnExceptionInAThreadEndsTheSuiteAsErrorWithTheReason) {
  std::atomic<bool> interrupt{false};
  RunOptions opt{.duration_s = 5, .runs = 2};
  const RunOutcome out = run_suites({selected("test.thread_throws")}, opt, interrupt);
  ASSERT_EQ(out.report.suites.size(), 1u);
  const SuiteResult& s = out.report.suites[0];
  EXPECT_EQ(s.status, SuiteStatus::kError);
  EXPECT_EQ(s.reason, "exception in thread 'rtgate-thrower': lock failed: EDEADLK");
  EXPECT_EQ(s.runs, 1) << "no further runs after an error";
  EXPECT_LT(s.duration_s, 4) << "the failure stops the run at once";
}

TEST(Runner, RepetitionsMergeIntoOneResult) {
  std::atomic<bool> interrupt{false};
  RunOptions opt{.duration_s = 0.2, .runs = 3};
  const RunOutcome out = run_suites({selected("test.ticking")}, opt, interrupt);
  ASSERT_EQ(out.report.suites.size(), 1u);
  const SuiteResult& s = out.report.suites[0];
  EXPECT_EQ(s.status, SuiteStatus::kPassed);
  EXPECT_EQ(s.runs, 3);
  ASSERT_EQ(s.cases.size(), 1u);
  const Metric* lat = s.cases[0].find("lat");
  ASSERT_NE(lat, nullptr);
  EXPECT_EQ(lat->samples, (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(lat->histogram->min(), 1000u);
  EXPECT_EQ(lat->histogram->max(), 1002u);
  EXPECT_EQ(s.cases[0].find("ops")->samples, (std::vector<double>{100, 101, 102}));
  EXPECT_TRUE(out.report.complete);
  EXPECT_FALSE(out.report.environment.kernel_release.empty());
  // 3 runs of 0.2 s: at least 0.6 s, and not absurdly more (start-up of each run is ms).
  EXPECT_GE(s.duration_s, 0.6);
  EXPECT_LT(s.duration_s, 5.0);
}

TEST(Runner, InterruptKeepsWhatWasMeasured) {
  std::atomic<bool> interrupt{false};
  std::thread sigint([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    interrupt = true;
  });
  const std::int64_t t0 = monotonic_ns();
  const RunOutcome out = run_suites({selected("test.ticking"), selected("test.ticking")},
                                    RunOptions{.duration_s = 30, .runs = 1}, interrupt);
  sigint.join();
  // The runner polls every 50 ms and the suite sleeps 1 ms per step: far below 2 s.
  EXPECT_LT(monotonic_ns() - t0, 2'000'000'000);
  EXPECT_TRUE(out.interrupted);
  EXPECT_FALSE(out.report.complete);
  ASSERT_EQ(out.report.suites.size(), 1u) << "the second suite must not start";
  EXPECT_GT(out.report.suites[0].cases.at(0).find("lat")->histogram->count(), 10u);
}

TEST(Runner, ExceptionsBecomeErrorsWithTheMessage) {
  std::atomic<bool> interrupt{false};
  const RunOutcome out =
      run_suites({selected("test.throwing")}, RunOptions{.duration_s = 0.1}, interrupt);
  EXPECT_EQ(out.report.suites.at(0).status, SuiteStatus::kError);
  EXPECT_EQ(out.report.suites.at(0).reason, "boom");
}

TEST(Runner, FailedStatusIsKept) {
  std::atomic<bool> interrupt{false};
  SelectedSuite s = selected("test.ticking");
  s.params.set("fail", true);
  const RunOutcome out = run_suites({s}, RunOptions{.duration_s = 0.1}, interrupt);
  EXPECT_EQ(out.report.suites.at(0).status, SuiteStatus::kFailed);
}

TEST(Runner, WatchdogEndsAStuckSuite) {
  std::atomic<bool> interrupt{false};
  const std::int64_t t0 = monotonic_ns();
  const RunOutcome out = run_suites({selected("test.stuck")},
                                    RunOptions{.duration_s = 60, .watchdog_s = 0.5}, interrupt);
  const SuiteResult& s = out.report.suites.at(0);
  EXPECT_EQ(s.status, SuiteStatus::kError);
  EXPECT_NE(s.reason.find("watchdog: thread 'stuck'"), std::string::npos) << s.reason;
  // Stall limit 0.5 s plus a 100 ms watchdog tick and a 50 ms runner poll; 5 s is generous.
  EXPECT_LT(monotonic_ns() - t0, 5'000'000'000);
  EXPECT_FALSE(out.abandoned);
}

TEST(Runner, SuitesNeedingRtAreSkippedWithAReasonWhenRtIsUnavailable) {
  const std::string why = rt::probe_sched_fifo();
  if (why.empty()) GTEST_SKIP() << "SCHED_FIFO is available here (the non-root run covers this)";
  std::atomic<bool> interrupt{false};
  const RunOutcome out =
      run_suites({selected("test.needs_rt")}, RunOptions{.duration_s = 0.1}, interrupt);
  EXPECT_EQ(out.report.suites.at(0).status, SuiteStatus::kSkipped);
  EXPECT_EQ(out.report.suites.at(0).reason, why);
  EXPECT_TRUE(out.rt_unavailable);
}

}  // namespace
}  // namespace rtgate
