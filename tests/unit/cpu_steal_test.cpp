// Host steal per CPU: both sources parsed exactly, and the better one chosen only where the
// kernel's config makes `.clock - .clock_task` mean steal.
#include "framework/env/cpu_steal.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

namespace rtgate {
namespace {

constexpr const char* kSchedDebug =
    "Sched Debug Version: v0.11, 6.18.44 #1\n"
    "ktime                                   : 43190013.230706\n"
    "\n"
    "cpu#0, 2445.432 MHz\n"
    "  .nr_running                    : 0\n"
    "  .clock                         : 43190088.753442\n"
    "  .clock_task                    : 42699849.760817\n"
    "\n"
    "rt_rq[0]:/\n"
    "  .rt_time                       : 0.000000\n"
    "\n"
    "cpu#1, 2445.432 MHz\n"
    "  .clock                         : 100.000001\n"
    "  .clock_task                    : 99.5\n";

TEST(CpuSteal, SchedDebugClocksGiveNanosecondSteal) {
  const auto steal = parse_sched_debug_steal(kSchedDebug);
  ASSERT_EQ(steal.size(), 2u);
  EXPECT_EQ(steal.at(0), 490238992625);  // 43190088.753442 ms - 42699849.760817 ms
  EXPECT_EQ(steal.at(1), 500001);
}

TEST(CpuSteal, ProcStatStealIsTicksTimesTheTickLength) {
  const char* text =
      "cpu  5219480 217367 693664 2349472 15855 0 3851 101256 0 0\n"
      "cpu0 2528354 100762 325846 1289006 4180 0 442 49814 0 0\n"
      "cpu1 2691126 116604 367818 1060466 11674 0 3409 51442 0 0\n"
      "intr 1 2 3\n";
  const auto steal = parse_proc_stat_steal(text, 100);
  ASSERT_EQ(steal.size(), 2u);
  EXPECT_EQ(steal.at(0), 49814LL * 10'000'000);
  EXPECT_EQ(steal.at(1), 51442LL * 10'000'000);
  EXPECT_TRUE(parse_proc_stat_steal("cpu0 1 2 3\n", 100).empty());  // no steal column
}

TEST(CpuSteal, OnlyAKernelThatSubtractsStealAloneGivesTheStealClock) {
  EXPECT_TRUE(config_gives_steal_clock("\nCONFIG_PARAVIRT_TIME_ACCOUNTING=y\n"));
  EXPECT_FALSE(config_gives_steal_clock(
      "\nCONFIG_PARAVIRT_TIME_ACCOUNTING=y\nCONFIG_IRQ_TIME_ACCOUNTING=y\n"));
  EXPECT_FALSE(config_gives_steal_clock("\n# CONFIG_PARAVIRT_TIME_ACCOUNTING is not set\n"));
}

TEST(CpuSteal, ChoosesTheSourceAndSaysWhy) {
  const std::string path = ::testing::TempDir() + "sched_debug_" + std::to_string(getpid());
  std::ofstream(path) << kSchedDebug;
  const CpuSteal clock(path, "\nCONFIG_PARAVIRT_TIME_ACCOUNTING=y\n");
  EXPECT_TRUE(clock.nanosecond()) << clock.describe();
  const StealReading r = clock.read();
  EXPECT_EQ(r.source, "steal clock");
  EXPECT_EQ(r.ns.at(1), 500001);
  const CpuSteal ticks(path, "\nCONFIG_PARAVIRT_TIME_ACCOUNTING=y\nCONFIG_IRQ_TIME_ACCOUNTING=y\n");
  EXPECT_FALSE(ticks.nanosecond());
  EXPECT_NE(ticks.describe().find("IRQ time"), std::string::npos) << ticks.describe();
  EXPECT_EQ(ticks.read().source, "/proc/stat");  // this machine's own
  std::remove(path.c_str());
}

TEST(CpuSteal, ThisMachineHasAReadingForEveryOnlineCpu) {
  const CpuSteal steal;
  const StealReading r = steal.read();
  EXPECT_FALSE(r.source.empty()) << steal.describe();
  EXPECT_EQ(static_cast<long>(r.ns.size()), sysconf(_SC_NPROCESSORS_ONLN)) << steal.describe();
  std::printf("  steal source: %s\n", steal.describe().c_str());
}

}  // namespace
}  // namespace rtgate
