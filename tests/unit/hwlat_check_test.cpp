// The hwlat readiness item (framework/trace/hwlat_check.h): how a run's figures are judged, and
// against this machine's tracefs, that a kernel without the tracer is said as such, and where it
// exists (the virtual board: tests/lab/readiness_test.sh) that a run, a stopped run and a refused
// one put back every global knob and leave no instance. Tracefs needs root; skips otherwise.
#include "framework/trace/hwlat_check.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "framework/measure/clock.h"
#include "framework/trace/kernel_tracer.h"
#include "framework/trace/trace_session.h"

namespace rtgate::trace {
namespace {

using readiness::Level;

const std::string kTracing = "/sys/kernel/tracing/";

std::string read_file(const std::string& name) {
  std::ifstream in(kTracing + name);
  std::string v;
  std::getline(in, v);
  return v;
}

// Every global file an hwlat run writes, with its value, and the instances.
std::string state() {
  std::string out;
  for (const char* f : {"hwlat_detector/window", "hwlat_detector/width", "hwlat_detector/mode",
                        "tracing_thresh", "current_tracer"}) {
    out += std::string(f) + "=" + read_file(f) + "\n";
  }
  for (const std::string& n : rtgate_instances()) out += "instance " + n + "\n";
  return out;
}

std::string hwlat_missing() {
  if (geteuid() != 0) return "needs root";
  return KernelTracer::unavailable("hwlat", "CONFIG_HWLAT_TRACER");
}

TEST(HwlatCheck, AGapIsBadAndItsFixNamesTheFirmwareOrTheHost) {
  const HwlatSummary s{.seconds = 10,
                       .threshold_us = 10,
                       .cpus = {2, 3},
                       .gaps = 3,
                       .max_inner_us = 25,
                       .max_outer_us = 31,
                       .nmis = 2};
  const readiness::Finding metal = judge_hwlat(s, false);
  EXPECT_EQ(metal.item, "hardware latency");
  EXPECT_EQ(metal.level, Level::kBad);
  EXPECT_NE(metal.why.find("up to 31 us"), std::string::npos) << metal.why;
  EXPECT_NE(metal.why.find("SMIs"), std::string::npos) << metal.why;
  EXPECT_NE(metal.fix.find("firmware"), std::string::npos) << metal.fix;
  EXPECT_EQ(metal.evidence,
            "hwlat 10 s on CPUs 2-3 (window 1 s, width 0.5 s, threshold 10 us): 3 gaps, max inner "
            "25 us, outer 31 us, 2 NMIs");
  const readiness::Finding vm = judge_hwlat(s, true);
  EXPECT_EQ(vm.level, Level::kBad);
  EXPECT_NE(vm.why.find("host"), std::string::npos) << vm.why;
  EXPECT_NE(vm.fix.find("vCPUs"), std::string::npos) << vm.fix;
}

TEST(HwlatCheck, NoGapIsOkAndAStoppedRunWithoutOneIsAWarning) {
  HwlatSummary s{.seconds = 5, .threshold_us = 10, .cpus = {1}};
  const readiness::Finding ok = judge_hwlat(s, false);
  EXPECT_EQ(ok.level, Level::kOk);
  EXPECT_TRUE(ok.fix.empty());
  EXPECT_NE(ok.evidence.find(": 0 gaps"), std::string::npos) << ok.evidence;
  s.stopped = true;
  s.seconds = 1.5;
  const readiness::Finding stopped = judge_hwlat(s, false);
  EXPECT_EQ(stopped.level, Level::kWarn);
  EXPECT_NE(stopped.why.find("stopped after 1.5 s"), std::string::npos) << stopped.why;
  // A gap found before the stop is still a gap.
  s.gaps = 1;
  EXPECT_EQ(judge_hwlat(s, false).level, Level::kBad);
}

// On a kernel without the tracer (this VM's), the item says why and asks for exit 4.
TEST(HwlatCheck, AKernelWithoutTheTracerIsNotMeasuredAndSaysWhy) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  if (hwlat_missing().empty()) GTEST_SKIP() << "this kernel has hwlat";
  bool unavailable = false;
  const readiness::Finding f = run_hwlat(
      {.seconds = 1}, [] { return false; }, &unavailable);
  EXPECT_TRUE(unavailable);
  EXPECT_EQ(f.level, Level::kWarn);
  EXPECT_EQ(f.why, "not measured: the kernel has no hwlat tracer (CONFIG_HWLAT_TRACER)");
}

// The number after `key` in a finding's evidence ("threshold 10 us" -> 10), or -1.
double figure_after(const std::string& evidence, const std::string& key) {
  const std::size_t at = evidence.find(key);
  return at == std::string::npos ? -1 : std::stod(evidence.substr(at + key.size()));
}

// Where hwlat exists: a run with a threshold of its own, a run stopped early and a run refused
// because another instance holds the tracer all leave the global state as they found it, and
// the kernel's memory of the last threshold too (the next default run uses the same as before).
TEST(HwlatCheck, EveryRunPutsBackTheGlobalKnobsAndLeavesNoInstance) {
  if (const std::string why = hwlat_missing(); !why.empty()) GTEST_SKIP() << why;
  const std::string before = state();
  bool unavailable = true;
  const auto never = [] { return false; };
  const readiness::Finding first = run_hwlat({.seconds = 1, .cpus = {0}}, never, &unavailable);
  EXPECT_FALSE(unavailable) << first.why;
  EXPECT_NE(first.level, Level::kWarn) << first.why;
  EXPECT_NE(first.evidence.find("on CPUs 0 "), std::string::npos) << first.evidence;
  const double threshold = figure_after(first.evidence, "threshold ");
  EXPECT_GT(threshold, 0) << first.evidence;
  EXPECT_EQ(state(), before);

  const auto own = static_cast<std::int64_t>(threshold) + 7;
  const readiness::Finding f =
      run_hwlat({.seconds = 1, .cpus = {0}, .threshold_us = own}, never, &unavailable);
  EXPECT_EQ(figure_after(f.evidence, "threshold "), static_cast<double>(own)) << f.evidence;
  EXPECT_EQ(state(), before);

  const std::int64_t stop_at = monotonic_ns() + 2'000'000'000;
  const readiness::Finding stopped = run_hwlat(
      {.seconds = 60, .cpus = {0}}, [&] { return monotonic_ns() >= stop_at; }, &unavailable);
  EXPECT_FALSE(unavailable);
  EXPECT_LT(figure_after(stopped.evidence, "hwlat "), 3) << stopped.evidence;
  EXPECT_EQ(figure_after(stopped.evidence, "threshold "), threshold) << stopped.evidence;
  EXPECT_EQ(state(), before);

  ASSERT_EQ(mkdir((kTracing + "instances/hwlat-holder").c_str(), 0755), 0);
  std::ofstream(kTracing + "instances/hwlat-holder/current_tracer") << "hwlat\n";
  const readiness::Finding refused = run_hwlat({.seconds = 1, .cpus = {0}}, never, &unavailable);
  std::ofstream(kTracing + "instances/hwlat-holder/current_tracer") << "nop\n";
  rmdir((kTracing + "instances/hwlat-holder").c_str());
  EXPECT_TRUE(unavailable);
  EXPECT_NE(refused.why.find("cannot start while hwlat runs (tracefs instance hwlat-holder"),
            std::string::npos)
      << refused.why;
  EXPECT_EQ(state(), before);
}

}  // namespace
}  // namespace rtgate::trace
