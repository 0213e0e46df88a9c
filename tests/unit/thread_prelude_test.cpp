// The lock thread prelude runs each lock's registered hook before any acquisition: qspinlock's
// number is the one later acquisitions use, and distinct live threads get distinct numbers.
#include "locks/thread_prelude.h"

#include <gtest/gtest.h>

#include <thread>

#include "locks/qspinlock.h"
#include "locks/tas_lock.h"

namespace rtgate::locks {
namespace {

TEST(LockThreadPrelude, TakesTheQspinlockThreadNumberUpFront) {
  std::uint32_t a = 0, again = 0, b = 0;
  std::atomic<bool> hold{true}, first_ready{false};
  std::thread first([&] {
    prepare_lock_thread();
    a = QSpinLock::prepare_thread();
    QSpinLock lock;
    lock.lock();
    lock.unlock();
    again = QSpinLock::prepare_thread();
    first_ready.store(true);
    while (hold.load()) std::this_thread::yield();
  });
  while (!first_ready.load()) std::this_thread::yield();
  std::thread second([&] {
    prepare_lock_thread();
    b = QSpinLock::prepare_thread();
  });
  second.join();
  hold.store(false);
  first.join();
  EXPECT_LT(a, QSpinLock::kMaxThreads);
  EXPECT_EQ(a, again) << "the prelude's number is the one the thread keeps";
  EXPECT_NE(a, b) << "two live threads, two numbers";
}

TEST(LockThreadPrelude, EachLockWithThreadStateRegistersItsOwnHook) {
  const LockCatalogue& c = LockCatalogue::instance();
  for (const char* name : {"qspinlock", "mcs", "pi_mutex", "pi_rw_sem"}) {
    ASSERT_NE(c.find(name), nullptr) << name;
    EXPECT_NE(c.find(name)->prepare_thread, nullptr) << name;
  }
  EXPECT_EQ(c.of<TasLock>()->prepare_thread, nullptr) << "no per-thread state, no hook";
}

}  // namespace
}  // namespace rtgate::locks
