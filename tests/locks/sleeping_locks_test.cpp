// The sleeping locks of locks/ (FutexMutex, PiMutex) and the exclusive side of the reader/writer
// locks (RwSem, PiRwSem): mutual exclusion under oversubscription, try_lock, std guards, PiMutex's
// error reporting (EDEADLK, EPERM, EOWNERDEAD) and the kernel behaviour it rests on, sleeping
// waiters, and the catalogue entries. Priority inheritance itself is tested in
// pi_inversion_test.cpp.
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>

#include "locks/catalogue.h"
#include "locks/futex.h"
#include "locks/futex_mutex.h"
#include "locks/pi_mutex.h"
#include "locks/pi_rw_sem.h"
#include "locks/rw_sem.h"
#include "locks/tsan.h"
#include "tests/locks/lock_harness.h"

namespace rtgate::locks::test {
namespace {

using namespace std::chrono_literals;

// Polls `done` every millisecond for up to 5 s.
bool eventually(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

// The scheduler state letter of one of our threads ('S' = sleeping), from /proc.
char thread_state(std::uint32_t tid) {
  std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto paren = line.rfind(')');
  return paren == std::string::npos || paren + 2 >= line.size() ? '?' : line[paren + 2];
}

// TSAN cannot see a thread die holding a lock (and has no public way to repair a mutex), so a
// thread that is about to exit holding `lock` tells TSAN it let go. No-op without TSAN.
template <class L>
void tell_tsan_owner_exits(L& lock) {
  RTGATE_TSAN_PRE_UNLOCK(&lock, 0);
  RTGATE_TSAN_POST_UNLOCK(&lock, 0);
}

// ---- every sleeping lock, and the rw locks' exclusive side (mutual exclusion and try_lock:
// catalogue_locks_test.cpp) ----

template <class L>
class SleepingLockTest : public ::testing::Test {};
using SleepingLocks = ::testing::Types<FutexMutex, PiMutex, RwSem, PiRwSem>;
TYPED_TEST_SUITE(SleepingLockTest, SleepingLocks, CatalogueNames);

TYPED_TEST(SleepingLockTest, WorksWithStdGuards) {
  TypeParam lock;
  {
    std::lock_guard<TypeParam> guard(lock);
    EXPECT_FALSE(lock.try_lock());
  }
  std::unique_lock<TypeParam> unique(lock, std::try_to_lock);
  EXPECT_TRUE(unique.owns_lock());
}

TYPED_TEST(SleepingLockTest, IsInTheCatalogueAndItsFactoryWorks) {
  const LockInfo* info = LockCatalogue::instance().of<TypeParam>();
  ASSERT_NE(info, nullptr);
  constexpr bool kRw = std::is_same_v<TypeParam, RwSem> || std::is_same_v<TypeParam, PiRwSem>;
  EXPECT_EQ(info->kind, kRw ? LockKind::kRw : LockKind::kSleep);
  const PiSupport pi = std::is_same_v<TypeParam, FutexMutex> ? PiSupport::kNone
                       : std::is_same_v<TypeParam, RwSem>    ? PiSupport::kWriterOnly
                                                             : PiSupport::kFull;
  EXPECT_EQ(info->pi, pi);
  EXPECT_FALSE(info->fifo);
  EXPECT_TRUE(info->safe_fifo_oversubscribed);
  EXPECT_FALSE(info->summary.empty());
  ASSERT_TRUE(info->make);
  const auto any = info->make();
  any->lock();
  EXPECT_FALSE(any->try_lock_shared());
  any->unlock();
  any->lock_shared();
  EXPECT_EQ(any->try_lock(), false);
  any->unlock_shared();
  EXPECT_TRUE(any->try_lock());
  any->unlock();
}

// ---- FutexMutex ----

TEST(FutexMutexTest, AWaiterMarksTheWordContendedAndIsWoken) {
  FutexMutex m;
  m.lock();
  EXPECT_EQ(m.raw_word(), FutexMutex::kLocked);
  std::atomic<std::uint32_t> tid{0};
  std::atomic<bool> got{false};
  std::thread waiter([&] {
    tid = current_tid();
    m.lock();
    got = true;
    m.unlock();
  });
  EXPECT_TRUE(eventually([&] { return m.raw_word() == FutexMutex::kContended; }));
  EXPECT_TRUE(eventually([&] { return thread_state(tid.load()) == 'S'; }))
      << "the waiter should sleep in FUTEX_WAIT";
  EXPECT_FALSE(got.load());
  m.unlock();
  waiter.join();
  EXPECT_TRUE(got.load());
  EXPECT_EQ(m.raw_word(), FutexMutex::kFree);
}

// ---- PiMutex ----

TEST(PiMutexTest, OwnerTidIsTheHoldersTid) {
  PiMutex m;
  EXPECT_EQ(m.owner_tid(), 0u);
  std::atomic<std::uint32_t> holder{0};
  std::atomic<bool> release{false};
  std::thread t([&] {
    m.lock();
    holder = current_tid();
    while (!release.load()) std::this_thread::sleep_for(1ms);
    m.unlock();
  });
  ASSERT_TRUE(eventually([&] { return holder.load() != 0; }));
  EXPECT_EQ(m.owner_tid(), holder.load());
  EXPECT_NE(m.owner_tid(), current_tid());
  release = true;
  t.join();
  EXPECT_EQ(m.owner_tid(), 0u);
  ASSERT_EQ(m.lock_checked(), 0);
  EXPECT_EQ(m.owner_tid(), current_tid());
  EXPECT_EQ(m.raw_word(), current_tid());
  EXPECT_EQ(m.unlock_checked(), 0);
}

TEST(PiMutexTest, RecursiveLockIsEdeadlkAndChangesNothing) {
  PiMutex m;
  ASSERT_EQ(m.lock_checked(), 0);
  EXPECT_EQ(m.lock_checked(), EDEADLK);
  try {
    m.lock();
    ADD_FAILURE() << "lock() by the owner did not throw";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EDEADLK);
  }
  EXPECT_FALSE(m.try_lock()) << "try_lock by the owner must fail";
  EXPECT_EQ(m.raw_word(), current_tid());
  EXPECT_EQ(m.unlock_checked(), 0);
  EXPECT_EQ(m.raw_word(), 0u);
}

// What PiMutex relies on: the kernel refuses FUTEX_LOCK_PI by the owner too.
TEST(PiMutexTest, KernelSaysEdeadlkToTheOwner) {
  std::atomic<std::uint32_t> word{current_tid()};
  EXPECT_EQ(futex_lock_pi(word), -EDEADLK);
  EXPECT_EQ(word.load(), current_tid());
}

// The kernel walks the PI chain of a blocking waiter (which is how it boosts) and refuses the
// lock that would close a cycle: A holds m1 and waits for m2, B holds m2 and asks for m1.
TEST(PiMutexTest, AbbaDeadlockIsEdeadlkFromTheKernel) {
  if (RTGATE_TSAN) GTEST_SKIP() << "TSAN reports the deliberate lock-order inversion";
  PiMutex m1, m2;
  m2.lock();
  std::atomic<int> a_rc{-1};
  std::thread a([&] {
    m1.lock();
    a_rc = m2.lock_checked();
    m2.unlock();
    m1.unlock();
  });
  EXPECT_TRUE(eventually([&] { return (m2.raw_word() & kFutexWaiters) != 0; }));
  EXPECT_EQ(m1.lock_checked(), EDEADLK);
  EXPECT_NE(m1.owner_tid(), current_tid()) << "EDEADLK leaves m1 with A";
  m2.unlock();
  a.join();
  EXPECT_EQ(a_rc.load(), 0);
  EXPECT_EQ(m1.raw_word(), 0u);
  EXPECT_EQ(m2.raw_word(), 0u);
}

TEST(PiMutexTest, UnlockByNonOwnerIsEpermAndChangesNothing) {
  PiMutex m;
  EXPECT_EQ(m.unlock_checked(), EPERM) << "unlock of a free mutex";
  m.lock();
  int rc = 0;
  int thrown = 0;
  std::thread([&] {
    rc = m.unlock_checked();
    try {
      m.unlock();
    } catch (const std::system_error& e) {
      thrown = e.code().value();
    }
  }).join();
  EXPECT_EQ(rc, EPERM);
  EXPECT_EQ(thrown, EPERM);
  EXPECT_EQ(m.owner_tid(), current_tid());
  EXPECT_EQ(m.unlock_checked(), 0);
  EXPECT_EQ(m.unlock_checked(), EPERM);
}

TEST(PiMutexTest, AWaiterSleepsInTheKernelAndGetsTheLockHandedOver) {
  PiMutex m;
  m.lock();
  std::atomic<std::uint32_t> tid{0};
  std::atomic<int> rc{-1};
  std::thread waiter([&] {
    tid = current_tid();
    rc = m.lock_checked();
    m.unlock();
  });
  EXPECT_TRUE(eventually([&] { return (m.raw_word() & kFutexWaiters) != 0; }))
      << "no FUTEX_WAITERS: the waiter is not queued in FUTEX_LOCK_PI";
  EXPECT_EQ(m.owner_tid(), current_tid());
  EXPECT_TRUE(eventually([&] { return thread_state(tid.load()) == 'S'; }));
  EXPECT_EQ(rc.load(), -1);
  EXPECT_EQ(m.unlock_checked(), 0);  // FUTEX_UNLOCK_PI: the kernel makes the waiter the owner
  waiter.join();
  EXPECT_EQ(rc.load(), 0);
  EXPECT_EQ(m.raw_word(), 0u);
}

// The kernel's side of an owner that exited holding a PI futex and had no robust list entry
// for it: FUTEX_LOCK_PI sets FUTEX_WAITERS, then fails with ESRCH (and keeps failing).
TEST(PiMutexTest, KernelSaysEsrchWhenTheOwnerTidIsGone) {
  std::atomic<std::uint32_t> word{0};
  std::uint32_t dead = 0;
  std::thread([&] { dead = current_tid(); }).join();
  word = dead;
  EXPECT_EQ(futex_lock_pi(word), -ESRCH);
  EXPECT_EQ(word.load(), dead | kFutexWaiters);
  EXPECT_EQ(futex_lock_pi(word), -ESRCH);
  EXPECT_EQ(word.load(), dead | kFutexWaiters);
}

// ... and of a waiter already queued when the owner exits: the kernel gives it the lock (0) with
// FUTEX_OWNER_DIED and FUTEX_WAITERS set.
TEST(PiMutexTest, KernelHandsADeadOwnersLockToItsWaiterWithOwnerDied) {
  std::atomic<std::uint32_t> word{0};
  std::atomic<bool> exit_now{false};
  std::thread owner([&] {
    std::uint32_t zero = 0;
    word.compare_exchange_strong(zero, current_tid());
    while (!exit_now.load()) std::this_thread::sleep_for(1ms);
  });
  ASSERT_TRUE(eventually([&] { return word.load() != 0; }));
  std::atomic<long> rc{1};
  std::atomic<std::uint32_t> waiter_tid{0};
  std::thread waiter([&] {
    waiter_tid = current_tid();
    rc = futex_lock_pi(word);
  });
  ASSERT_TRUE(eventually([&] { return (word.load() & kFutexWaiters) != 0; }));
  exit_now = true;
  owner.join();
  waiter.join();
  EXPECT_EQ(rc.load(), 0);
  EXPECT_EQ(word.load(), waiter_tid.load() | kFutexOwnerDied | kFutexWaiters);
}

TEST(PiMutexTest, OwnerExitingWithTheLockGivesTheNextLockerEownerdeadAndTheLock) {
  PiMutex m;
  for (int round = 0; round < 2; ++round) {
    std::uint32_t dead = 0;
    std::thread([&] {
      ASSERT_EQ(m.lock_checked(), 0);
      dead = current_tid();
      tell_tsan_owner_exits(m);
    }).join();
    EXPECT_EQ(m.owner_tid(), dead);
    if (round == 0) {
      EXPECT_EQ(m.lock_checked(), EOWNERDEAD);
    } else {
      try {
        m.lock();
        ADD_FAILURE() << "lock() after the owner died did not throw";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code().value(), EOWNERDEAD);
      }
    }
    EXPECT_EQ(m.owner_tid(), current_tid()) << "EOWNERDEAD must leave the lock held";
    EXPECT_EQ(m.raw_word(), current_tid()) << "takeover leaves no stale bits";
    EXPECT_FALSE(m.try_lock());
    EXPECT_EQ(m.unlock_checked(), 0);
    EXPECT_EQ(m.raw_word(), 0u);
  }
  EXPECT_EQ(m.lock_checked(), 0);
  EXPECT_EQ(m.unlock_checked(), 0);
}

TEST(PiMutexTest, WaiterQueuedWhenTheOwnerExitsGetsEownerdeadAndTheLock) {
  PiMutex m;
  std::atomic<bool> exit_now{false};
  std::thread owner([&] {
    m.lock();
    while (!exit_now.load()) std::this_thread::sleep_for(1ms);
    tell_tsan_owner_exits(m);
  });
  ASSERT_TRUE(eventually([&] { return m.owner_tid() != 0; }));
  std::atomic<int> rc{-1};
  std::atomic<std::uint32_t> word_after{0}, me{0};
  std::atomic<int> unlock_rc{-1};
  std::thread waiter([&] {
    me = current_tid();
    rc = m.lock_checked();
    word_after = m.raw_word();
    unlock_rc = m.unlock_checked();
  });
  ASSERT_TRUE(eventually([&] { return (m.raw_word() & kFutexWaiters) != 0; }));
  exit_now = true;
  owner.join();
  waiter.join();
  EXPECT_EQ(rc.load(), EOWNERDEAD);
  EXPECT_EQ(word_after.load() & (kFutexTidMask | kFutexOwnerDied), me.load())
      << "held by the waiter, FUTEX_OWNER_DIED cleared";
  EXPECT_EQ(unlock_rc.load(), 0);
  EXPECT_EQ(m.raw_word(), 0u);
}

}  // namespace
}  // namespace rtgate::locks::test
