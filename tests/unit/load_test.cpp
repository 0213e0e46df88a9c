// The in-process loads really apply load (their own counts agree with what the kernel saw),
// stop within a second and leave nothing behind; a set stops what it started when an item fails.
//
// Every stop() is held to 1 s. That is a 10x margin or more on the worst case of each kind: cpu
// and fault poll their stop flag every ~0.1 ms, msg's blocked threads are woken by shutdown(2),
// io finishes one 64 KiB write+fsync, and rt (load_rt_stress_test.cpp) sleeps at most one 10 ms
// period.
#include "framework/background_load/load.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tests/unit/load_test_helpers.h"

namespace rtgate::load {
namespace {

using namespace test;  // NOLINT(google-build-using-namespace): test helpers only

// Minor faults taken by threads other than the calling one. start() runs on the calling thread,
// so this excludes whatever it faulted in itself (under mlockall, a whole populated buffer):
// what is left is the workers'.
long other_threads_minor_faults() {
  rusage self{}, thread{};
  getrusage(RUSAGE_SELF, &self);  // includes threads that have exited
  getrusage(RUSAGE_THREAD, &thread);
  return self.ru_minflt - thread.ru_minflt;
}

TEST(LoadCpu, BusyThreadsLoopAndStopPromptly) {
  const Ran ran = run_load("cpu:2", 300);
  // A loop is 4096 dependent steps, well under 1 ms even on a slow core; two threads given even
  // a tenth of one CPU for 300 ms would finish 30.
  EXPECT_GE(ran.report.ops, 30u);
  EXPECT_EQ(ran.report.instances, 2);
  EXPECT_NEAR(ran.report.seconds, 0.3, 0.25);
  EXPECT_GT(ran.report.ops_per_s, 0);
  EXPECT_LT(ran.stop_seconds, 1.0);
  EXPECT_TRUE(threads_left_named("load-cpu").empty()) << "threads left behind";
}

TEST(LoadFault, FaultsAreRealPageFaults) {
  const long before = other_threads_minor_faults();
  const Ran ran = run_load("fault:1", 300);
  const long faults = other_threads_minor_faults() - before;
  // A minor fault costs ~1 µs (allocate and zero a page), so 300 ms allows ~10^5: 1000 is
  // reachable on anything. Every counted page was touched after MADV_DONTNEED, so the kernel
  // must have seen at least as many faults as the load claims.
  EXPECT_GE(ran.report.ops, 1000u);
  EXPECT_GE(faults, static_cast<long>(ran.report.ops));
  EXPECT_EQ(ran.report.note.find("stopped early"), std::string::npos) << ran.report.note;
  EXPECT_LT(ran.stop_seconds, 1.0);
}

// rtgate locks itself in memory before measuring; the fault load must still fault then.
TEST(LoadFault, StillFaultsInAnMlockalledProcess) {
  if (geteuid() != 0) GTEST_SKIP() << "locking the whole test process needs root (CAP_IPC_LOCK)";
  ASSERT_EQ(mlockall(MCL_CURRENT | MCL_FUTURE), 0) << std::strerror(errno);
  struct Unlock {
    ~Unlock() { munlockall(); }
  } unlock;
  const long before = other_threads_minor_faults();
  const Ran ran = run_load("fault:1", 300);
  EXPECT_GE(ran.report.ops, 1000u);
  EXPECT_GE(other_threads_minor_faults() - before, static_cast<long>(ran.report.ops));
  EXPECT_EQ(ran.report.note.find("stopped early"), std::string::npos) << ran.report.note;
}

TEST(LoadMsg, GroupsExchangeMessages) {
  const Ran ran = run_load("msg:1", 300);
  // A 100-byte AF_UNIX send or receive is a few µs; 1000 messages is 3,300/s, orders of
  // magnitude below what one group manages even on a busy machine.
  EXPECT_GE(ran.report.ops, 1000u);
  EXPECT_EQ(ran.report.instances, 1);
  EXPECT_LT(ran.stop_seconds, 1.0);
  EXPECT_TRUE(threads_left_named("load-msg").empty());
}

TEST(LoadIo, WritesAndFsyncsInAPrivateTempDirThatIsRemoved) {
  TempDir tmp;
  ASSERT_FALSE(tmp.path.empty());
  ScopedEnv env("TMPDIR", tmp.path);
  std::size_t files_while_running = 0;
  const Ran ran = run_load("io:1", 300, [&] {
    for (const auto& dir : fs::directory_iterator(tmp.path)) {
      EXPECT_EQ(dir.path().filename().string().rfind("rtgate-io-", 0), 0u) << dir.path();
      for (const auto& f : fs::directory_iterator(dir.path())) files_while_running += f.exists();
    }
  });
  EXPECT_EQ(files_while_running, 1u);
  // A 64 KiB write and its fsync take milliseconds on any disk that works at all.
  EXPECT_GE(ran.report.ops, 1u);
  EXPECT_NE(ran.report.note.find("MB written"), std::string::npos) << ran.report.note;
  EXPECT_LT(ran.stop_seconds, 1.0);
  EXPECT_TRUE(fs::is_empty(tmp.path)) << "temp dir left behind";
}

TEST(LoadIo, NoTempDirIsAStartError) {
  ScopedEnv env("TMPDIR", "/nonexistent/rtgate-load-test");
  LoadSet set = parse_ok("io:1");
  try {
    set.start();
    FAIL() << "started without a temp dir";
  } catch (const LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("item 'io:1': io: cannot create a temp dir"),
              std::string::npos)
        << e.what();
  }
}

TEST(LoadSet, AFailingItemStopsTheOnesStartedBeforeIt) {
  TempDir empty;
  ASSERT_FALSE(empty.path.empty());
  ScopedEnv env("PATH", empty.path);  // stress-ng is "not installed"
  LoadSet set = parse_ok("cpu:1,msg:1,stress:--cpu 1");
  try {
    set.start();
    FAIL() << "started without stress-ng";
  } catch (const LoadError& e) {
    EXPECT_STREQ(e.what(),
                 "item 'stress:--cpu 1': stress-ng is not installed (apt-get install stress-ng)");
  }
  EXPECT_TRUE(threads_left_named("load-cpu").empty());
  EXPECT_TRUE(threads_left_named("load-msg").empty());
  const std::vector<LoadReport> first = set.reports();
  sleep_ms(20);
  EXPECT_EQ(set.reports()[0].seconds, first[0].seconds) << "cpu load still running";
  EXPECT_EQ(set.reports()[0].ops, first[0].ops);
}

TEST(LoadSet, DestroyingARunningSetStopsIt) {
  {
    LoadSet set = parse_ok("cpu:1,fault:1,msg:1,io:1");
    set.start();
    sleep_ms(50);
    for (const LoadReport& r : set.reports()) EXPECT_GT(r.seconds, 0) << r.spec;
  }
  for (const char* prefix : {"load-cpu", "load-fault", "load-msg", "load-io"}) {
    EXPECT_TRUE(threads_left_named(prefix).empty()) << prefix;
  }
}

}  // namespace
}  // namespace rtgate::load
