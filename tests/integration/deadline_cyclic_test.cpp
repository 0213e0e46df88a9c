// deadline.cyclic end to end: SCHED_DEADLINE threads measure their wakeups here, or the suite is
// skipped saying which refusal (EPERM, EBUSY, EINVAL) stopped them; both refusals the kernel's
// rules make certain are checked.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "framework/rt/rt_checks.h"
#include "tests/integration/process.h"
#include "tests/integration/result_json.h"

namespace rtgate::test {
namespace {

constexpr int kSchedDeadline = 6;

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The scheduling policy of each of `pid`'s threads named `comm` (stat field 41).
std::vector<int> policies_of(pid_t pid, const std::string& comm) {
  std::vector<int> out;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  std::error_code ec;
  for (const auto& t : std::filesystem::directory_iterator(dir, ec)) {
    if (first_line(t.path().string() + "/comm").rfind(comm, 0) != 0) continue;
    const std::string stat = first_line(t.path().string() + "/stat");
    std::istringstream rest(stat.substr(stat.rfind(')') + 2));  // after "(comm) "
    std::string field;
    for (int i = 3; i <= 41 && rest >> field; ++i) {
    }
    out.push_back(std::stoi(field));
  }
  return out;
}

bool admission_control_off() { return first_line("/proc/sys/kernel/sched_rt_runtime_us") == "-1"; }

TEST(DeadlineCyclic, AShortRunMeasuresEveryPeriodOrSaysWhyNot) {
  SKIP_WITHOUT_FIFO();
  std::vector<int> seen;
  const auto doc = run_json({"run", "deadline.cyclic", "--duration", "3"}, 0,
                            {.timeout_s = 300, .on_start = [&](pid_t pid) {
                               std::this_thread::sleep_for(std::chrono::milliseconds(1500));
                               seen = policies_of(pid, "rtgate-dl");
                             }});
  const auto& suite = doc["suites"][0];
  if (suite["status"] == "skipped") {
    // Where the kernel refuses, the reason names the refusal and its errno.
    const std::string reason = suite["reason"];
    EXPECT_EQ(reason.rfind("SCHED_DEADLINE refused", 0), 0u) << reason;
    EXPECT_TRUE(
        reason.find("EPERM") != std::string::npos || reason.find("EBUSY") != std::string::npos ||
        reason.find("EINVAL") != std::string::npos || reason.find("ENOSYS") != std::string::npos)
        << reason;
    GTEST_SKIP() << reason;
  }
  ASSERT_EQ(suite["status"], "passed") << suite["reason"];
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  ASSERT_EQ(static_cast<long>(suite["cases"].size()), cpus);
  // Mid-run, every measuring thread is in the deadline class (not the FIFO 1 it was born in).
  EXPECT_EQ(static_cast<long>(seen.size()), cpus);
  for (int policy : seen) EXPECT_EQ(policy, kSchedDeadline);
  for (std::size_t i = 0; i < suite["cases"].size(); ++i) {
    const auto& c = suite["cases"][i];
    // cyclicdeadline's defaults: 1000 us, +500 us per thread, 60% runtime, deadline = period.
    const int period_us = 1000 + 500 * static_cast<int>(i);
    EXPECT_EQ(c["labels"]["period_us"], std::to_string(period_us));
    EXPECT_EQ(c["labels"]["runtime_us"], std::to_string(period_us * 60 / 100));
    EXPECT_EQ(c["labels"]["deadline_us"], std::to_string(period_us));
    const auto& s = metric_named(c, "wakeup_latency")["summary"];
    const auto missed = metric_named(c, "missed_periods")["samples"][0].get<double>();
    // The schedule is absolute: each of the 3 s / period deadlines is measured or counted missed.
    EXPECT_EQ(s["count"].get<double>() + missed, 3'000'000 / period_us) << c["name"];
    // A wakeup is never early, and late by less than a period at the median.
    EXPECT_GT(s["min"].get<std::uint64_t>(), 0u);
    EXPECT_LT(s["p50"].get<std::uint64_t>(), static_cast<std::uint64_t>(period_us) * 1000);
  }
}

TEST(DeadlineCyclic, FullRuntimeOnEveryThreadIsRefusedByAdmissionControl) {
  SKIP_WITHOUT_FIFO();
  if (admission_control_off()) GTEST_SKIP() << "sched_rt_runtime_us is -1: no admission control";
  // One thread per CPU, each asking a whole CPU: more than sched_rt_runtime_us (at most the
  // whole period) leaves to deadline tasks on every CPU, so the kernel must say EBUSY.
  const auto doc = run_json({"run", "deadline.cyclic", "--duration", "1", "-p", "runtime_pct=100"});
  const auto& suite = doc["suites"][0];
  EXPECT_EQ(suite["status"], "skipped");
  EXPECT_NE(suite["reason"].get<std::string>().find("EBUSY: admission control"), std::string::npos)
      << suite["reason"];
}

TEST(DeadlineCyclic, AffinityNarrowerThanTheRootDomainIsRefusedWithEperm) {
  SKIP_WITHOUT_FIFO();
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "needs 2 CPUs";
  if (admission_control_off()) GTEST_SKIP() << "sched_rt_runtime_us is -1: no admission control";
  // With load balancing on in the root cpuset, all CPUs are one root domain, and a deadline task
  // on CPU 0 alone does not cover it.
  const std::string balance = first_line("/sys/fs/cgroup/cpuset/cpuset.sched_load_balance");
  if (balance == "0") GTEST_SKIP() << "cpuset partitions split the root domain here";
  const auto doc = run_json({"run", "deadline.cyclic", "--duration", "1", "-p", "cpus=0"});
  const auto& suite = doc["suites"][0];
  EXPECT_EQ(suite["status"], "skipped");
  EXPECT_NE(suite["reason"].get<std::string>().find("EPERM: a deadline task's affinity must "
                                                    "cover its whole root domain"),
            std::string::npos)
      << suite["reason"];
}

TEST(DeadlineCyclic, RuntimeAboveTheDeadlineIsAUsageError) {
  const auto r = run_rtgate(
      {"run", "deadline.cyclic", "-p", "runtime_pct=80", "-p", "deadline_pct=50", "--no-progress"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("runtime_pct must not exceed deadline_pct"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace rtgate::test
