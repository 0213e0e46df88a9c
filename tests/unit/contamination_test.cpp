// Missed periods are the kernel's symptom, not contamination: they mark a case only beside
// something outside the system under test that could take its CPU's time, and are named with it.
#include "results/contamination.h"

#include <gtest/gtest.h>

namespace rtgate {
namespace {

SuiteResult cyclic_on_two_cpus(double missed0, double missed1) {
  SuiteResult s;
  s.name = "cyclic";
  for (int cpu : {0, 1}) {
    Case c;
    c.name = "cpu" + std::to_string(cpu);
    c.labels["cpu"] = std::to_string(cpu);
    c.metrics.push_back(Metric::count("missed_periods", 0, "periods", Metric::Gating::kEventRate));
    c.metrics.back().samples = {cpu == 0 ? missed0 : missed1};
    s.cases.push_back(std::move(c));
  }
  return s;
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += s + "; ";
  return out;
}

TEST(Contamination, MissedPeriodsAloneAreTheKernelsAndContaminateNothing) {
  SuiteResult s = cyclic_on_two_cpus(278, 3);
  Hygiene h;
  h.rt_throttled = 0;
  assess_hygiene(s, h);
  EXPECT_FALSE(s.contaminated) << joined(s.contaminated_reasons);
  EXPECT_FALSE(s.cases[0].contaminated) << joined(s.cases[0].contaminated_reasons);
  EXPECT_EQ(s.hygiene.missed_periods, 281u);
}

TEST(Contamination, StealOnTheCaseCpuNamesTheMissedPeriodsItMayAccountFor) {
  SuiteResult s = cyclic_on_two_cpus(12, 5);
  Hygiene h;
  h.rt_throttled = 0;
  h.steal_ms_per_cpu = {{0, 0}, {1, 30}};
  h.steal_ms = 30;
  assess_hygiene(s, h);
  EXPECT_TRUE(s.contaminated);
  EXPECT_FALSE(s.cases[0].contaminated) << joined(s.cases[0].contaminated_reasons);
  ASSERT_TRUE(s.cases[1].contaminated);
  const std::string why = joined(s.cases[1].contaminated_reasons);
  EXPECT_NE(why.find("ms of CPU steal on CPU 1"), std::string::npos) << why;
  EXPECT_NE(why.find("5 missed periods, which these may account for"), std::string::npos) << why;
}

TEST(Contamination, AForeignRtThreadContaminatesTheCpusItMayRunOn) {
  SuiteResult s = cyclic_on_two_cpus(40, 0);
  Hygiene h;
  h.rt_throttled = 0;
  h.foreign_rt_threads.push_back({.pid = 42,
                                  .tid = 42,
                                  .comm = "spinner",
                                  .policy = "fifo",
                                  .priority = 98,
                                  .cpus_allowed = "0",
                                  .runtime_ns = 5'000'000});
  assess_hygiene(s, h);
  const std::string why0 = joined(s.cases[0].contaminated_reasons);
  EXPECT_NE(why0.find("'spinner'"), std::string::npos) << why0;
  EXPECT_NE(why0.find("40 missed periods"), std::string::npos) << why0;
  EXPECT_FALSE(s.cases[1].contaminated) << joined(s.cases[1].contaminated_reasons);
}

}  // namespace
}  // namespace rtgate
