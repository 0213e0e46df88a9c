// Which case a traced sample belongs to is what the suite said when it registered the sample's
// counter (or claimed it later), never a guess from the counter's label.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "framework/measure/run_context.h"
#include "framework/workload/rt_probe.h"

namespace rtgate {
namespace {

TEST(TraceOwner, ACounterNamesItsCaseWhenItIsRegistered) {
  std::atomic<bool> stop{false};
  RunContext ctx(1, {0}, stop);
  ctx.track("cpu0", "cpu0");
  ctx.track("pi_mutex/rt0", "pi_mutex");
  ctx.track("load-helper");  // no case: its samples stay in the suite's trace record
  const auto owners = ctx.trace_owners();
  EXPECT_EQ(owners.size(), 2u);
  EXPECT_EQ(owners.at("cpu0"), "cpu0");
  EXPECT_EQ(owners.at("pi_mutex/rt0"), "pi_mutex");
  EXPECT_EQ(owners.count("load-helper"), 0u);
}

TEST(TraceOwner, AClaimComesLaterAndTheFirstOneStands) {
  std::atomic<bool> stop{false};
  RunContext ctx(1, {0}, stop);
  ctx.track("probe");
  EXPECT_TRUE(ctx.trace_owners().empty());
  ctx.claim_trace("probe", "1t");
  ctx.claim_trace("probe", "2t");
  EXPECT_EQ(ctx.trace_owners().at("probe"), "1t");
}

// A sweep builds a probe per phase: each phase's samples belong to that phase's case, and the
// live series (/metrics, the progress line) stay one per counter.
TEST(TraceOwner, EachProbeOfASweepOwnsItsOwnCase) {
  std::atomic<bool> stop{false};
  RunContext ctx(1, {0}, stop);
  std::vector<std::string> labels;
  for (const char* name : {"1t", "2t", "3t"}) {
    RtProbe probe({.cpu = 0}, ctx);  // never started: add_metrics only names the owner
    Case c;
    c.name = name;
    probe.add_metrics(c);
  }
  ctx.for_each_tracked([&](LiveStats& s) { labels.push_back(s.label); });
  EXPECT_EQ(labels, (std::vector<std::string>{"probe", "probe-2", "probe-3"}));
  const auto owners = ctx.trace_owners();
  EXPECT_EQ(owners.at("probe"), "1t");
  EXPECT_EQ(owners.at("probe-2"), "2t");
  EXPECT_EQ(owners.at("probe-3"), "3t");
}

TEST(TraceOwner, ALabelIsTheBaseUntilTaken) {
  std::atomic<bool> stop{false};
  RunContext ctx(1, {0}, stop);
  EXPECT_EQ(ctx.track("pft/0").label, "pft/0");
  EXPECT_EQ(ctx.track("pft/1").label, "pft/1");
  EXPECT_EQ(ctx.track("pft/0").label, "pft/0-2");
  EXPECT_EQ(ctx.track("pft/1", "2t").label, "pft/1-2");
  EXPECT_EQ(ctx.track("pft/0").label, "pft/0-3");
  // The owner goes with the label the counter got, not the one asked for.
  EXPECT_EQ(ctx.trace_owners().count("pft/1"), 0u);
  EXPECT_EQ(ctx.trace_owners().at("pft/1-2"), "2t");
}

}  // namespace
}  // namespace rtgate
