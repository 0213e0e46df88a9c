// The loads that need more than this process: SCHED_FIFO spinners (checked from outside, via
// the kernel's view of their policy, affinity and CPU time) and stress-ng as a child process
// (which must leave no process behind). Each skips with its reason where it cannot run.
//
// stop() is held to 1 s: rt sleeps at most one 10 ms period and stress-ng exits within
// milliseconds of SIGTERM (the 1 s SIGKILL fallback is for a hung one, which is a failure here).
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <sstream>

#include "base/io/proc_files.h"
#include "framework/background_load/load.h"
#include "framework/measure/clock.h"
#include "framework/rt/cpu_list.h"
#include "framework/rt/rt_checks.h"
#include "tests/unit/load_test_helpers.h"

namespace rtgate::load {
namespace {

using namespace test;  // NOLINT(google-build-using-namespace): test helpers only

bool stress_ng_installed() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (!dir.empty() && access((dir + "/stress-ng").c_str(), X_OK) == 0) return true;
  }
  return false;
}

TEST(LoadRt, SpinnersAreFifoPinnedAndKeepTheirDuty) {
  if (const std::string why = rt::probe_sched_fifo(); !why.empty()) GTEST_SKIP() << why;
  const std::vector<int> cpus = rt::allowed_cpus();
  const int n = static_cast<int>(cpus.size());
  std::vector<double> duty;
  const Ran ran = run_load("rt:" + std::to_string(n) + ":50:20", 100, [&] {
    const std::vector<pid_t> tids = threads_named("load-rt");
    ASSERT_EQ(static_cast<int>(tids.size()), n);
    std::vector<int> pinned;
    for (pid_t tid : tids) {
      sched_param sp{};
      EXPECT_EQ(sched_getscheduler(tid), SCHED_FIFO) << tid;
      EXPECT_EQ(sched_getparam(tid, &sp), 0);
      EXPECT_EQ(sp.sched_priority, 50);
      cpu_set_t set;
      ASSERT_EQ(sched_getaffinity(tid, sizeof set, &set), 0);
      EXPECT_EQ(CPU_COUNT(&set), 1) << "spinner " << tid << " is not pinned";
      for (int cpu : cpus) {
        if (CPU_ISSET(cpu, &set)) pinned.push_back(cpu);
      }
    }
    std::sort(pinned.begin(), pinned.end());
    EXPECT_EQ(pinned, cpus) << "not one spinner per allowed CPU";
    // The kernel's own account of each spinner's CPU time (schedstat's first field, in ns).
    const auto on_cpu_ns = [](pid_t tid) {
      return proc::read_int("/proc/self/task/" + std::to_string(tid) + "/schedstat", -1);
    };
    std::vector<std::int64_t> before;
    for (pid_t tid : tids) before.push_back(on_cpu_ns(tid));
    const std::int64_t t0 = monotonic_ns();
    sleep_ms(500);
    const double wall = static_cast<double>(monotonic_ns() - t0);
    for (std::size_t i = 0; i < tids.size(); ++i) {
      const std::int64_t after = on_cpu_ns(tids[i]);
      if (before[i] >= 0 && after >= 0)
        duty.push_back(static_cast<double>(after - before[i]) / wall);
    }
  });
  // DUTY 20 over 500 ms is 50 periods; 5%..60% allows for late wakeups, preemption by the
  // kernel's own RT threads and coarse accounting without letting a runaway spinner through.
  if (duty.empty()) GTEST_SKIP() << "no /proc/self/task/*/schedstat to measure the duty with";
  for (double d : duty) {
    EXPECT_GT(d, 0.05);
    EXPECT_LT(d, 0.60);
  }
  // ~60 periods per spinner ran; a spinner can only lose one to a very late wakeup.
  EXPECT_GE(ran.report.ops, static_cast<std::uint64_t>(n) * 30);
  EXPECT_NE(ran.report.note.find("measured CPU time"), std::string::npos);
  EXPECT_LT(ran.stop_seconds, 1.0);
  EXPECT_TRUE(threads_left_named("load-rt").empty());
}

TEST(LoadRt, WithoutSchedFifoStartFailsWithTheReason) {
  if (rt::probe_sched_fifo().empty()) GTEST_SKIP() << "SCHED_FIFO is permitted here";
  LoadSet set = parse_ok("rt:1");
  try {
    set.start();
    FAIL() << "started SCHED_FIFO spinners without permission";
  } catch (const LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("rt: cannot create a SCHED_FIFO spinner"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("CAP_SYS_NICE"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(threads_left_named("load-rt").empty());
}

// Processes whose parent is this one, and every process in their process groups.
std::vector<pid_t> stress_processes() {
  std::vector<std::pair<pid_t, std::pair<pid_t, pid_t>>> all;  // pid, (ppid, pgrp)
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = proc::read_file(entry.path().string() + "/stat").value_or("");
    const std::size_t paren = stat.rfind(')');
    if (paren == std::string::npos) continue;
    char state = 0;
    int ppid = 0, pgrp = 0;
    if (std::sscanf(stat.c_str() + paren + 1, " %c %d %d", &state, &ppid, &pgrp) != 3) continue;
    all.push_back({std::stoi(name), {ppid, pgrp}});
  }
  std::vector<pid_t> out;
  for (const auto& [pid, ids] : all) {
    if (ids.first != getpid()) continue;
    for (const auto& [member, member_ids] : all) {
      if (member_ids.second == pid) out.push_back(member);
    }
  }
  return out;
}

TEST(LoadStress, RunsStressNgAndLeavesNoProcessBehind) {
  if (!stress_ng_installed()) GTEST_SKIP() << "stress-ng is not installed";
  std::vector<pid_t> children;
  const Ran ran = run_load("stress:--cpu 1", 300, [&] {
    // stress-ng itself and its one cpu stressor; on a busy machine the fork may come late.
    for (const std::int64_t end = monotonic_ns() + 2'000'000'000; monotonic_ns() < end;) {
      children = stress_processes();
      if (children.size() >= 2) break;
      sleep_ms(10);
    }
  });
  const std::string what = "note: " + ran.report.note;
  EXPECT_GE(children.size(), 2u) << what;
  for (pid_t pid : children) {
    const int rc = kill(pid, 0);
    const int err = errno;
    EXPECT_EQ(rc, -1) << "process " << pid << " outlived stop(); " << what;
    EXPECT_EQ(err, ESRCH) << "process " << pid;
  }
  // The cpu stressor counts a bogo-op per ~0.6 ms of CPU here; 300 ms gives hundreds, and even
  // a tenth of a CPU gives dozens.
  EXPECT_GT(ran.report.ops, 0u) << what;
  EXPECT_NE(ran.report.note.find("exit status 0"), std::string::npos) << what;
  EXPECT_EQ(ran.report.instances, 1);
  EXPECT_LT(ran.stop_seconds, 1.0) << what;
}

TEST(LoadStress, BadArgumentsFailAtStart) {
  if (!stress_ng_installed()) GTEST_SKIP() << "stress-ng is not installed";
  LoadSet set = parse_ok("stress:--no-such-stressor 1");
  try {
    set.start();
    FAIL() << "stress-ng accepted an unknown option";
  } catch (const LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("stress-ng exit status"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(stress_processes().empty());
}

}  // namespace
}  // namespace rtgate::load
