// What an RT suite measures without its set-up: no mlockall (page faults on the measured path)
// and no cpu_dma_latency hold (deep C-state exits). Root in a container without CAP_IPC_LOCK
// (mlockall is then bound by a small RLIMIT_MEMLOCK) and without access to
// /dev/cpu_dma_latency still gets SCHED_FIFO and a result; that result must say it is
// contaminated, and why, not pass as a clean one.
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "framework/rt/rt_checks.h"
#include "tests/integration/fs_fixtures.h"
#include "tests/integration/process.h"

namespace rtgate::test {
namespace {

TEST(SetupFlaws, WithoutMlockallAndTheDmaLatencyHoldTheSuiteIsContaminated) {
  if (const std::string why = rt::probe_sched_fifo(); !why.empty()) GTEST_SKIP() << why;
  if (geteuid() != 0) GTEST_SKIP() << "needs root (a mount namespace, capability drops)";
  if (access("/dev/cpu_dma_latency", F_OK) != 0) GTEST_SKIP() << "no /dev/cpu_dma_latency";
  // g++ defines __SANITIZE_ADDRESS__, clang says so through __has_feature.
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer intercepts mlockall as a no-op that succeeds";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  GTEST_SKIP() << "AddressSanitizer intercepts mlockall as a no-op that succeeds";
#endif
#endif
  TempDir dir;
  const auto r = run_rtgate(
      {"run", "cyclic", "--duration", "1", "--no-progress", "-o", dir.file("r.json")},
      {.rlimits = {{RLIMIT_MEMLOCK, 64 * 1024}},
       .drop_caps = {CAP_IPC_LOCK, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH},
       .hide_paths = {"/dev/cpu_dma_latency"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = read_json(dir.file("r.json"));
  const auto& suite = doc["suites"][0];
  ASSERT_EQ(suite["status"], "passed") << suite.dump();
  EXPECT_TRUE(suite["contaminated"].get<bool>());
  bool mlock = false, dma = false;
  for (const auto& reason : suite["contaminated_reasons"]) {
    const std::string s = reason;
    mlock = mlock || s.rfind("mlockall failed", 0) == 0;
    dma = dma || s.rfind("cpu_dma_latency not held", 0) == 0;
  }
  EXPECT_TRUE(mlock) << suite["contaminated_reasons"].dump();
  EXPECT_TRUE(dma) << suite["contaminated_reasons"].dump();
  EXPECT_NE(r.out.find("contaminated"), std::string::npos) << "the console says so too:\n"
                                                            << r.out;
}

TEST(SetupFlaws, AsRootNeitherFlawIsReported) {
  if (const std::string why = rt::probe_sched_fifo(); !why.empty()) GTEST_SKIP() << why;
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  TempDir dir;
  const auto r = run_rtgate(
      {"run", "cyclic", "--duration", "1", "--no-progress", "-o", dir.file("r.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = read_json(dir.file("r.json"));
  for (const auto& reason : doc["suites"][0]["contaminated_reasons"]) {
    const std::string s = reason;
    EXPECT_NE(s.rfind("mlockall failed", 0), 0u) << s;
    EXPECT_NE(s.rfind("cpu_dma_latency not held", 0), 0u) << s;
  }
}

}  // namespace
}  // namespace rtgate::test
