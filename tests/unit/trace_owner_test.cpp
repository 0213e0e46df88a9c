// Which case a traced sample belongs to is what the suite said when it registered the sample's
// counter (or claimed it later), never a guess from the counter's label.
#include <gtest/gtest.h>

#include <atomic>

#include "framework/run_context.h"

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
  ctx.claim_trace("probe", "2t");  // a sweep's later probe: its samples are the run's first case's
  EXPECT_EQ(ctx.trace_owners().at("probe"), "1t");
}

}  // namespace
}  // namespace rtgate
