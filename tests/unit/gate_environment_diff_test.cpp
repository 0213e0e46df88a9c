#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "gate/noise/environment_diff.h"

namespace rtgate::gate {
namespace {

Environment host() {
  Environment e;
  e.kernel_release = "6.1.0-rt";
  e.kernel_version = "#1 SMP PREEMPT_RT 2024-01-01";
  e.preempt_model = "rt";
  e.realtime = true;
  e.cmdline = "BOOT_IMAGE=/vmlinuz-6.1.0-rt root=/dev/sda1 isolcpus=1";
  e.cpu_model = "Test CPU @ 3.0GHz";
  e.online_cpus = 2;
  e.isolated_cpus = "1";
  e.rt_runtime_us = 950000;
  e.clocksource = "tsc";
  e.governors = "performance";
  e.smt = "on";
  e.memory_total_kb = 16'000'000;
  e.extra["cpu_dma_latency_hold"] = "0 us";
  return e;
}

struct Change {
  const char* field;
  std::function<void(Environment&)> apply;
};

TEST(GateEnvironmentDiff, IdenticalEnvironmentsHaveNoDifferences) {
  const EnvironmentDiff d = diff_environments(host(), host());
  EXPECT_FALSE(d.mismatch);
  EXPECT_TRUE(d.differences.empty());
  // Unknown on both sides is equal, not a difference.
  EXPECT_TRUE(diff_environments(Environment{}, Environment{}).differences.empty());
}

TEST(GateEnvironmentDiff, EachDecisiveFieldIsAMismatch) {
  const std::vector<Change> changes = {
      {"cpu_model", [](Environment& e) { e.cpu_model = "Other CPU"; }},
      {"online_cpus", [](Environment& e) { e.online_cpus = 4; }},
      {"preempt_model", [](Environment& e) { e.preempt_model = "full"; }},
      {"cmdline", [](Environment& e) { e.cmdline += " nohz_full=1"; }},
      {"realtime", [](Environment& e) { e.realtime = false; }},
      {"isolated_cpus", [](Environment& e) { e.isolated_cpus = ""; }},
      {"nohz_full", [](Environment& e) { e.nohz_full = "1"; }},
      {"smt", [](Environment& e) { e.smt = "off"; }},
      {"clocksource", [](Environment& e) { e.clocksource = "hpet"; }},
      {"hypervisor", [](Environment& e) { e.hypervisor = "KVMKVMKVM"; }},
      {"rt_runtime_us", [](Environment& e) { e.rt_runtime_us = -1; }},
      {"mlockall", [](Environment& e) { e.extra["mlockall"] = "ENOMEM"; }},
      {"cpu_dma_latency_hold",
       [](Environment& e) { e.extra["cpu_dma_latency_hold"] = "EACCES opening /dev/x"; }},
  };
  for (const Change& c : changes) {
    Environment cur = host();
    c.apply(cur);
    const EnvironmentDiff d = diff_environments(host(), cur);
    EXPECT_TRUE(d.mismatch) << c.field;
    // A hypervisor makes the board another class too.
    const std::string field = c.field;
    ASSERT_EQ(d.differences.size(), field == "hypervisor" ? 2u : 1u) << c.field;
    // The cmdline differs by parameter: "cmdline nohz_full: (absent) -> '1'".
    EXPECT_EQ(d.differences[0].rfind(field + (field == "cmdline" ? " " : ": "), 0), 0u)
        << d.differences[0];
  }
}

TEST(GateEnvironmentDiff, KernelAndOtherListedFieldsAreNotAMismatch) {
  Environment cur = host();
  cur.kernel_release = "6.6.0-rt";
  cur.kernel_version = "#2 SMP PREEMPT_RT 2024-06-01";
  cur.governors = "powersave";
  cur.memory_total_kb = 15'999'000;
  const EnvironmentDiff d = diff_environments(host(), cur);
  EXPECT_FALSE(d.mismatch);
  ASSERT_EQ(d.differences.size(), 4u);
  EXPECT_EQ(d.differences[0], "kernel_release: '6.1.0-rt' -> '6.6.0-rt'");
  EXPECT_EQ(d.differences[1].rfind("kernel_version: ", 0), 0u);
  EXPECT_EQ(d.differences[2], "governors: 'performance' -> 'powersave'");
  EXPECT_EQ(d.differences[3], "memory_total_kb: 16000000 -> 15999000");
}

TEST(GateEnvironmentDiff, CmdlineIgnoresTheKernelImage) {
  Environment cur = host();
  cur.kernel_release = "6.6.0-rt";
  cur.cmdline = "BOOT_IMAGE=/vmlinuz-6.6.0-rt initrd=/initrd-6.6 isolcpus=1 root=/dev/sda1";
  EnvironmentDiff d = diff_environments(host(), cur);
  EXPECT_FALSE(d.mismatch);
  ASSERT_EQ(d.differences.size(), 1u);
  EXPECT_EQ(d.differences[0].rfind("kernel_release", 0), 0u);
  cur.cmdline.replace(cur.cmdline.find("isolcpus=1"), 10, "isolcpus=2");
  d = diff_environments(host(), cur);
  EXPECT_TRUE(d.mismatch);
  EXPECT_EQ(d.differences[0], "cmdline isolcpus: '1' -> '2'");
}

TEST(GateEnvironmentDiff, CmdlineIsComparedParameterByParameter) {
  Environment base = host(), cur = host();
  // The lab board's own parameters never matter; a reordering does not either.
  base.cmdline = "console=ttyS0 rtgate_lab.out=/jobs/a rtgate_lab.host=lab isolcpus=1";
  cur.cmdline = "isolcpus=1 rtgate_lab.out=/jobs/b console=ttyS0";
  EXPECT_TRUE(diff_environments(base, cur).differences.empty());
  // A flag, a changed value and a repeated parameter each name the parameter and both values.
  cur.cmdline = "isolcpus=1-3 console=ttyS0 threadirqs console=tty0";
  const EnvironmentDiff d = diff_environments(base, cur);
  EXPECT_TRUE(d.mismatch);
  ASSERT_EQ(d.differences.size(), 3u);
  EXPECT_EQ(d.differences[0], "cmdline console: 'ttyS0' -> 'ttyS0', 'tty0'");
  EXPECT_EQ(d.differences[1], "cmdline isolcpus: '1' -> '1-3'");
  EXPECT_EQ(d.differences[2], "cmdline threadirqs: (absent) -> (set)");
  // The deterministic board's clock is not a parameter to compare but a board class.
  cur.cmdline = base.cmdline + " rtgate_lab.clock=icount1";
  const EnvironmentDiff icount = diff_environments(base, cur);
  ASSERT_EQ(icount.differences.size(), 1u);
  EXPECT_EQ(icount.differences[0], "board_class: 'bare_metal' -> 'deterministic'");
  EXPECT_TRUE(icount.mismatch);
}

TEST(GateEnvironmentDiff, MlockallFailureOnOneSideIsAMismatch) {
  Environment cur = host();
  cur.extra["mlockall"] = "mlockall: Cannot allocate memory";
  EnvironmentDiff d = diff_environments(host(), cur);
  EXPECT_TRUE(d.mismatch);
  ASSERT_EQ(d.differences.size(), 1u);
  EXPECT_EQ(d.differences[0], "mlockall: (no failure) -> failed: mlockall: Cannot allocate memory");
  // Failed on both sides is the same condition, whatever the wording.
  Environment base = host();
  base.extra["mlockall"] = "ENOMEM";
  EXPECT_TRUE(diff_environments(base, cur).differences.empty());
}

TEST(GateEnvironmentDiff, DmaLatencyHoldComparesHeldNotHeldAndNotAttempted) {
  Environment not_attempted = host();
  not_attempted.extra.erase("cpu_dma_latency_hold");
  EnvironmentDiff d = diff_environments(host(), not_attempted);
  EXPECT_TRUE(d.mismatch);
  ASSERT_EQ(d.differences.size(), 1u);
  EXPECT_EQ(d.differences[0], "cpu_dma_latency_hold: held at 0 us -> not attempted");
  Environment failed_a = host(), failed_b = host();
  failed_a.extra["cpu_dma_latency_hold"] = "EACCES";
  failed_b.extra["cpu_dma_latency_hold"] = "ENOENT";
  EXPECT_TRUE(diff_environments(failed_a, failed_b).differences.empty());
  EXPECT_TRUE(diff_environments(not_attempted, not_attempted).differences.empty());
}

TEST(GateEnvironmentDiff, DifferencesComeInTheDocumentedOrder) {
  Environment cur = host();
  cur.memory_total_kb = 1;
  cur.kernel_release = "6.6.0-rt";
  cur.extra["mlockall"] = "ENOMEM";
  cur.clocksource = "hpet";
  cur.realtime = false;
  cur.cpu_model = "Other CPU";
  const EnvironmentDiff d = diff_environments(host(), cur);
  std::vector<std::string> fields;
  for (const std::string& line : d.differences) fields.push_back(line.substr(0, line.find(':')));
  EXPECT_EQ(fields, (std::vector<std::string>{"cpu_model", "realtime", "clocksource", "mlockall",
                                              "kernel_release", "memory_total_kb"}));
}

}  // namespace
}  // namespace rtgate::gate

namespace rtgate::gate {
namespace {

// The two sides' readiness, before anything about the kernel: an item judged otherwise on each
// side is said first, and alone does not stop the gate (its facts are compared on their own).
TEST(GateEnvironmentDiff, ReadinessThatDiffersIsSaidFirst) {
  Environment base = host(), cur = host();
  base.readiness = {{.item = "cpu isolation", .level = "ok", .why = "", .fix = "", .evidence = ""},
                    {.item = "smt", .level = "warn", .why = "", .fix = "", .evidence = ""}};
  cur.readiness = base.readiness;
  EXPECT_TRUE(diff_environments(base, cur).differences.empty());
  cur.readiness[0].level = "bad";
  cur.kernel_release = "6.1.0-rt2";
  const EnvironmentDiff d = diff_environments(base, cur);
  ASSERT_EQ(d.differences.size(), 2u);
  EXPECT_EQ(d.differences[0], "readiness cpu isolation: ok -> bad");
  EXPECT_EQ(d.differences[1].rfind("kernel_release", 0), 0u);
  EXPECT_FALSE(d.mismatch);
}

}  // namespace
}  // namespace rtgate::gate
