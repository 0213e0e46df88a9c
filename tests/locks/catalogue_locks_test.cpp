// Every lock in the catalogue, whatever its kind, passes the same checks through the catalogue's
// type-erased instance: mutual exclusion under oversubscription, try_lock, the shared mode (real
// sharing for rw locks, exclusive for the others), a coherent entry, and its thread prelude. A
// new lock gets these by registering; the per-kind files test what only some locks have.
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <thread>
#include <vector>

#include "locks/catalogue.h"
#include "locks/thread_prelude.h"
#include "tests/locks/lock_harness.h"

namespace rtgate::locks::test {
namespace {

std::vector<std::string> catalogue_names() {
  std::vector<std::string> names;
  for (const LockInfo& l : LockCatalogue::instance().all()) names.push_back(l.name);
  return names;
}

// Acquisitions per thread for `threads` threads: 500,000 in all whatever the CPU count (sleeping
// locks hand over through the kernel, so their runs are bounded by the total, not per thread).
std::uint64_t per_thread(int threads) {
  constexpr std::uint64_t kTotal = 500'000;
  const auto n = static_cast<std::uint64_t>(threads);
  return iterations((kTotal + n - 1) / n);
}

class CatalogueLock : public ::testing::TestWithParam<std::string> {
 protected:
  const LockInfo& info() const {
    const LockInfo* l = LockCatalogue::instance().find(GetParam());
    if (l == nullptr) throw std::logic_error("not in the catalogue: " + GetParam());
    return *l;
  }
};

TEST_P(CatalogueLock, MutualExclusionAtTwiceTheCpus) {
  const auto lock = info().make();
  expect_mutual_exclusion(*lock, 2 * cpus(), per_thread(2 * cpus()));
}

TEST_P(CatalogueLock, MutualExclusionAtFourTimesTheCpus) {
  const auto lock = info().make();
  expect_mutual_exclusion(*lock, 4 * cpus(), per_thread(4 * cpus()));
}

TEST_P(CatalogueLock, TryLockSemantics) {
  const auto lock = info().make();
  expect_try_lock_semantics(*lock);
}

TEST_P(CatalogueLock, TheSharedModeSharesOnlyForRwLocks) {
  const auto lock = info().make();
  if (info().kind == LockKind::kRw) {
    expect_shared_try_lock_semantics(*lock);
    return;
  }
  // lock_shared() of a lock without a shared mode is its exclusive lock.
  ASSERT_TRUE(lock->try_lock_shared());
  bool second = true;
  std::thread([&] { second = lock->try_lock_shared(); }).join();
  EXPECT_FALSE(second) << "two holders of a lock without a shared mode";
  lock->unlock_shared();
  EXPECT_TRUE(lock->try_lock());
  lock->unlock();
}

TEST_P(CatalogueLock, TheEntryIsCoherent) {
  const LockInfo& l = info();
  ASSERT_FALSE(l.name.empty());
  for (char c : l.name) {
    EXPECT_TRUE(std::islower(static_cast<unsigned char>(c)) || std::isdigit(c) || c == '_')
        << "'" << l.name << "': a name is lowercase letters, digits and '_'";
  }
  EXPECT_FALSE(l.summary.empty());
  EXPECT_NE(l.type, std::type_index(typeid(void))) << "registered without its class";
  // A spinning waiter cannot be boosted, and FIFO spinners outnumbering CPUs livelock.
  if (l.kind == LockKind::kSpin) {
    EXPECT_EQ(l.pi, PiSupport::kNone);
    EXPECT_FALSE(l.safe_fifo_oversubscribed);
  }
}

TEST_P(CatalogueLock, ItsThreadPreludeRunsInAFreshThreadAndTheLockWorksAfter) {
  const auto lock = info().make();
  std::thread([&] {
    if (info().prepare_thread != nullptr) info().prepare_thread();
    prepare_lock_thread();
    lock->lock();
    lock->unlock();
  }).join();
  EXPECT_TRUE(lock->try_lock());
  lock->unlock();
}

INSTANTIATE_TEST_SUITE_P(Every, CatalogueLock, ::testing::ValuesIn(catalogue_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace rtgate::locks::test
