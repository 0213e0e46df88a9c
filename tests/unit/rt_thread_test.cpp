#include "framework/rt/rt_thread.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>

#include "framework/rt/rt_checks.h"

namespace rtgate::rt {
namespace {

#define SKIP_WITHOUT_FIFO()                                       \
  if (const std::string why = probe_sched_fifo(); !why.empty()) { \
    GTEST_SKIP() << why;                                          \
  }

// What the thread saw about itself on its very first instruction of user code.
struct Birth {
  int policy = -1;
  int priority = -1;
  int cpu_count = -1;
  bool on_cpu = false;
  bool sigint_blocked = false;
};

Birth observe(const ThreadSpec& spec) {
  Birth b;
  RtThread t(spec, [&b, cpu = spec.cpus.empty() ? -1 : spec.cpus[0]] {
    sched_param sp{};
    int policy = 0;
    pthread_getschedparam(pthread_self(), &policy, &sp);
    b.policy = policy;
    b.priority = sp.sched_priority;
    cpu_set_t set;
    sched_getaffinity(0, sizeof set, &set);
    b.cpu_count = CPU_COUNT(&set);
    b.on_cpu = cpu < 0 || sched_getcpu() == cpu;
    sigset_t mask;
    pthread_sigmask(SIG_SETMASK, nullptr, &mask);
    b.sigint_blocked = sigismember(&mask, SIGINT) == 1;
  });
  t.join();
  return b;
}

TEST(RtThread, IsBornWithPolicyPriorityAndAffinity) {
  SKIP_WITHOUT_FIFO();
  const Birth b = observe({.name = "t-fifo", .policy = Policy::kFifo, .priority = 42, .cpus = {0}});
  EXPECT_EQ(b.policy, SCHED_FIFO);
  EXPECT_EQ(b.priority, 42);
  EXPECT_EQ(b.cpu_count, 1);
  EXPECT_TRUE(b.on_cpu);
  EXPECT_TRUE(b.sigint_blocked);
}

TEST(RtThread, RoundRobinAndOther) {
  SKIP_WITHOUT_FIFO();
  Birth b = observe({.name = "t-rr", .policy = Policy::kRr, .priority = 7});
  EXPECT_EQ(b.policy, SCHED_RR);
  EXPECT_EQ(b.priority, 7);
  b = observe({.name = "t-other", .policy = Policy::kOther, .priority = 50});
  EXPECT_EQ(b.policy, SCHED_OTHER);
  EXPECT_EQ(b.priority, 0);
}

// A SCHED_OTHER measuring thread sleeps without the default 50 us timer slack.
TEST(RtThread, OtherThreadsHaveOneNanosecondTimerSlack) {
  long slack = -1;
  {
    RtThread t({.name = "slack", .policy = Policy::kOther},
               [&] { slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0); });
  }
  EXPECT_EQ(slack, 1);
}

TEST(RtThread, ReportsItsTid) {
  std::atomic<pid_t> inside{0};
  RtThread t({.name = "t-tid", .policy = Policy::kOther}, [&] { inside = gettid(); });
  const pid_t tid = t.tid();
  t.join();
  EXPECT_EQ(tid, inside.load());
  EXPECT_NE(tid, gettid());
}

TEST(RtThread, BadSettingsAreOneLineErrorsNotCrashes) {
  try {
    RtThread t({.name = "t-bad", .policy = Policy::kFifo, .priority = 1, .cpus = {99999}}, [] {});
    FAIL() << "a CPU beyond CPU_SETSIZE was accepted";
  } catch (const RtError& e) {
    EXPECT_NE(std::string(e.what()).find("bad CPU 99999"), std::string::npos) << e.what();
  }
  try {
    RtThread t({.name = "t-prio", .policy = Policy::kFifo, .priority = 200}, [] {});
    FAIL() << "priority 200 was accepted";
  } catch (const RtError& e) {
    EXPECT_NE(std::string(e.what()).find("t-prio"), std::string::npos) << e.what();
  }
}

TEST(RtThread, WithoutPrivilegeFifoFailsWithEperm) {
  if (probe_sched_fifo().empty()) GTEST_SKIP() << "SCHED_FIFO is allowed here (run as nobody)";
  try {
    RtThread t({.name = "t-eperm", .policy = Policy::kFifo, .priority = 10}, [] {});
    FAIL();
  } catch (const RtError& e) {
    EXPECT_EQ(e.error_number(), EPERM);
    EXPECT_NE(std::string(e.what()).find("CAP_SYS_NICE"), std::string::npos);
  }
}

}  // namespace
}  // namespace rtgate::rt
