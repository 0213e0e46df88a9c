// Policy names both ways, against the libc numbers the kernel reports.
#include "base/text/sched_policy.h"

#include <gtest/gtest.h>
#include <sched.h>

namespace rtgate::text {
namespace {

TEST(SchedPolicy, NamesAndNumbersRoundTrip) {
  for (int policy : {SCHED_OTHER, SCHED_FIFO, SCHED_RR, SCHED_BATCH, SCHED_IDLE, kSchedDeadline}) {
    const std::string name = policy_name(policy);
    ASSERT_FALSE(name.empty()) << policy;
    EXPECT_EQ(policy_from_name(name), policy) << name;
  }
  EXPECT_EQ(policy_name(SCHED_FIFO), "fifo");
  EXPECT_EQ(kernel_policy_name(SCHED_RR), "SCHED_RR");
  EXPECT_EQ(kernel_policy_name(kSchedDeadline), "SCHED_DEADLINE");
#ifdef SCHED_DEADLINE
  EXPECT_EQ(kSchedDeadline, SCHED_DEADLINE);
#endif
}

TEST(SchedPolicy, UnknownIsEmptyNotAGuess) {
  EXPECT_EQ(policy_name(42), "");
  EXPECT_EQ(kernel_policy_name(-1), "");
  EXPECT_EQ(policy_from_name("FIFO"), std::nullopt);
}

}  // namespace
}  // namespace rtgate::text
