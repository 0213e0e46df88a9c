// TraceHook on the real tracefs: markers over the threshold, and the break that freezes the trace
// with its own marker last and stops the run. Needs root; skips otherwise.
#include "framework/trace/trace_hook.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include "framework/trace/tracefs_api.h"

namespace rtgate::trace {
namespace {

TEST(TraceHook, FormatsAMarkerWithoutAllocating) {
  char buf[160];
  const std::size_t n = TraceHook::format_marker(buf, sizeof buf, "cpu1", 612345, 123456789);
  EXPECT_EQ(std::string(buf, n), "rtgate: cpu1 latency_ns=612345 deadline_ns=123456789\n");
  EXPECT_EQ(std::string(buf, TraceHook::format_marker(buf, sizeof buf, "probe", 7, 8, true)),
            "rtgate: probe latency_ns=7 deadline_ns=8 break\n");
  char tiny[10];
  EXPECT_EQ(TraceHook::format_marker(tiny, sizeof tiny, "cpu1", 1, 2), sizeof tiny) << "clipped";
}

std::unique_ptr<TraceSession> session_or_skip() {
  if (geteuid() != 0) return nullptr;
  std::string why;
  TraceConfig c;
  c.buffer_kb = 256;
  c.events = {};
  return TraceSession::start(c, &why);
}

// Pins the calling thread to one CPU for the rest of the test (the hook keeps a worst per CPU).
void pin_to_cpu0() {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(0, &set);
  ASSERT_EQ(sched_setaffinity(0, sizeof set, &set), 0);
}

TEST(TraceHook, MarksOverTheThresholdAndBreaksOverTheBreak) {
  auto s = session_or_skip();
  if (!s) GTEST_SKIP() << "needs root and tracefs";
  pin_to_cpu0();
  std::atomic<bool> stop{false};
  TraceHook hook(*s, 100'000, 500'000, &stop);
  LiveStats live("cpu0");
  EXPECT_TRUE(hook.on_sample(live, 1000, 40'000));   // the CPU's first worst: marked
  EXPECT_TRUE(hook.on_sample(live, 1500, 30'000));   // under the threshold, not a worst: not
  EXPECT_TRUE(hook.on_sample(live, 2000, 150'000));  // over the threshold
  EXPECT_TRUE(hook.on_sample(live, 2500, 120'000));  // over the threshold, not a worst
  EXPECT_EQ(hook.marks(), 3u);
  EXPECT_FALSE(hook.broke());
  EXPECT_FALSE(hook.on_sample(live, 3000, 612'345));  // the break
  EXPECT_TRUE(hook.broke());
  EXPECT_TRUE(stop.load());
  EXPECT_EQ(hook.break_reason(), "break: cpu0 latency 612.3 us over --break-us 500");
  hook.on_sample(live, 4000, 200'000);  // after the freeze: written, not recorded
  const std::string text = s->read_text();
  EXPECT_NE(text.find("latency_ns=40000 "), std::string::npos) << text;
  EXPECT_EQ(text.find("latency_ns=30000 "), std::string::npos) << text;
  EXPECT_NE(text.find("latency_ns=120000 "), std::string::npos) << text;
  const std::size_t first = text.find("rtgate: cpu0 latency_ns=150000 deadline_ns=2000");
  const std::size_t last = text.find("rtgate: cpu0 latency_ns=612345 deadline_ns=3000 break");
  ASSERT_NE(first, std::string::npos) << text;
  ASSERT_NE(last, std::string::npos) << text;
  EXPECT_LT(first, last);
  EXPECT_EQ(text.find("latency_ns=200000"), std::string::npos) << "the break's marker is last";
  tracefs_instance* inst = tracefs_instance_alloc(nullptr, s->name().c_str());
  EXPECT_EQ(tracefs_trace_is_on(inst), 0);
  tracefs_instance_free(inst);
}

// In the loop: every sample over a 1 ns threshold is marked (the run's samples, one marker each).
TEST(TraceHook, InThePeriodicLoopEverySampleOverTheThresholdIsMarked) {
  auto s = session_or_skip();
  if (!s) GTEST_SKIP() << "needs root and tracefs";
  TraceHook hook(*s, 1, 0, nullptr);
  LiveStats live("probe");
  PeriodicRecorder rec(1'000'000, 1'000'000'000, 4, live);
  std::atomic<bool> stop{false};
  const std::int64_t start = monotonic_ns();
  PeriodicLoop(rec, live, 1'000'000, &hook).run(start, start + 10'000'000, stop);
  EXPECT_EQ(hook.marks(), rec.samples());
  EXPECT_FALSE(hook.broke());
}

}  // namespace
}  // namespace rtgate::trace
