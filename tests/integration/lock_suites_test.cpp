// The lock suites end to end: pi.inversion's verdicts, pi.stress's deadlock detection,
// lock.latency and lock.throughput producing data, and their parameter validation.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "framework/rt/rt_checks.h"
#include "tests/integration/process.h"
#include "tests/integration/result_json.h"

namespace rtgate::test {
namespace {

TEST(LockSuites, PiInversionPassesPiLocksAndShowsInversionForControls) {
  SKIP_WITHOUT_FIFO();
  const auto doc =
      run_json({"run", "pi.inversion", "-p", "rounds=3", "-p",
                "locks=pi_mutex,pi_rw_sem,pthread_mutex_pi,futex_mutex,pthread_rwlock"},
               0);
  const auto& suite = doc["suites"][0];
  EXPECT_EQ(suite["status"], "passed") << suite["reason"];
  int bounded = 0, controls = 0;
  for (const auto& c : suite["cases"]) {
    const std::string verdict = c["labels"]["verdict"];
    const auto max = metric_named(c, "high_wait")["summary"]["max"].get<std::uint64_t>();
    if (c["labels"]["expect"] == "bounded") {
      ++bounded;
      EXPECT_EQ(verdict.rfind("pass", 0), 0u) << c["name"] << ": " << verdict;
      EXPECT_LT(max, 15'000'000u) << c["name"];  // 3 x the 5 ms critical section
    } else {
      ++controls;
      EXPECT_NE(verdict.find("as expected"), std::string::npos) << c["name"] << ": " << verdict;
      EXPECT_GE(max, 50'000'000u) << c["name"];  // medium's whole 50 ms spin
    }
  }
  // pi_mutex, pthread_mutex_pi, pi_rw_sem x 2 modes are PI; futex_mutex, pthread_rwlock x 2 not.
  EXPECT_EQ(bounded, 4);
  EXPECT_EQ(controls, 3);
}

// One CPU (a one-vCPU board): the scenario needs a second for its conductor. The suite says so
// as a skip, never as a lock that showed inversion.
TEST(LockSuites, PiInversionOnOneCpuIsSkippedWithItsReason) {
  cpu_set_t all;
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  int first = 0;
  while (!CPU_ISSET(first, &all)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);  // rtgate inherits it
  const auto doc = run_json({"run", "pi.inversion", "-p", "rounds=1"}, 0);
  ASSERT_EQ(sched_setaffinity(0, sizeof all, &all), 0);
  const auto& suite = doc["suites"][0];
  EXPECT_EQ(suite["status"], "skipped") << suite["reason"];
  EXPECT_NE(suite["reason"].get<std::string>().find("needs two CPUs"), std::string::npos)
      << suite["reason"];
}

TEST(LockSuites, PiStressRunsWithPiAndDetectsDeadlockWithout) {
  SKIP_WITHOUT_FIFO();
  auto doc = run_json({"run", "pi.stress", "--duration", "2"}, 0);
  for (const auto& c : doc["suites"][0]["cases"]) {
    // Tens of thousands of inversions per second here; 100/s would mean a broken lock.
    EXPECT_GT(metric_named(c, "inversions")["samples"][0].get<double>(), 100.0);
  }
  doc = run_json(
      {"run", "pi.stress", "--duration", "2", "-p", "lock=futex_mutex", "-p", "deadlock_ms=100"},
      1);
  EXPECT_EQ(doc["suites"][0]["status"], "failed");
  EXPECT_NE(doc["suites"][0]["reason"].get<std::string>().find("deadlocked"), std::string::npos);
}

// deadlock_ms above the watchdog's stall time: the deadlock is still reported as such (capped at
// a quarter of the stall time), not as a watchdog error that demotes the wrong thread.
TEST(LockSuites, PiStressDeadlockDetectionStaysBelowTheWatchdog) {
  SKIP_WITHOUT_FIFO();
  const auto doc = run_json({"run", "pi.stress", "--duration", "2", "--watchdog", "1", "-p",
                             "lock=futex_mutex", "-p", "deadlock_ms=5000"},
                            1);
  const auto& s = doc["suites"][0];
  EXPECT_EQ(s["status"], "failed") << s["reason"];
  const std::string reason = s["reason"];
  EXPECT_NE(reason.find("deadlocked"), std::string::npos) << reason;
  EXPECT_NE(reason.find("capped at 250 ms"), std::string::npos) << reason;
  EXPECT_EQ(reason.find("watchdog:"), std::string::npos) << reason;
}

TEST(LockSuites, LockLatencyReportsEveryMetricPerLock) {
  SKIP_WITHOUT_FIFO();
  const auto doc = run_json({"run", "lock.latency", "--duration", "2", "-p",
                             "locks=pi_rw_sem,pthread_mutex", "--load", "cpu:1"},
                            0);
  const auto& suite = doc["suites"][0];
  ASSERT_EQ(suite["cases"].size(), 2u);
  for (const auto& c : suite["cases"]) {
    // 1 s per lock at 1 ms: 1000 periods, each either measured or skipped because the RT thread
    // was still blocked on the lock (a non-PI lock under load skips many). The schedule is
    // deterministic, so the two add up to the period count exactly (+1 for the inclusive end).
    const auto acquired =
        metric_named(c, "acquire_latency")["summary"]["count"].get<std::uint64_t>();
    const auto skipped =
        static_cast<std::uint64_t>(metric_named(c, "skipped_periods")["samples"][0].get<double>());
    EXPECT_GE(acquired + skipped, 999u) << c["name"];
    EXPECT_LE(acquired + skipped, 1001u) << c["name"];
    EXPECT_GT(acquired, 10u) << c["name"];
    EXPECT_EQ(metric_named(c, "wakeup_latency")["summary"]["count"].get<std::uint64_t>(), acquired);
    EXPECT_GT(metric_named(c, "nonrt_throughput")["samples"][0].get<double>(), 0.0);
  }
  ASSERT_EQ(suite["load"].size(), 1u);
  EXPECT_EQ(suite["load"][0]["kind"], "cpu");
  EXPECT_GT(suite["load"][0]["ops_per_s"].get<double>(), 0.0);
}

// A lock case's RT threads finish long before the suite does; the watchdog must stop watching
// them then. (It once kept watching: any lock.latency run longer than --watchdog plus one lock's
// slice ended in "error", as a 5-run gate run on this machine did.) Slices of 1.5 s against a
// 1 s watchdog: the first case's threads are idle for 1.5 s before the suite ends.
TEST(LockSuites, LockLatencyFinishedCasesDoNotTripTheWatchdog) {
  SKIP_WITHOUT_FIFO();
  const auto doc = run_json({"run", "lock.latency", "--duration", "3", "--watchdog", "1", "-p",
                             "locks=pi_mutex,futex_mutex"},
                            0);
  const auto& suite = doc["suites"][0];
  EXPECT_EQ(suite["status"], "passed") << suite["reason"];
  EXPECT_EQ(suite["cases"].size(), 2u);
}

TEST(LockSuites, LockThroughputSweepsThreadCounts) {
  const auto doc = run_json({"run", "lock.throughput", "--duration", "1", "-p",
                             "locks=ticket,pi_mutex", "-p", "threads=1,2"},
                            0);
  const auto& cases = doc["suites"][0]["cases"];
  ASSERT_EQ(cases.size(), 4u);
  for (const auto& c : cases) {
    EXPECT_GT(metric_named(c, "throughput")["samples"][0].get<double>(), 0.0) << c["name"];
    EXPECT_EQ(metric_named(c, "throughput")["unit"], "Mops/s");
  }
}

TEST(LockSuites, SpinlocksAreRefusedWhenFifoSpinnersOutnumberCpus) {
  SKIP_WITHOUT_FIFO();
  const std::string many = std::to_string(2 * sysconf(_SC_NPROCESSORS_ONLN));
  const auto doc =
      run_json({"run", "lock.latency", "--duration", "1", "-p", "locks=ticket,pi_mutex", "-p",
                "rt_threads=" + many, "-p", "nonrt_threads=0"},
               0);
  const auto& suite = doc["suites"][0];
  ASSERT_EQ(suite["cases"].size(), 1u);
  EXPECT_EQ(suite["cases"][0]["name"], "pi_mutex");
  EXPECT_NE(suite["reason"].get<std::string>().find("ticket: "), std::string::npos);
  EXPECT_NE(suite["reason"].get<std::string>().find("allow_oversubscribed_spin"),
            std::string::npos);
}

// With the RT threads on every CPU the hammers would share their CPUs: spinlocks are refused.
TEST(LockSuites, SpinlocksAreRefusedWhenTheHammersWouldShareTheRtCpus) {
  SKIP_WITHOUT_FIFO();
  const std::string all = std::to_string(sysconf(_SC_NPROCESSORS_ONLN));
  const auto doc = run_json({"run", "lock.latency", "--duration", "1", "-p",
                             "locks=ticket,pi_mutex", "-p", "rt_threads=" + all},
                            0);
  const auto& suite = doc["suites"][0];
  ASSERT_EQ(suite["cases"].size(), 1u);
  EXPECT_EQ(suite["cases"][0]["name"], "pi_mutex");
  EXPECT_NE(suite["reason"].get<std::string>().find("leave no CPU"), std::string::npos)
      << suite["reason"];
}

// An RT critical section longer than the period (1.5 ms hold at 1 ms) re-anchors the schedule:
// the wakeup latency stays a wakeup latency (before, each sample carried the 0.5 ms overrun),
// and every section is counted in overran_periods.
TEST(LockSuites, LockLatencyHoldPastThePeriodIsCountedNotWakeupLatency) {
  SKIP_WITHOUT_FIFO();
  const auto doc = run_json({"run", "lock.latency", "--duration", "1", "-p", "locks=pi_mutex", "-p",
                             "rt_hold_ns=1500000", "-p", "nonrt_threads=0"},
                            0);
  const auto& c = doc["suites"][0]["cases"][0];
  const auto acquired = metric_named(c, "acquire_latency")["summary"]["count"].get<std::uint64_t>();
  const auto overran = metric_named(c, "overran_periods")["samples"][0].get<double>();
  EXPECT_GT(acquired, 100u);
  EXPECT_GE(overran, 0.9 * static_cast<double>(acquired));
  EXPECT_LT(metric_named(c, "wakeup_latency")["summary"]["p50"].get<double>(), 500'000)
      << "the 0.5 ms overrun is not in the wakeup latency";
}

TEST(LockSuites, BadCombinationsExit2WithAClearMessage) {
  struct Case {
    std::vector<std::string> args;
    const char* expect;
  };
  for (const Case& c :
       std::vector<Case>{{{"-p", "rt_threads=0", "-p", "nonrt_threads=0"}, "at least 1"},
                         {{"-p", "locks=pi_mutex,nope"}, "unknown lock 'nope'"},
                         {{"-p", "rt_threads=64", "-p", "priority=10"}, "below 1"}}) {
    std::vector<std::string> args = {"run", "lock.latency"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto r = run_rtgate(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
  }
  EXPECT_EQ(run_rtgate({"run", "lock.latency", "--load", "cpu:0"}).exit_code, 2);
  EXPECT_EQ(run_rtgate({"run", "pi.stress", "-p", "lock=ticket"}).exit_code, 2);
}

TEST(LockSuites, DescribeDocumentsEveryLockLatencyParameter) {
  const auto r = run_rtgate({"describe", "lock.latency", "--json"});
  ASSERT_EQ(r.exit_code, 0);
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_GE(doc["params"].size(), 10u);
  for (const auto& p : doc["params"]) EXPECT_FALSE(p["help"].get<std::string>().empty());
}

TEST(LockSuites, LocksCommandListsTheCatalogue) {
  const auto r = run_rtgate({"locks", "--json"});
  ASSERT_EQ(r.exit_code, 0);
  const auto doc = nlohmann::json::parse(r.out);
  std::vector<std::string> names;
  for (const auto& l : doc) names.push_back(l["name"]);
  for (const char* want : {"tas", "ttas", "ticket", "mcs", "qspinlock", "futex_mutex", "pi_mutex",
                           "rw_sem", "pi_rw_sem", "pthread_mutex", "pthread_rwlock"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
}

}  // namespace
}  // namespace rtgate::test
