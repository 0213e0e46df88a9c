#include "framework/rt/rt_checks.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace rtgate::rt {
namespace {

// Effective capability set as /proc reports it: an independent source for what capget() returned.
std::uint64_t cap_eff_from_proc() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("CapEff:", 0) == 0) return std::stoull(line.substr(7), nullptr, 16);
  }
  return 0;
}

std::int64_t read_proc_int(const char* path) {
  std::ifstream in(path);
  std::int64_t v = 0;
  in >> v;
  return v;
}

std::int64_t expected_rlimit(int resource) {
  rlimit lim{};
  getrlimit(resource, &lim);
  return lim.rlim_cur == RLIM_INFINITY ? -1 : static_cast<std::int64_t>(lim.rlim_cur);
}

TEST(RtChecksTest, ProbeAgreesWithReadiness) {
  const std::string reason = probe_sched_fifo();
  const Readiness r = check_readiness();
  EXPECT_EQ(r.sched_fifo, reason.empty());
  EXPECT_EQ(r.sched_fifo, r.reason.empty());
  if (!reason.empty()) {
    EXPECT_EQ(reason.find('\n'), std::string::npos) << "reason must be one line: " << reason;
  }
}

TEST(RtChecksTest, IdentityCapabilitiesAndLimitsMatchTheKernel) {
  const Readiness r = check_readiness();
  EXPECT_EQ(r.is_root, geteuid() == 0);
  const std::uint64_t caps = cap_eff_from_proc();
  EXPECT_EQ(r.cap_sys_nice, ((caps >> 23) & 1) != 0);  // CAP_SYS_NICE
  EXPECT_EQ(r.cap_ipc_lock, ((caps >> 14) & 1) != 0);  // CAP_IPC_LOCK
  EXPECT_EQ(r.rlimit_rtprio, expected_rlimit(RLIMIT_RTPRIO));
  EXPECT_EQ(r.rlimit_memlock, expected_rlimit(RLIMIT_MEMLOCK));
  EXPECT_EQ(r.rt_runtime_us, read_proc_int("/proc/sys/kernel/sched_rt_runtime_us"));
  EXPECT_EQ(r.rt_period_us, read_proc_int("/proc/sys/kernel/sched_rt_period_us"));
  EXPECT_EQ(r.throttling, r.rt_runtime_us != -1 && r.rt_runtime_us < r.rt_period_us);
  EXPECT_EQ(r.cpu_dma_latency_writable, access("/dev/cpu_dma_latency", W_OK) == 0);
}

TEST(RtChecksTest, RootWithCapSysNiceCanRunSchedFifo) {
  const Readiness r = check_readiness();
  if (!r.cap_sys_nice) GTEST_SKIP() << "no CAP_SYS_NICE here: " << r.reason;
  EXPECT_TRUE(r.sched_fifo) << r.reason;
}

TEST(RtChecksTest, UnprivilegedProcessGetsAnActionableReason) {
  const Readiness r = check_readiness();
  if (r.cap_sys_nice || r.rlimit_rtprio != 0) {
    GTEST_SKIP() << "this process may use SCHED_FIFO (CAP_SYS_NICE or RLIMIT_RTPRIO > 0)";
  }
  EXPECT_FALSE(r.sched_fifo);
  EXPECT_NE(r.reason.find("EPERM"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("CAP_SYS_NICE"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace rtgate::rt
