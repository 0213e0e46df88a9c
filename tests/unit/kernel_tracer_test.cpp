// KernelTracer (framework/trace/kernel_tracer.h) against this machine's tracefs: a kernel without
// timerlat/osnoise is told apart with the reason the suites report, a start that fails leaves no
// instance and no changed knob, and where the tracers exist (the virtual board: tests/lab/
// tracers_test.sh) a run restores the global osnoise/* knobs. Needs root for tracefs; skips
// otherwise.
#include "framework/trace/kernel_tracer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>

#include "framework/measure/clock.h"

namespace rtgate::trace {
namespace {

std::string read_knob(const std::string& name) {
  std::ifstream in("/sys/kernel/tracing/osnoise/" + name);
  std::string v;
  std::getline(in, v);
  return v;
}

// This process's instances only: a start removes the stale ones an earlier test's SIGKILLed
// child left behind, which would otherwise read as a change this test made.
std::vector<std::string> own_instances() {
  const std::string mine = "rtgate-" + std::to_string(getpid()) + "-";
  std::vector<std::string> out;
  for (const std::string& n : rtgate_instances()) {
    if (n.rfind(mine, 0) == 0) out.push_back(n);
  }
  return out;
}

bool kernel_has(const std::string& tracer) {
  return KernelTracer::unavailable(tracer, "X").empty();
}

TEST(KernelTracer, AMissingTracerIsNamedWithItsConfigOption) {
  if (geteuid() != 0) {
    EXPECT_EQ(KernelTracer::unavailable("timerlat", "CONFIG_TIMERLAT_TRACER"),
              "the timerlat tracer needs root (tracefs)");
    GTEST_SKIP() << "needs root";
  }
  EXPECT_EQ(KernelTracer::unavailable("no_such_tracer", "CONFIG_NO_SUCH_TRACER"),
            "the kernel has no no_such_tracer tracer (CONFIG_NO_SUCH_TRACER)");
  EXPECT_EQ(KernelTracer::unavailable("nop", "-"), "") << "every kernel with tracefs has nop";
  // A prefix of a tracer's name is not that tracer.
  EXPECT_NE(KernelTracer::unavailable("no", "-"), "");
}

// A start that fails after its instance exists (here: a knob the kernel does not have, or a
// tracer it refuses) removes the instance and puts back every knob it wrote.
TEST(KernelTracer, AFailedStartLeavesNothingBehind) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  const std::vector<std::string> before = own_instances();
  const bool osnoise = kernel_has("osnoise");
  const std::string period = osnoise ? read_knob("timerlat_period_us") : "";
  std::string why;
  KernelTracerConfig c{.tracer = osnoise ? "no_such_tracer" : "timerlat",
                       .knobs = {{"timerlat_period_us", "4321"}},
                       .event = "timerlat",
                       .fields = {"context", "timer_latency", "seqnum"},
                       .buffer_kb = 256};
  EXPECT_EQ(KernelTracer::start(c, &why), nullptr);
  EXPECT_FALSE(why.empty());
  if (!osnoise) {
    EXPECT_NE(why.find("osnoise/"), std::string::npos) << why;
  } else {
    EXPECT_EQ(read_knob("timerlat_period_us"), period);
  }
  EXPECT_EQ(own_instances(), before);
}

// Where timerlat exists: events arrive, the knobs hold rtgate's values during the run and the
// old ones after it, on a normal end and when an exception unwinds through the owner.
TEST(KernelTracer, TimerlatRunsInItsInstanceAndRestoresTheKnobs) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  if (const std::string why = KernelTracer::unavailable("timerlat", "CONFIG_TIMERLAT_TRACER");
      !why.empty()) {
    GTEST_SKIP() << why;
  }
  const std::vector<std::string> before = own_instances();
  const std::string period = read_knob("timerlat_period_us");
  const std::string cpus = read_knob("cpus");
  KernelTracerConfig c{.tracer = "timerlat",
                       .cpus = {0},
                       .knobs = {{"timerlat_period_us", period == "2000" ? "3000" : "2000"}},
                       .event = "timerlat",
                       .fields = {"context", "timer_latency", "seqnum"},
                       .buffer_kb = 256};
  std::string why;
  auto t = KernelTracer::start(c, &why);
  ASSERT_NE(t, nullptr) << why;
  EXPECT_EQ(read_knob("timerlat_period_us"), c.knobs[0].second);
  EXPECT_EQ(read_knob("cpus"), "0");
  std::uint64_t events = 0, other_cpu = 0;
  t->collect_until(
      monotonic_ns() + 500'000'000, [] { return false; },
      [&](const TracerSample& s) {
        ++events;
        other_cpu += s.cpu != 0;
        EXPECT_LE(s.values[0], 2u) << "context";
      });
  EXPECT_GT(events, 10u);
  EXPECT_EQ(other_cpu, 0u);
  EXPECT_TRUE(t->disturbances().empty());
  t.reset();
  EXPECT_EQ(read_knob("timerlat_period_us"), period);
  EXPECT_EQ(read_knob("cpus"), cpus);
  EXPECT_EQ(own_instances(), before);

  EXPECT_THROW(
      {
        auto u = KernelTracer::start(c, &why);
        ASSERT_NE(u, nullptr) << why;
        throw std::runtime_error("a suite failing mid-run");
      },
      std::runtime_error);
  EXPECT_EQ(read_knob("timerlat_period_us"), period);
  EXPECT_EQ(own_instances(), before);
}

}  // namespace
}  // namespace rtgate::trace
