// The watchdog on its own: it fires for a stalled counter even while a lower-priority thread holds
// the lock that registering a counter takes (the case it exists for: a runaway FIFO spinner that
// preempted such a holder), its reason is readable once it fired, and it demotes a wedged FIFO
// spinner so that the machine stays responsive.
#include "framework/watchdog.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "framework/measure/clock.h"
#include "framework/registry.h"
#include "framework/rt/rt_checks.h"
#include "framework/rt/rt_thread.h"
#include "framework/runner.h"

namespace rtgate {
namespace {

TEST(Watchdog, FiresWhileTheRegistrationLockIsHeld) {
  std::atomic<bool> stop{false};
  RunContext ctx(10, {0}, stop);
  ctx.track("stalled");
  auto held = ctx.hold_registration_for_test();  // as a preempted SCHED_OTHER registrant would
  Watchdog dog(ctx, 0.3, 0.5);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!dog.fired() && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(dog.fired()) << "the watchdog waited on the registration lock";
  EXPECT_TRUE(stop.load());
  EXPECT_NE(dog.reason().find("'stalled'"), std::string::npos) << dog.reason();
}

TEST(Watchdog, AProgressingCounterDoesNotFire) {
  std::atomic<bool> stop{false};
  RunContext ctx(10, {0}, stop);
  LiveStats& live = ctx.track("ticking");
  Watchdog dog(ctx, 0.3, 0.5);
  for (int i = 0; i < 40; ++i) {
    live.publish(static_cast<std::uint64_t>(i + 1), 1000);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(dog.fired());
  EXPECT_EQ(dog.reason(), "");
}

}  // namespace
}  // namespace rtgate

namespace rtgate {
namespace {

// A deliberately broken suite: a SCHED_FIFO 90 thread on CPU 0 that spins and ignores the stop
// request (bounded only by the test's release flag and a 30 s safety limit).
std::atomic<bool> wedged_release{false};
std::atomic<pid_t> wedged_tid{0};

SuiteResult wedged(const Params&, RunContext& ctx) {
  LiveStats& live = ctx.track("wedged");
  rt::RtThread spinner({.name = "rtgate-wedged", .priority = 90, .cpus = {0}}, [&live] {
    live.tid.store(gettid());
    wedged_tid.store(gettid());
    const std::int64_t limit = monotonic_ns() + 30'000'000'000;
    while (!wedged_release.load(std::memory_order_relaxed) && monotonic_ns() < limit) {
    }
  });
  return {};  // joins: never before the release
}

RTGATE_SUITE({.name = "test.wedged",
              .tags = {"test"},
              .summary = "",
              .params = {},
              .needs = Needs::kSchedFifo,
              .run = &wedged});

int policy_of(pid_t tid) { return tid > 0 ? sched_getscheduler(tid) : -1; }

// The watchdog demotes a wedged FIFO spinner within its stall time plus grace, and the rest of
// the machine gets the CPU back: a SCHED_OTHER thread on the spinner's CPU progresses several
// times faster after the demotion than under the spinner. Under it, RT throttling or the fair
// server leaves SCHED_OTHER 50 ms a second, and a 1 s window can hold two such budgets (10%);
// after it, the demoted spinner still spins and takes its fair half. So the bound is 2.5x, half
// the worst ratio; a 300 ms window could hold a whole 50 ms budget against 150 ms, a ratio of 3.
TEST(Watchdog, DemotesAWedgedFifoSpinnerAndTheCpuComesBack) {
  if (!rt::probe_sched_fifo().empty() || sysconf(_SC_NPROCESSORS_ONLN) < 2) {
    GTEST_SKIP() << "needs SCHED_FIFO and 2 CPUs";
  }
  std::atomic<std::uint64_t> progress{0};
  std::atomic<bool> quit{false};
  rt::RtThread other({.name = "sched-other", .policy = rt::Policy::kOther, .cpus = {0}}, [&] {
    while (!quit.load(std::memory_order_relaxed)) progress.fetch_add(1, std::memory_order_relaxed);
  });
  // The watchdog's stall clock may start before the spinner does (its thread is created, its
  // stack prefaulted): 2.5 s leaves the 1 s window under the spinner over a second of margin.
  RunOptions opt{.duration_s = 0.5, .watchdog_s = 2.5};
  std::atomic<bool> interrupt{false};
  std::uint64_t during = 0, after = 0;
  int policy_during = -1;
  constexpr auto kWindow = std::chrono::milliseconds(1000);
  std::thread observer([&] {
    while (wedged_tid.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const std::uint64_t p0 = progress.load();
    std::this_thread::sleep_for(kWindow);  // under the spinner
    during = progress.load() - p0;
    policy_during = policy_of(wedged_tid.load());
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (policy_of(wedged_tid.load()) == SCHED_FIFO && std::chrono::steady_clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const std::uint64_t p1 = progress.load();
    std::this_thread::sleep_for(kWindow);  // after the demotion
    after = progress.load() - p1;
  });
  const SelectedSuite sel{Registry::instance().find("test.wedged"),
                          Params(Registry::instance().find("test.wedged")->params)};
  std::atomic<bool> returned{false};
  std::thread release([&] {  // the safety net should run_suites never return
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (!returned.load() && std::chrono::steady_clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    wedged_release.store(true);
  });
  const RunOutcome out = run_suites({sel}, opt, interrupt);
  returned.store(true);
  observer.join();
  const int policy = policy_of(wedged_tid.load());
  wedged_release.store(true);
  release.join();
  quit.store(true);
  ASSERT_EQ(out.report.suites.size(), 1u);
  EXPECT_EQ(out.report.suites[0].status, SuiteStatus::kError);
  EXPECT_NE(out.report.suites[0].reason.find("watchdog"), std::string::npos)
      << out.report.suites[0].reason;
  EXPECT_TRUE(out.abandoned) << "it ignored the stop request";
  EXPECT_EQ(policy, SCHED_OTHER) << "demoted";
  EXPECT_EQ(policy_during, SCHED_FIFO) << "the first window was not under the spinner";
  EXPECT_GT(static_cast<double>(after), 2.5 * static_cast<double>(during))
      << "during " << during << ", after " << after;
  std::printf(
      "SCHED_OTHER progress on the spinner's CPU: %llu under it, %llu after the demotion "
      "(1 s each)\n",
      static_cast<unsigned long long>(during), static_cast<unsigned long long>(after));
}

}  // namespace
}  // namespace rtgate
