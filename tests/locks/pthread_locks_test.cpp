// The baselines' rw checks and catalogue entries; mutual exclusion and try_lock, the same as our
// own locks', come from catalogue_locks_test.cpp.
#include "locks/pthread_locks.h"

#include <gtest/gtest.h>

#include "tests/locks/lock_harness.h"

namespace rtgate::locks::test {
namespace {

template <class L>
class BaselineRw : public ::testing::Test {};
using RwLocks = ::testing::Types<PthreadRwlockReader, PthreadRwlockWriter, StdSharedMutex>;
TYPED_TEST_SUITE(BaselineRw, RwLocks, CatalogueNames);

TYPED_TEST(BaselineRw, ExclusionAndOverlapAt2xCpus) {
  expect_rw_exclusion_and_overlap<TypeParam>(2 * cpus(), iterations(100'000));
}
TYPED_TEST(BaselineRw, ExclusionAndOverlapAt4xCpus) {
  expect_rw_exclusion_and_overlap<TypeParam>(4 * cpus(), iterations(50'000));
}
TYPED_TEST(BaselineRw, SharedTryLock) { expect_shared_try_lock_semantics<TypeParam>(); }

TEST(LockCatalogue, BaselinesAreRegisteredWithTheirProperties) {
  const auto& c = LockCatalogue::instance();
  ASSERT_NE(c.find("pthread_mutex_pi"), nullptr);
  EXPECT_EQ(c.find("pthread_mutex_pi")->pi, PiSupport::kFull);
  EXPECT_EQ(c.find("pthread_rwlock")->kind, LockKind::kRw);
  EXPECT_EQ(c.find("pthread_rwlock")->pi, PiSupport::kNone);
  EXPECT_FALSE(c.find("pthread_spin")->safe_fifo_oversubscribed);
  EXPECT_TRUE(c.find("pthread_mutex")->safe_fifo_oversubscribed);
  // Type-erased instances work through the catalogue.
  auto lock = c.find("std_shared_mutex")->make();
  lock->lock_shared();
  EXPECT_TRUE(lock->try_lock_shared());
  lock->unlock_shared();
  EXPECT_FALSE(lock->try_lock());
  lock->unlock_shared();
  EXPECT_TRUE(lock->try_lock());
  lock->unlock();
}

}  // namespace
}  // namespace rtgate::locks::test
