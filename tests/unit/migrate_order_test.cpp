// judge_order (suites/sched_migrate/migrate_order.h): which violation patterns fail sched.migrate.
#include "suites/sched_migrate/migrate_order.h"

#include <gtest/gtest.h>

namespace rtgate::rt {
namespace {

TEST(MigrateOrder, NoViolationHoldsWhateverTheHost) {
  EXPECT_EQ(judge_order(0, 20, false), OrderCall::kHeld);
  EXPECT_EQ(judge_order(0, 20, true), OrderCall::kHeld);
  EXPECT_EQ(judge_order(0, 0, true), OrderCall::kHeld);
}

TEST(MigrateOrder, WhereTheHostCannotHaveTakenTimeOneViolationFails) {
  EXPECT_EQ(judge_order(1, 20, false), OrderCall::kBroken);
  EXPECT_EQ(judge_order(1, 1000, false), OrderCall::kBroken);
}

TEST(MigrateOrder, SporadicViolationsOnAGuestAreTheHostsSuspects) {
  EXPECT_EQ(judge_order(1, 20, true), OrderCall::kHost);
  EXPECT_EQ(judge_order(4, 20, true), OrderCall::kHost);
  // A quarter of the periods or more is a pattern the host does not make: push/pull is broken.
  EXPECT_EQ(judge_order(5, 20, true), OrderCall::kBroken);
  EXPECT_EQ(judge_order(30, 30, true), OrderCall::kBroken);
  // Too few periods to see a pattern: a violation is the kernel's.
  EXPECT_EQ(judge_order(1, 3, true), OrderCall::kBroken);
}

}  // namespace
}  // namespace rtgate::rt
