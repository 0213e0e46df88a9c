// The PI round's judgement keeps its teeth: time the host took is set aside, but a lock holder
// kept off its CPU by another task, or overtaken by mid, still fails the round. Real SCHED_FIFO
// threads on one CPU (suites/pi_inversion/inversion_scenario.h).
#include <gtest/gtest.h>

#include <memory>

#include "framework/env/cpu_steal.h"
#include "framework/measure/busy.h"
#include "framework/measure/clock.h"
#include "framework/rt/cpu_list.h"
#include "framework/rt/rt_checks.h"
#include "framework/rt/rt_thread.h"
#include "locks/futex_mutex.h"
#include "locks/pi_mutex.h"
#include "suites/pi_inversion/inversion_round.h"
#include "suites/pi_inversion/inversion_scenario.h"

namespace rtgate::locks::test {
namespace {

constexpr std::int64_t kCriticalNs = 5'000'000;
constexpr std::int64_t kSpinNs = 50'000'000;
// The stall: 40 ms, far over the 15 ms bound even after any steal the host could place inside
// low's section (that part is subtracted exactly, so only the kernel's share remains).
constexpr std::int64_t kStallNs = 40'000'000;

#define SKIP_WITHOUT_FIFO()                                           \
  if (const std::string why = rt::probe_sched_fifo(); !why.empty()) { \
    GTEST_SKIP() << why;                                              \
  }

template <class L>
rt::InversionSetup setup(L& lock) {
  rt::InversionSetup s;
  s.critical_ns = kCriticalNs;
  s.spin_ns = kSpinNs;
  s.low_acquire = [&] { lock.lock(); };
  s.low_release = [&] { lock.unlock(); };
  s.high_acquire = [&] { lock.lock(); };
  s.high_release = [&] { lock.unlock(); };
  return s;
}

// Runs the scenario and judges it with the scenario CPU's steal over the round.
rt::RoundJudgement judged(const rt::InversionSetup& s, rt::InversionResult* out) {
  const CpuSteal steal;
  const int cpu = rt::allowed_cpus().back();
  const auto before = steal.read().ns, after = (*out = rt::run_inversion(s), steal.read().ns);
  const std::int64_t stolen =
      before.count(cpu) && after.count(cpu) ? after.at(cpu) - before.at(cpu) : -1;
  return rt::judge_pi_round(*out, 3 * kCriticalNs, stolen);
}

TEST(PiRound, AFifo99StallInsideLowsSectionFailsTheRound) {
  SKIP_WITHOUT_FIFO();
  PiMutex lock;
  rt::InversionSetup s = setup(lock);
  const int cpu = rt::allowed_cpus().back();
  // High starts a FIFO-99 thread on the scenario CPU just before it blocks; 1 ms later, inside
  // low's 5 ms section, it takes the CPU from low (boosted to high's priority) for 40 ms: an RT
  // task the lock holder cannot outrank, not the host.
  std::unique_ptr<rt::RtThread> stall;
  s.high_acquire = [&] {
    stall = std::make_unique<rt::RtThread>(
        rt::ThreadSpec{.name = "pir-stall", .priority = 99, .cpus = {cpu}}, [] {
          sleep_until_ns(monotonic_ns() + 1'000'000);
          spin_for_ns(kStallNs);
        });
    lock.lock();
  };
  rt::InversionResult r;
  const rt::RoundJudgement j = judged(s, &r);
  if (stall) stall->join();
  if (!r.error.empty()) GTEST_SKIP() << r.error;
  ASSERT_TRUE(r.contended);
  EXPECT_TRUE(rt::failing(j.call)) << j.why;
  EXPECT_EQ(j.call, rt::RoundCall::kPreempted) << j.why;
  EXPECT_GE(r.low_window.preempted_ns, kStallNs / 2) << j.why;
  std::printf("  stall in the section: %s\n", j.why.c_str());
}

TEST(PiRound, AStallAfterLowsSectionStillFailsTheRound) {
  SKIP_WITHOUT_FIFO();
  PiMutex lock;
  rt::InversionSetup s = setup(lock);
  const int cpu = rt::allowed_cpus().back();
  // The same stall as low releases: outside low's measured section, so nothing places it, and
  // without host steal to cover it the round is the kernel's.
  s.low_release = [&] {
    rt::RtThread stall({.name = "pir-stall", .priority = 99, .cpus = {cpu}},
                       [] { spin_for_ns(kStallNs); });
    stall.join();
    lock.unlock();
  };
  rt::InversionResult r;
  const rt::RoundJudgement j = judged(s, &r);
  if (!r.error.empty()) GTEST_SKIP() << r.error;
  ASSERT_TRUE(r.contended);
  // The host could only excuse it by stealing 25 ms of this CPU within the round.
  EXPECT_TRUE(rt::failing(j.call) || j.call == rt::RoundCall::kHost) << j.why;
  if (j.call != rt::RoundCall::kHost) {
    EXPECT_EQ(j.call, rt::RoundCall::kOverBound) << j.why;
  }
  std::printf("  stall at the release: %s\n", j.why.c_str());
}

TEST(PiRound, MidOvertakingTheHolderIsInversionWhateverTheHostDid) {
  SKIP_WITHOUT_FIFO();
  FutexMutex lock;  // no PI
  rt::InversionResult r;
  const rt::RoundJudgement j = judged(setup(lock), &r);
  if (!r.error.empty()) GTEST_SKIP() << r.error;
  ASSERT_TRUE(r.contended);
  EXPECT_TRUE(r.mid_ran_while_high_waited);
  EXPECT_EQ(j.call, rt::RoundCall::kInversion) << j.why;
}

TEST(PiRound, APiLockIsNeverFailedForTheHostsTime) {
  SKIP_WITHOUT_FIFO();
  PiMutex lock;
  for (int i = 0; i < 5; ++i) {
    rt::InversionResult r;
    const rt::RoundJudgement j = judged(setup(lock), &r);
    if (!r.error.empty()) GTEST_SKIP() << r.error;
    EXPECT_FALSE(r.mid_ran_while_high_waited);
    EXPECT_FALSE(rt::failing(j.call)) << j.why;
    std::printf("  PI: high waited %.2f ms, low's section %.2f ms (host %.2f ms): %s\n",
                static_cast<double>(r.high_wait_ns) / 1e6,
                static_cast<double>(r.low_window.wall_ns) / 1e6,
                static_cast<double>(r.low_window.unaccounted_ns) / 1e6,
                j.why.empty() ? "bounded" : j.why.c_str());
  }
}

}  // namespace
}  // namespace rtgate::locks::test
