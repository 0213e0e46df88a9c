// The spinlocks of locks/: mutual exclusion under oversubscription, try_lock, FIFO order of the
// queueing locks, nesting of the node-based locks, qspinlock's pending and queue paths, and
// their catalogue entries.
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "locks/catalogue.h"
#include "locks/mcs_lock.h"
#include "locks/qspinlock.h"
#include "locks/tas_lock.h"
#include "locks/ticket_lock.h"
#include "locks/ttas_lock.h"
#include "tests/locks/lock_harness.h"

namespace rtgate::locks::test {
namespace {

using namespace std::chrono_literals;

// ---- every spinlock (mutual exclusion and try_lock: catalogue_locks_test.cpp) ----

template <class L>
class SpinLockTest : public ::testing::Test {};
using AllSpinLocks = ::testing::Types<TasLock, TtasLock, TicketLock, McsLock, QSpinLock>;
TYPED_TEST_SUITE(SpinLockTest, AllSpinLocks, CatalogueNames);

TYPED_TEST(SpinLockTest, WorksWithStdLockGuard) {
  TypeParam lock;
  {
    std::lock_guard<TypeParam> guard(lock);
    EXPECT_FALSE(lock.try_lock());
  }
  std::unique_lock<TypeParam> unique(lock, std::try_to_lock);
  EXPECT_TRUE(unique.owns_lock());
}

TYPED_TEST(SpinLockTest, IsInTheCatalogue) {
  const LockInfo* info = LockCatalogue::instance().of<TypeParam>();
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->kind, LockKind::kSpin);
  EXPECT_EQ(info->pi, PiSupport::kNone);
  const bool fifo = std::is_same_v<TypeParam, TicketLock> || std::is_same_v<TypeParam, McsLock> ||
                    std::is_same_v<TypeParam, QSpinLock>;
  EXPECT_EQ(info->fifo, fifo);
  EXPECT_FALSE(info->safe_fifo_oversubscribed);
  EXPECT_FALSE(info->summary.empty());
  const auto any = info->make();
  any->lock();
  EXPECT_FALSE(any->try_lock());
  any->unlock();
  ASSERT_TRUE(any->try_lock_shared());
  any->unlock_shared();
}

// ---- the FIFO locks: arrival order is acquisition order ----

// A value that changes whenever one more waiter has queued.
std::uint64_t queue_state(const TicketLock& l) { return l.next_ticket_for_test(); }
std::uint64_t queue_state(const McsLock& l) {
  return reinterpret_cast<std::uintptr_t>(l.tail_for_test());
}
std::uint64_t queue_state(const QSpinLock& l) { return l.word_for_test(); }

// Waits until `state()` differs from `before`; false after 10 s.
template <class F>
bool wait_for_change(std::uint64_t before, F state) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (state() == before) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(50us);
  }
  return true;
}

// The calling thread holds `lock`; starts `n` waiters one at a time, each visibly queued
// (queue_state() moved) before the next starts, then releases and returns the order they got in.
// After each waiter queues, `after_queued(i)` runs (still holding the lock).
template <class L, class F>
std::vector<int> acquisition_order(L& lock, int n, F after_queued) {
  std::vector<int> order;  // written under the lock
  std::vector<std::thread> waiters;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t before = queue_state(lock);
    waiters.emplace_back([&lock, &order, i] {
      lock.lock();
      order.push_back(i);
      lock.unlock();
    });
    if (!wait_for_change(before, [&] { return queue_state(lock); })) {
      ADD_FAILURE() << "waiter " << i << " never showed up in the lock's queue";
      break;
    }
    after_queued(i);
  }
  lock.unlock();
  for (auto& t : waiters) t.join();
  return order;
}

template <class L>
class FifoSpinLockTest : public ::testing::Test {};
using FifoSpinLocks = ::testing::Types<TicketLock, McsLock, QSpinLock>;
TYPED_TEST_SUITE(FifoSpinLockTest, FifoSpinLocks, CatalogueNames);

TYPED_TEST(FifoSpinLockTest, WaitersAcquireInArrivalOrder) {
  constexpr int kWaiters = 6;
  TypeParam lock;
  lock.lock();
  const std::vector<int> order = acquisition_order(lock, kWaiters, [](int) {});
  std::vector<int> expected(kWaiters);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(order, expected);
}

// ---- the node-based locks: several held at once, released in either order ----

template <class L>
class NestingSpinLockTest : public ::testing::Test {};
using NodeSpinLocks = ::testing::Types<McsLock, QSpinLock>;
TYPED_TEST_SUITE(NestingSpinLockTest, NodeSpinLocks, CatalogueNames);

TYPED_TEST(NestingSpinLockTest, TwoHeldReleasedInEitherOrderUnderContention) {
  TypeParam outer, inner;
  Guarded g;
  const int threads = 2 * cpus();
  const std::uint64_t per_thread = iterations(20'000);
  std::barrier start(threads);
  std::vector<std::thread> ts;
  ts.reserve(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([&, t] {
      start.arrive_and_wait();
      for (std::uint64_t i = 0; i < per_thread; ++i) {
        // Two in three rounds take outer, then inner (never the other way round); the third
        // takes inner alone, so inner is contended while its waiters hold outer.
        const bool nested = i % 3 != 2;
        if (nested) outer.lock();
        inner.lock();
        if (g.owner != -1) g.violations.fetch_add(1, std::memory_order_relaxed);
        g.owner = t;
        ++g.a;
        ++g.b;
        g.owner = -1;
        if (!nested) {
          inner.unlock();
        } else if (i % 2 == 0) {
          inner.unlock();
          outer.unlock();
        } else {
          outer.unlock();
          inner.unlock();
        }
      }
    });
  }
  for (auto& t : ts) t.join();
  EXPECT_EQ(g.violations.load(), 0);
  EXPECT_EQ(g.a, static_cast<std::uint64_t>(threads) * per_thread);
  EXPECT_EQ(g.b, g.a);
}

TEST(McsLockTest, HoldsAsManyLocksAsItHasNodes) {
  McsLock locks[McsNodePool::kNodes];
  McsLock later;
  for (auto& l : locks) l.lock();
  // A node from the middle of the pool comes back and is reused: release is not only LIFO.
  locks[2].unlock();
  later.lock();
  later.unlock();
  for (unsigned i = 0; i < McsNodePool::kNodes; ++i) {
    if (i != 2) locks[i].unlock();
  }
}

TEST(McsLockDeathTest, OneLockMoreThanNodesAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        McsLock locks[McsNodePool::kNodes + 1];
        for (auto& l : locks) l.lock();
      },
      "McsLock: this thread already holds or waits for 8 MCS locks");
}

// ---- qspinlock: the pending path and the queue path ----

TEST(QSpinLockTest, FirstWaiterTakesPendingLaterOnesQueue) {
  constexpr std::uint32_t kLocked = QSpinLock::kLocked;
  constexpr std::uint32_t kPending = QSpinLock::kPending;
  const std::uint32_t numbers_before = QSpinLock::thread_numbers_in_use_for_test();
  QSpinLock lock;
  EXPECT_EQ(lock.word_for_test(), 0u);
  lock.lock();
  EXPECT_EQ(lock.word_for_test(), kLocked) << "the fast path sets the locked byte only";
  std::vector<std::uint32_t> tails;
  const std::vector<int> order = acquisition_order(lock, 3, [&](int i) {
    const std::uint32_t word = lock.word_for_test();
    EXPECT_EQ(word & QSpinLock::kLockedPendingMask, kLocked | kPending) << "waiter " << i;
    if (i == 0) {
      EXPECT_EQ(word, kLocked | kPending) << "the first waiter takes the pending path";
    } else {
      EXPECT_NE(word & QSpinLock::kTailMask, 0u) << "later waiters queue";
      tails.push_back(word & QSpinLock::kTailMask);
    }
  });
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
  ASSERT_EQ(tails.size(), 2u);
  EXPECT_NE(tails[0], tails[1]) << "each queued thread has its own tail code";
  EXPECT_EQ(lock.word_for_test(), 0u) << "the last queued waiter emptied the queue";
  EXPECT_EQ(QSpinLock::thread_numbers_in_use_for_test(), numbers_before)
      << "exited threads return their numbers";
}

}  // namespace
}  // namespace rtgate::locks::test
