// The readiness verdicts over fixture machines: every item judged ok on a tuned RT board, and
// each one's warn or bad, with its fix, where a desktop, a VM or a 6.12 fair server gets it wrong.
#include "framework/readiness/readiness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <sstream>

#include "tests/unit/readiness_fixtures.h"

namespace rtgate::readiness {
namespace {

using fixture::judge;

const Finding* find(const std::vector<Finding>& fs, const std::string& item) {
  for (const Finding& f : fs) {
    if (f.item == item) return &f;
  }
  return nullptr;
}

// Item -> level for the items of `fs`.
std::map<std::string, Level> levels(const std::vector<Finding>& fs) {
  std::map<std::string, Level> out;
  for (const Finding& f : fs) out[f.item] = f.level;
  return out;
}

TEST(Readiness, ATunedRtBoardIsReadyOnEveryItem) {
  const std::vector<Finding> fs = judge(fixture::rt_board(), {2, 3});
  for (const Finding& f : fs) {
    EXPECT_EQ(f.level, Level::kOk) << f.item << ": " << f.why << " (" << f.evidence << ")";
    EXPECT_FALSE(f.why.empty()) << f.item;
  }
  for (const char* item :
       {"preempt model", "cpu isolation", "irq affinity", "irqbalance", "workqueue cpumask",
        "writeback cpumask", "kthreadd affinity", "cpufreq", "idle states", "smt", "rt throttling",
        "clocksource", "hypervisor", "rt limits"}) {
    EXPECT_NE(find(fs, item), nullptr) << item;
  }
  EXPECT_EQ(summary(fs), "ready for RT measurement");
}

TEST(Readiness, ADesktopIsNotReadyAndEachItemSaysHowToFixIt) {
  const std::vector<Finding> fs = judge(fixture::desktop(), {2, 3});
  const std::map<std::string, Level> want = {{"preempt model", Level::kBad},
                                             {"cpu isolation", Level::kWarn},
                                             {"irq affinity", Level::kWarn},
                                             {"irqbalance", Level::kWarn},
                                             {"workqueue cpumask", Level::kWarn},
                                             {"cpufreq", Level::kWarn},
                                             {"cpu boost", Level::kWarn},
                                             {"idle states", Level::kWarn},
                                             {"smt", Level::kWarn},
                                             {"rt throttling", Level::kWarn},
                                             {"timer migration", Level::kWarn},
                                             {"transparent hugepages", Level::kWarn},
                                             {"khugepaged", Level::kWarn},
                                             {"kthreadd affinity", Level::kWarn},
                                             {"swap", Level::kWarn},
                                             {"ksm", Level::kWarn},
                                             {"numa balancing", Level::kWarn},
                                             {"nmi watchdog", Level::kWarn},
                                             {"soft lockup watchdog", Level::kWarn},
                                             {"clocksource", Level::kBad},
                                             {"hypervisor", Level::kOk},
                                             {"rt limits", Level::kBad}};
  EXPECT_EQ(levels(fs), want);
  for (const Finding& f : fs) {
    if (f.level != Level::kOk) {
      EXPECT_FALSE(f.fix.empty()) << f.item;
      EXPECT_FALSE(f.evidence.empty()) << f.item;
    }
  }
  EXPECT_NE(find(fs, "preempt model")->evidence.find("CONFIG_PREEMPT_VOLUNTARY=y"),
            std::string::npos);
  EXPECT_NE(find(fs, "preempt model")->fix.find("preempt=full"), std::string::npos);
  EXPECT_NE(find(fs, "cpu isolation")->fix.find("isolcpus=managed_irq,domain,2-3 nohz_full=2-3"),
            std::string::npos);
  // Housekeeping CPUs 0-1: the workqueue mask that keeps them there.
  EXPECT_EQ(find(fs, "workqueue cpumask")->fix, "echo 3 > /sys/devices/virtual/workqueue/cpumask");
  EXPECT_EQ(summary(fs), "not ready: 3 bad, 18 warn");
}

TEST(Readiness, AVmSaysItIsOneAndWhetherItsStealIsVisible) {
  std::vector<Finding> fs = judge(fixture::vm(2820), {0, 1});
  EXPECT_EQ(find(fs, "hypervisor")->level, Level::kWarn);
  EXPECT_NE(find(fs, "hypervisor")->why.find("QEMU"), std::string::npos);
  EXPECT_EQ(find(fs, "clocksource")->level, Level::kWarn);
  EXPECT_EQ(find(fs, "preempt model")->level, Level::kBad);  // the mode cannot be read
  EXPECT_EQ(find(fs, "rt limits")->level, Level::kOk);       // root: CAP_SYS_NICE, CAP_IPC_LOCK
  fs = judge(fixture::vm(0), {0, 1});
  EXPECT_EQ(find(fs, "hypervisor")->level, Level::kBad);
  EXPECT_NE(find(fs, "hypervisor")->why.find("look like the kernel's"), std::string::npos);
  // One vCPU: nothing can be isolated, and the verdict says so rather than asking for it.
  fixture::Files one = fixture::vm(5);
  one["/sys/devices/system/cpu/online"] = "0\n";
  fs = judge(one, {0});
  EXPECT_NE(find(fs, "cpu isolation")->why.find("one CPU online"), std::string::npos);
}

TEST(Readiness, TheFairServerOf612StallsAFifoThreadAndIsTurnedOff) {
  const std::vector<Finding> fs = judge(fixture::rt_612_fair_server(), {2, 3});
  const Finding* f = find(fs, "fair server");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->level, Level::kWarn);
  EXPECT_NE(f->why.find("50 ms a second"), std::string::npos) << f->why;
  EXPECT_NE(
      f->fix.find(
          "for c in 2 3; do echo 0 > /sys/kernel/debug/sched/fair_server/cpu$c/runtime; done"),
      std::string::npos)
      << f->fix;
  EXPECT_EQ(summary(fs), "ready for RT measurement, with 1 warning");
  fixture::Files off = fixture::rt_612_fair_server();
  for (int c = 0; c < 4; ++c)
    off["/sys/kernel/debug/sched/fair_server/cpu" + std::to_string(c) + "/runtime"] = "0\n";
  EXPECT_EQ(find(judge(off, {2, 3}), "fair server")->level, Level::kOk);
}

TEST(Readiness, MeasuringOutsideTheIsolatedCpusIsBad) {
  const std::vector<Finding> fs = judge(fixture::rt_board(), {0, 1});
  EXPECT_EQ(find(fs, "cpu isolation")->level, Level::kBad);
  EXPECT_EQ(find(fs, "irq affinity")->level, Level::kWarn);
  EXPECT_NE(find(fs, "irq affinity")->fix.find("do echo 2-3 > $i/smp_affinity_list"),
            std::string::npos)
      << find(fs, "irq affinity")->fix;
  EXPECT_EQ(find(fs, "workqueue cpumask")->level, Level::kWarn);
}

// Measuring every CPU leaves none for interrupts: the fix keeps the first for them and says to
// measure the rest (moving them onto the measured CPUs themselves would change nothing).
TEST(Readiness, InterruptsOfAMachineMeasuredWhollyGoToItsFirstCpu) {
  const std::vector<Finding> fs = judge(fixture::desktop(), {0, 1, 2, 3});
  const Finding* irq = find(fs, "irq affinity");
  ASSERT_NE(irq, nullptr);
  ASSERT_EQ(irq->level, Level::kWarn);
  EXPECT_NE(irq->fix.find("do echo 0 > $i/smp_affinity_list"), std::string::npos) << irq->fix;
  EXPECT_NE(irq->fix.find("# then measure with --cpus 1-3"), std::string::npos) << irq->fix;
}

// Each fix writes what the machine judged has: a sysctl the check read under /proc/sys, or a
// sysfs or procfs file that exists there. (Boot parameters and sysctl names are checked against
// the kernel's own documentation in readiness_docs_test.cpp.)
TEST(Readiness, EveryFixWritesASysctlOrFileTheMachineHas) {
  const fixture::Files machine = fixture::merged(fixture::desktop(), fixture::rt_612_fair_server());
  const std::regex sysctl(R"(sysctl -w ([a-z_.]+)=)");
  const std::regex write(R"(> (/(sys|proc)/[A-Za-z0-9_/$.\[\]*-]+))");
  int checked = 0;
  for (const Finding& f : fixture::untuned_findings()) {
    for (std::sregex_iterator m(f.fix.begin(), f.fix.end(), sysctl), end; m != end; ++m) {
      std::string path = "/proc/sys/" + (*m)[1].str();
      std::replace(path.begin(), path.end(), '.', '/');
      EXPECT_TRUE(machine.contains(path)) << f.item << ": " << f.fix;
      ++checked;
    }
    for (std::sregex_iterator m(f.fix.begin(), f.fix.end(), write), end; m != end; ++m) {
      const std::string path = (*m)[1].str();
      if (path.find('$') != std::string::npos || path.find('*') != std::string::npos) continue;
      bool known = machine.contains(path);
      for (const auto& [p, v] : machine) known = known || p.rfind(path, 0) == 0;
      EXPECT_TRUE(known || path == "/proc/irq/default_smp_affinity_list") << f.item << ": " << path;
      ++checked;
    }
  }
  EXPECT_GE(checked, 10);
}

}  // namespace
}  // namespace rtgate::readiness
