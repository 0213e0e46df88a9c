// Cause profiles (framework/trace/cause_profile.h): the class names that make one cause the same
// cause on another boot, which samples count and which classes took part in them, the slice sums
// the comparison's dispersion comes from, and merging runs.
#include "framework/trace/cause_profile.h"

#include <gtest/gtest.h>

namespace rtgate::trace {
namespace {

AnalysisPart task(const std::string& comm, const std::string& policy, int prio, std::int64_t ns) {
  return {.kind = "task", .name = comm, .pid = 1234, .policy = policy, .prio = prio, .ns = ns};
}

SampleAnalysis sample(std::int64_t deadline_ns, std::vector<AnalysisPart> parts) {
  SampleAnalysis a;
  a.deadline_ns = deadline_ns;
  for (const AnalysisPart& p : parts) a.latency_ns += p.ns;
  a.parts = std::move(parts);
  return a;
}

TEST(CauseProfile, CommPatternsHideCpuAndThreadNumbers) {
  EXPECT_EQ(comm_pattern("kworker/1:2H"), "kworker/*:*H");
  EXPECT_EQ(comm_pattern("kworker/u16:10"), "kworker/u*:*");
  EXPECT_EQ(comm_pattern("load-rt0"), "load-rt*");
  EXPECT_EQ(comm_pattern("irq/24-virtio0"), "irq/*-virtio*");
  EXPECT_EQ(comm_pattern("bash"), "bash");
}

TEST(CauseProfile, ClassesNameKindNameAndForTasksPolicyAndPriority) {
  EXPECT_EQ(cause_class(task("load-rt1", "SCHED_FIFO", 98, 1)), "task load-rt* (SCHED_FIFO 98)");
  EXPECT_EQ(cause_class(task("kworker/0:1", "SCHED_OTHER", 0, 1)),
            "task kworker/*:* (SCHED_OTHER)");
  EXPECT_EQ(cause_class(task("nice", "SCHED_OTHER", -5, 1)), "task nice (SCHED_OTHER -5)");
  EXPECT_EQ(cause_class(task("gone", "RT", 50, 1)), "task gone (RT 50)");
  EXPECT_EQ(cause_class({.kind = "softirq", .name = "NET_RX"}), "softirq NET_RX");
  EXPECT_EQ(cause_class({.kind = "irq", .name = "virtio0-input.0"}), "irq virtio0-input.0");
  EXPECT_EQ(cause_class({.kind = "vector", .name = "local_timer"}), "vector local_timer");
  EXPECT_EQ(cause_class({.kind = "idle", .name = "idle"}), "idle exit");
  EXPECT_EQ(cause_class({.kind = "self", .name = "cpu1"}), "self");
  EXPECT_EQ(cause_class({.kind = "host", .name = "vCPU not running"}), "host");
  EXPECT_EQ(cause_class({.kind = "untraced", .name = "not in the trace"}), "untraced");
}

TEST(CauseProfile, CountsSamplesOverTheThresholdAndClassesOverATenth) {
  CauseProfileBuilder b(50'000);
  // Under the threshold: not counted.
  b.add(sample(1, {task("load-rt0", "SCHED_FIFO", 98, 40'000)}));
  // 100 us: the FIFO task 80 us, NET_RX 15 us (15%), the local timer 5 us (5%: credited, not in).
  b.add(sample(2, {task("load-rt0", "SCHED_FIFO", 98, 80'000),
                   {.kind = "softirq", .name = "NET_RX", .ns = 15'000},
                   {.kind = "vector", .name = "local_timer", .ns = 5'000}}));
  // Two kworkers of one pattern count once for the sample, their time together.
  b.add(sample(3, {task("kworker/0:1", "SCHED_OTHER", 0, 30'000),
                   task("kworker/0:2", "SCHED_OTHER", 0, 30'000)}));
  b.skipped();
  const CauseProfile p = b.result();
  EXPECT_EQ(p.threshold_ns, 50'000);
  EXPECT_EQ(p.samples, 2u);
  EXPECT_EQ(p.not_analysed, 1u);
  EXPECT_EQ(p.ns, 160'000);
  EXPECT_EQ(p.slices, 1u);
  const CauseStats& fifo = p.causes.at("task load-rt* (SCHED_FIFO 98)");
  EXPECT_EQ(fifo.samples, 1u);
  EXPECT_EQ(fifo.ns, 80'000);
  EXPECT_EQ(p.causes.at("softirq NET_RX").samples, 1u);
  EXPECT_EQ(p.causes.at("vector local_timer").samples, 0u);
  EXPECT_EQ(p.causes.at("vector local_timer").ns, 5'000);
  const CauseStats& kw = p.causes.at("task kworker/*:* (SCHED_OTHER)");
  EXPECT_EQ(kw.samples, 1u);
  EXPECT_EQ(kw.ns, 60'000);
}

TEST(CauseProfile, SliceSumsAreThoseOfTheCountsOverTheRunsSpan) {
  CauseProfileBuilder b(1);
  const AnalysisPart irq{.kind = "irq", .name = "eth0", .ns = 10};
  const AnalysisPart self{.kind = "self", .ns = 10};
  // Slice 0: 3 samples, irq in 3. Slice 2: 2 samples, irq in 0. Slice 5: 1 sample, irq in 1.
  for (int i = 0; i < 3; ++i) b.add(sample(kSliceNs / 2, {irq}));
  for (int i = 0; i < 2; ++i) b.add(sample(2 * kSliceNs + 1, {self}));
  b.add(sample(5 * kSliceNs, {irq, self}));
  const CauseProfile p = b.result();
  EXPECT_EQ(p.slices, 6u);  // slices 0 to 5, the empty ones between included
  EXPECT_EQ(p.samples, 6u);
  EXPECT_EQ(p.causes.at("irq eth0").samples, 4u);
  EXPECT_DOUBLE_EQ(p.causes.at("irq eth0").slice_sq, 9 + 1);
  EXPECT_DOUBLE_EQ(p.causes.at("self").slice_sq, 4 + 1);
}

TEST(CauseProfile, MergingRunsAddsAndDifferentThresholdsAreMarked) {
  CauseProfileBuilder one(10), two(10), both(10);
  const SampleAnalysis a = sample(kSliceNs, {{.kind = "irq", .name = "eth0", .ns = 20}});
  const SampleAnalysis b = sample(9 * kSliceNs, {{.kind = "softirq", .name = "TIMER", .ns = 30}});
  one.add(a);
  two.add(b);
  both.add(a);
  both.add(b);
  CauseProfile merged;
  merged.merge(one.result());
  merged.merge(two.result());
  const CauseProfile expect = both.result();
  EXPECT_EQ(merged.threshold_ns, 10);
  EXPECT_EQ(merged.samples, expect.samples);
  // Each run's span: one slice each; one run from slice 1 to 9 spans nine.
  EXPECT_EQ(merged.slices, 2u);
  EXPECT_EQ(expect.slices, 9u);
  EXPECT_EQ(merged.ns, expect.ns);
  for (const auto& [name, s] : expect.causes) {
    EXPECT_EQ(merged.causes.at(name).samples, s.samples) << name;
    EXPECT_DOUBLE_EQ(merged.causes.at(name).slice_sq, s.slice_sq) << name;
  }
  CauseProfileBuilder other(20);
  other.add(sample(1, {{.kind = "irq", .name = "eth0", .ns = 25}}));
  merged.merge(other.result());
  EXPECT_EQ(merged.threshold_ns, -1);
}

}  // namespace
}  // namespace rtgate::trace
