#include "framework/env/environment.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "framework/rt/rt_checks.h"

namespace rtgate {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

class EnvironmentTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { env_ = new Environment(capture_environment()); }
  static void TearDownTestSuite() {
    delete env_;
    env_ = nullptr;
  }
  static Environment* env_;
};
Environment* EnvironmentTest::env_ = nullptr;

TEST_F(EnvironmentTest, UnameFields) {
  utsname u{};
  ASSERT_EQ(uname(&u), 0);
  EXPECT_EQ(env_->kernel_release, u.release);
  EXPECT_EQ(env_->kernel_version, u.version);
  EXPECT_EQ(env_->machine, u.machine);
  EXPECT_EQ(env_->hostname, u.nodename);
}

TEST_F(EnvironmentTest, CmdlineAndCpus) {
  EXPECT_EQ(env_->cmdline, trimmed(slurp("/proc/cmdline")));
  EXPECT_EQ(env_->online_cpus, sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_EQ(env_->online_cpu_list, trimmed(slurp("/sys/devices/system/cpu/online")));
  EXPECT_EQ(env_->isolated_cpus, trimmed(slurp("/sys/devices/system/cpu/isolated")));
  EXPECT_EQ(env_->memory_total_kb * 1024 / sysconf(_SC_PAGESIZE), sysconf(_SC_PHYS_PAGES));
#if defined(__x86_64__)
  EXPECT_FALSE(env_->cpu_model.empty());
  EXPECT_NE(slurp("/proc/cpuinfo").find(env_->cpu_model), std::string::npos);
#endif
}

TEST_F(EnvironmentTest, PreemptModelIsKnown) {
  EXPECT_FALSE(env_->preempt_model.empty());
  EXPECT_NE(env_->preempt_model, "unknown");
  EXPECT_TRUE(env_->extra.count("preempt_source")) << "no source for " << env_->preempt_model;
  const bool rt_kernel = env_->kernel_version.find("PREEMPT_RT") != std::string::npos ||
                         trimmed(slurp("/sys/kernel/realtime")) == "1";
  EXPECT_EQ(env_->realtime, rt_kernel);
  if (rt_kernel) {
    EXPECT_EQ(env_->preempt_model, "rt");
  }
  if (!rt_kernel && env_->kernel_version.find("PREEMPT_DYNAMIC") != std::string::npos) {
    EXPECT_EQ(env_->preempt_model.rfind("dynamic", 0), 0U) << env_->preempt_model;
  }
}

TEST_F(EnvironmentTest, SchedulerAndPowerFacts) {
  EXPECT_EQ(std::to_string(env_->rt_runtime_us),
            trimmed(slurp("/proc/sys/kernel/sched_rt_runtime_us")));
  EXPECT_EQ(std::to_string(env_->rt_period_us),
            trimmed(slurp("/proc/sys/kernel/sched_rt_period_us")));
  EXPECT_EQ(env_->rt_capable, rt::probe_sched_fifo().empty());
  EXPECT_EQ(env_->clocksource,
            trimmed(slurp("/sys/devices/system/clocksource/clocksource0/current_clocksource")));
  EXPECT_EQ(env_->smt, trimmed(slurp("/sys/devices/system/cpu/smt/control")));
  const std::string governor =
      trimmed(slurp("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"));
  if (governor.empty()) {
    EXPECT_EQ(env_->governors, "");
  } else {
    EXPECT_NE(env_->governors.find(governor), std::string::npos) << env_->governors;
  }
}

TEST_F(EnvironmentTest, CpuDmaLatencyIsReadWhenPermitted) {
  const int fd = open("/dev/cpu_dma_latency", O_RDONLY);
  if (fd < 0) {
    EXPECT_EQ(env_->cpu_dma_latency_us, -1);
    GTEST_SKIP() << "/dev/cpu_dma_latency not readable here";
  }
  close(fd);
  // With nobody holding it, the target is the kernel default of 2000 s; anything else means a
  // holder such as tuned or another cyclictest, which is still a valid non-negative value.
  EXPECT_GE(env_->cpu_dma_latency_us, 0);
  EXPECT_LE(env_->cpu_dma_latency_us, 2'000'000'000);
}

TEST_F(EnvironmentTest, HypervisorFollowsCpuFlag) {
  std::istringstream cpuinfo(slurp("/proc/cpuinfo"));
  bool flag = false;
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("flags", 0) == 0) {
      flag = (line + " ").find(" hypervisor ") != std::string::npos;
      break;
    }
  }
  if (flag) {
    EXPECT_FALSE(env_->hypervisor.empty());
  }
  if (!flag && slurp("/sys/hypervisor/type").empty()) {
    // Without the flag only a DMI vendor that names a virtual machine may claim a hypervisor.
    if (!env_->hypervisor.empty()) {
      EXPECT_EQ(env_->hypervisor, trimmed(slurp("/sys/class/dmi/id/sys_vendor")));
    }
  }
}

}  // namespace
}  // namespace rtgate
