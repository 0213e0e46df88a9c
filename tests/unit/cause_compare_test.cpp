// Comparing cause profiles (gate/cause/cause_compare.h, lock_compare.h, cause_evidence.h):
// an injected cause is named first, equal profiles name nothing, what cannot be compared says
// why, and a regressed latency verdict's reason names its case's leading new cause.
#include "gate/cause/cause_compare.h"

#include <gtest/gtest.h>

#include <functional>

#include "framework/trace/cause_profile.h"
#include "gate/cause/cause_evidence.h"
#include "gate/cause/lock_compare.h"

namespace rtgate::gate {
namespace {

using trace::AnalysisPart;
using trace::CauseProfile;
using trace::SampleAnalysis;

constexpr std::int64_t kThreshold = 50'000;
const AnalysisPart kSelf{.kind = "self", .name = "cpu1", .ns = 20'000};
const AnalysisPart kTimer{.kind = "vector", .name = "local_timer", .ns = 15'000};
const AnalysisPart kNetRx{.kind = "softirq", .name = "NET_RX", .ns = 25'000};
const AnalysisPart kHog{.kind = "task",
                        .name = "load-rt0",
                        .pid = 99,
                        .policy = "SCHED_FIFO",
                        .prio = 98,
                        .ns = 300'000};

// `slices` one-second slices of `per_slice` samples; sample i's parts from `parts(i)`.
CauseProfile profile(int slices, int per_slice,
                     const std::function<std::vector<AnalysisPart>(int)>& parts,
                     std::int64_t threshold = kThreshold) {
  trace::CauseProfileBuilder b(threshold);
  for (int s = 0; s < slices; ++s) {
    for (int k = 0; k < per_slice; ++k) {
      SampleAnalysis a;
      a.deadline_ns = s * trace::kSliceNs + k;
      a.parts = parts(s * per_slice + k);
      for (const AnalysisPart& p : a.parts) a.latency_ns += p.ns;
      a.latency_ns = std::max(a.latency_ns, threshold);
      b.add(a);
    }
  }
  return b.result();
}

std::vector<AnalysisPart> usual(int i) {
  std::vector<AnalysisPart> p = {kSelf, kTimer};
  if (i % 5 == 0) p.push_back(kNetRx);
  return p;
}

TEST(CauseCompare, AnInjectedFifoTaskIsTheLeadingNewCause) {
  const CauseProfile base = profile(20, 10, usual);
  const CauseProfile cur = profile(20, 10, [](int i) {
    std::vector<AnalysisPart> p = usual(i);
    if (i % 10 < 6) p.push_back(kHog);
    return p;
  });
  const CauseComparison c = compare_causes(base, 2e4, cur, 2e4, 0.05, false);
  EXPECT_EQ(c.note, "");
  ASSERT_FALSE(c.grew.empty());
  EXPECT_EQ(c.grew[0].cause, "task load-rt* (SCHED_FIFO 98)");
  EXPECT_TRUE(c.grew[0].is_new);
  EXPECT_DOUBLE_EQ(c.grew[0].in_cur, 0.6);
  EXPECT_LT(c.grew[0].p, 1e-6);
  EXPECT_EQ(c.headline(),
            "new cause task load-rt* (SCHED_FIFO 98) in 60% of samples over 50 us (was 0%)");
  // The hog's 300 us dwarf everything else in its samples: the thread's own 20 us and the local
  // timer's 15 us fall under a tenth of them; the thread's own time shrinks most. NET_RX (only
  // ever with the hog here) vanishes from the samples too, but it had under a tenth of the
  // latency to lose: not worth naming.
  ASSERT_EQ(c.shrank.size(), 2u);
  EXPECT_EQ(c.shrank[0].cause, "self");
  EXPECT_EQ(c.shrank[1].cause, "vector local_timer");
  EXPECT_NE(CauseComparison::describe(c.grew[0]).find("in 60% of samples (was 0%)"),
            std::string::npos);
}

TEST(CauseCompare, EqualProfilesNameNothing) {
  const CauseProfile p = profile(20, 10, usual);
  const CauseComparison c = compare_causes(p, 2e4, p, 2e4, 0.05, false);
  EXPECT_TRUE(c.grew.empty());
  EXPECT_TRUE(c.shrank.empty());
  EXPECT_EQ(c.headline(), "");
}

TEST(CauseCompare, ASignificantRiseUnderTheFloorIsNotNamed) {
  // NET_RX in 20% of 2000 samples, then in 25%, evenly (400 against 500: p about 4e-4 by the
  // exact test at phi 1): significant, but 5 points are not worth naming.
  const CauseProfile base = profile(100, 20, usual);
  const CauseProfile cur = profile(100, 20, [](int i) {
    std::vector<AnalysisPart> p = usual(i);
    if (i % 20 == 1) p.push_back(kNetRx);
    return p;
  });
  const CauseComparison c = compare_causes(base, 1e5, cur, 1e5, 0.05, false);
  EXPECT_TRUE(c.grew.empty()) << CauseComparison::describe(c.grew.at(0));
}

TEST(CauseCompare, BurstsWidenTheTest) {
  // 10 slices of 20 samples; NET_RX (40 us of each 60) in one sample of each slice, then in 5 of
  // each (50): a clear rise. Nearly the same rise as one burst (the first two slices all NET_RX,
  // one sample in each other one: 48) is what one NIC storm makes, and the slices' dispersion
  // keeps it from being named.
  const AnalysisPart rx{.kind = "softirq", .name = "NET_RX", .ns = 40'000};
  auto with_net_rx = [&](auto in) {
    return [in, rx](int i) {
      std::vector<AnalysisPart> p = {kSelf};
      if (in(i / 20, i % 20)) p.push_back(rx);
      return p;
    };
  };
  const CauseProfile base = profile(10, 20, with_net_rx([](int, int k) { return k == 0; }));
  const CauseProfile spread = profile(10, 20, with_net_rx([](int, int k) { return k < 5; }));
  const CauseProfile burst =
      profile(10, 20, with_net_rx([](int slice, int k) { return slice < 2 || k == 0; }));
  ASSERT_EQ(spread.causes.at("softirq NET_RX").samples, 50u);
  ASSERT_EQ(burst.causes.at("softirq NET_RX").samples, 48u);
  EXPECT_FALSE(compare_causes(base, 2e4, spread, 2e4, 0.05, false).grew.empty());
  const CauseComparison b = compare_causes(base, 2e4, burst, 2e4, 0.05, false);
  EXPECT_TRUE(b.grew.empty()) << CauseComparison::describe(b.grew.at(0));
}

TEST(CauseCompare, WhatCannotBeComparedSaysWhy) {
  const CauseProfile p = profile(5, 10, usual);
  const CauseProfile other = profile(5, 10, usual, 60'000);
  const CauseProfile none = profile(5, 10, usual, 0);
  EXPECT_NE(compare_causes(p, 1e4, other, 1e4, 0.05, false).note.find("different thresholds"),
            std::string::npos);
  EXPECT_NE(compare_causes(none, 1e4, p, 1e4, 0.05, false).note.find("--trace-threshold-us"),
            std::string::npos);
  const CauseProfile few = profile(1, 3, usual);
  EXPECT_NE(
      compare_causes(p, 1e4, few, 1e4, 0.05, false).note.find("current has 3 samples over 50 us"),
      std::string::npos);
}

// Fewer than kMinSamples on either side is too few to compare: 2 baseline crossings know none of
// their fractions, so nothing is named new against them (current's own analyses still say what
// delayed it, beside the verdict).
TEST(CauseCompare, ABaselineWithFewCrossingsIsTooFewToCompare) {
  const CauseProfile base = profile(1, 2, usual);
  const CauseProfile cur = profile(20, 10, [](int i) {
    std::vector<AnalysisPart> p = usual(i);
    p.push_back(kHog);
    return p;
  });
  const CauseComparison c = compare_causes(base, 2e4, cur, 2e4, 0.05, false);
  EXPECT_NE(c.note.find("the baseline has 2 samples over 50 us (fewer than 10): too few samples"),
            std::string::npos)
      << c.note;
  EXPECT_TRUE(c.grew.empty());
  // With 10 a side it is compared, and the hog is new.
  const CauseComparison ten = compare_causes(profile(1, 10, usual), 2e4, cur, 2e4, 0.05, false);
  EXPECT_EQ(ten.note, "");
  ASSERT_FALSE(ten.grew.empty());
  EXPECT_EQ(ten.grew[0].cause, "task load-rt* (SCHED_FIFO 98)");
}

TEST(CauseCompare, ARunThatCrossedLessNamesNoCauseForItsFewSamples) {
  // 300 crossings in 8 s, the thread's own time in 1% of them; then 14, 12 of them its own
  // time in one burst: its share of the few is large, its rate (3 then 12 in 8000 samples, one
  // slice) is not a significant rise.
  const CauseProfile base = profile(8, 38, [](int i) {
    std::vector<AnalysisPart> p = {kTimer};
    if (i % 100 == 0) p = {kSelf};
    return p;
  });
  const CauseProfile cur = profile(1, 14, [](int i) {
    return i < 12 ? std::vector<AnalysisPart>{kSelf} : std::vector<AnalysisPart>{kTimer};
  });
  const CauseComparison c = compare_causes(base, 8e3, cur, 8e3, 0.05, true);
  EXPECT_TRUE(c.grew.empty()) << CauseComparison::describe(c.grew.at(0));
}

TEST(CauseCompare, ACauseWithASmallShareOfTheLatencyIsNotNamed) {
  // RCU's softirq appears in a third of the samples, 5 us in each of 60 us: it took part, but
  // a tenth of the latency is the floor of a cause worth naming.
  const AnalysisPart rcu{.kind = "softirq", .name = "RCU", .ns = 5'000};
  const CauseProfile base = profile(8, 30, usual);
  const CauseProfile cur = profile(8, 30, [&](int i) {
    std::vector<AnalysisPart> p = usual(i);
    if (i % 3 == 0) p.push_back(rcu);
    return p;
  });
  const CauseComparison c = compare_causes(base, 8e3, cur, 8e3, 0.05, false);
  ASSERT_EQ(c.note, "");
  for (const CauseChange& g : c.grew) EXPECT_NE(g.cause, "softirq RCU");
}

trace::LockContention contention(std::vector<trace::LockWait> locks, int runs) {
  trace::LockContention c;
  c.traced = true;
  c.runs = runs;
  c.locks = std::move(locks);
  return c;
}

TEST(LockCompare, ClassesDropAddressesAndCodeOffsets) {
  EXPECT_EQ(lock_class({.lock = "rename_lock", .kind = "SPIN", .caller = "d_walk+0x1a3/0x2c0"}),
            "rename_lock SPIN from d_walk");
  EXPECT_EQ(lock_class({.lock = "0xffff888101c2d0c8",
                        .kind = "SPIN",
                        .caller = "release_pages+0x1a3 via folio_lruvec_lock_irqsave"}),
            "SPIN lock from release_pages via folio_lruvec_lock_irqsave");
  EXPECT_EQ(lock_class({.lock = "0xffff8881", .kind = "READ|RT", .caller = ""}), "READ|RT lock");
}

TEST(LockCompare, AGrownLockIsNamedAndASteadyOneIsNot) {
  const trace::LockContention base = contention({{.lock = "rename_lock",
                                                  .kind = "SPIN",
                                                  .wait = {.count = 30, .total_ns = 3'000'000},
                                                  .per_run = {9, 11, 10}},
                                                 {.lock = "0xffff1",
                                                  .kind = "SPIN",
                                                  .caller = "release_pages+0x10",
                                                  .wait = {.count = 300, .total_ns = 1'000'000},
                                                  .per_run = {100, 95, 105}}},
                                                3);
  const trace::LockContention cur = contention({{.lock = "rename_lock",
                                                 .kind = "SPIN",
                                                 .wait = {.count = 31, .total_ns = 3'100'000},
                                                 .per_run = {10, 10, 11}},
                                                {.lock = "0xffff2",
                                                 .kind = "SPIN",
                                                 .caller = "release_pages+0x10",
                                                 .wait = {.count = 2400, .total_ns = 9'000'000},
                                                 .per_run = {790, 800, 810}},
                                                {.lock = "dq_list_lock",
                                                 .kind = "SPIN",
                                                 .wait = {.count = 60, .total_ns = 500'000},
                                                 .per_run = {18, 22, 20}}},
                                               3);
  const std::vector<LockChange> grew = compare_locks(base, cur, 0.05);
  ASSERT_EQ(grew.size(), 2u);
  EXPECT_EQ(grew[0].lock, "SPIN lock from release_pages");
  EXPECT_FALSE(grew[0].is_new);
  EXPECT_DOUBLE_EQ(grew[0].waits_cur, 800);
  EXPECT_EQ(grew[1].lock, "dq_list_lock SPIN");
  EXPECT_TRUE(grew[1].is_new);
  EXPECT_TRUE(compare_locks(base, base, 0.05).empty());
  EXPECT_TRUE(compare_locks(base, trace::LockContention{}, 0.05).empty()) << "untraced side";
}

TEST(LockCompare, ALockMissingFromACutBaselineTableIsComparedWithWhatItCanHaveHad) {
  // The baseline's table kept rename_lock; 600 waits per run fell on locks beyond it. A lock
  // that enters current's table with 185 waits may have had 600 there: not named. With 2000 and
  // more time than rename_lock's, it beat anything the baseline can have hidden: named.
  trace::LockContention base = contention({{.lock = "rename_lock",
                                            .kind = "SPIN",
                                            .wait = {.count = 30, .total_ns = 3'000'000},
                                            .per_run = {10, 10, 10}}},
                                          3);
  base.other_waits = 1800;
  auto entering = [](std::uint64_t per_run, std::int64_t ns) {
    return contention({{.lock = "rename_lock",
                        .kind = "SPIN",
                        .wait = {.count = 30, .total_ns = 3'000'000},
                        .per_run = {10, 10, 10}},
                       {.lock = "0xffff3",
                        .kind = "RT",
                        .caller = "__traverse_mounts+0x8 via lockref_get",
                        .wait = {.count = 3 * per_run, .total_ns = ns},
                        .per_run = {per_run, per_run, per_run}}},
                      3);
  };
  EXPECT_TRUE(compare_locks(base, entering(185, 120'000'000), 0.05).empty());
  const std::vector<LockChange> grew = compare_locks(base, entering(2000, 30'000'000), 0.05);
  ASSERT_EQ(grew.size(), 1u);
  EXPECT_EQ(grew[0].lock, "RT lock from __traverse_mounts via lockref_get");
  EXPECT_DOUBLE_EQ(grew[0].waits_base, 600);
  base.other_waits = 0;  // the table held every contended lock: absent is none
  EXPECT_EQ(compare_locks(base, entering(185, 120'000'000), 0.05).size(), 1u);
}

TEST(CauseEvidence, ARegressedLatencyVerdictNamesItsCasesLeadingNewCause) {
  auto report = [](const CauseProfile& p) {
    RunReport r;
    SuiteResult s;
    s.name = "cyclic";
    Case c;
    c.name = "cpu1";
    c.causes = p;
    Metric m{.name = "wakeup_latency"};
    m.runs.push_back({.count = 20'000});
    c.metrics.push_back(m);
    s.cases.push_back(c);
    s.trace.emplace();
    s.trace->threshold_ns = kThreshold;
    r.suites.push_back(s);
    return r;
  };
  const RunReport base = report(profile(20, 10, usual));
  const RunReport cur = report(profile(20, 10, [](int i) {
    std::vector<AnalysisPart> p = usual(i);
    if (i % 2 == 0) p.push_back(kHog);
    return p;
  }));
  GateVerdict g;
  SuiteVerdict sv{.suite = "cyclic"};
  for (const Verdict v : {Verdict::kRegressed, Verdict::kUnchanged}) {
    sv.metrics.push_back({.suite = "cyclic",
                          .case_name = "cpu1",
                          .metric = "wakeup_latency",
                          .verdict = v,
                          .reason = "p99 x1.8"});
  }
  g.suites.push_back(sv);
  attach_cause_evidence(g, {&base}, cur);
  ASSERT_EQ(g.causes.size(), 1u);
  EXPECT_EQ(g.causes[0].suite, "cyclic");
  EXPECT_EQ(g.causes[0].case_name, "cpu1");
  EXPECT_EQ(g.suites[0].metrics[0].reason,
            "p99 x1.8; new cause task load-rt* (SCHED_FIFO 98) in 50% of samples over 50 us "
            "(was 0%)");
  EXPECT_EQ(g.suites[0].metrics[1].reason, "p99 x1.8") << "only a regression names a cause";
}

}  // namespace
}  // namespace rtgate::gate
