// TasLock: the simplest spinlock, test-and-set on one byte. Every attempt is an atomic exchange,
// so waiters keep the cache line bouncing between CPUs even while the lock is held; it is the
// baseline the other spinlocks are measured against.
//
// Word: one byte, `locked_`.
//   false  free
//   true   held
// Invariant: locked_ is true exactly while one thread is between a winning lock()/try_lock()
//            and its unlock().
// Invariant: only the holder stores false.
//
// Memory ordering: the exchange that returns false (the winning RMW) is acquire; unlock() is a
// release store. Losing exchanges are acquire too, because it is the same instruction; nothing
// is read through them.
//
// RT caveats: spins (pause, then sched_yield() after SpinWait's budget). No priority
// inheritance. Not FIFO: whoever's exchange lands first after the release wins, so a waiter can
// starve. NOT safe under SCHED_FIFO oversubscription: a SCHED_FIFO waiter spinning on the CPU
// of a preempted lower-priority holder never lets the holder run, and sched_yield() does not
// yield to lower priorities, so the holder never releases.
#pragma once

#include <atomic>

#include "locks/catalogue.h"
#include "locks/lockable.h"
#include "locks/spin_wait.h"
#include "locks/tsan.h"

namespace rtgate::locks {

class alignas(64) TasLock {
 public:
  TasLock() noexcept { RTGATE_TSAN_CREATE(this, 0); }
  ~TasLock() { RTGATE_TSAN_DESTROY(this); }
  TasLock(const TasLock&) = delete;
  TasLock& operator=(const TasLock&) = delete;

  void lock() noexcept {
    RTGATE_TSAN_PRE_LOCK(this, 0);
    SpinWait wait;
    while (locked_.exchange(true, std::memory_order_acquire)) wait.wait();
    RTGATE_TSAN_POST_LOCK(this, 0);
  }

  [[nodiscard]] bool try_lock() noexcept {
    RTGATE_TSAN_PRE_LOCK(this, RTGATE_TSAN_TRY);
    const bool won = !locked_.exchange(true, std::memory_order_acquire);
    RTGATE_TSAN_POST_LOCK(this, RTGATE_TSAN_TRY_OUTCOME(won));
    return won;
  }

  void unlock() noexcept {
    RTGATE_TSAN_PRE_UNLOCK(this, 0);
    locked_.store(false, std::memory_order_release);
    RTGATE_TSAN_POST_UNLOCK(this, 0);
  }

 private:
  std::atomic<bool> locked_{false};
};

static_assert(Lockable<TasLock>);
static_assert(std::atomic<bool>::is_always_lock_free);

RTGATE_LOCK(TasLock, {.name = "tas",
                      .kind = LockKind::kSpin,
                      .pi = PiSupport::kNone,
                      .fifo = false,
                      .safe_fifo_oversubscribed = false,
                      .summary = "test-and-set spinlock: exchange on one byte, pause then yield"});

}  // namespace rtgate::locks
