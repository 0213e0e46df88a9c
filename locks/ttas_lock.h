// TtasLock: test-and-test-and-set with bounded exponential backoff. Waiters spin on a plain load
// (the cache line stays shared while the lock is held) and only try the exchange once the lock
// looks free; a waiter that loses that race backs off for a pause count that doubles from
// kMinPauses up to kMaxPauses and then stays there, so a crowd of waiters does not hit the line
// all at once after every release.
//
// Word: one byte, `locked_`.
//   false  free
//   true   held
// Invariant: locked_ is true exactly while one thread is between a winning lock()/try_lock()
//            and its unlock().
// Invariant: only the holder stores false; waiters write the byte only by an exchange attempted
//            after a load saw it free.
//
// Memory ordering: the exchange that returns false (the winning RMW) is acquire; the polling
// loads are relaxed (they only decide when to try); unlock() is a release store.
//
// RT caveats: spins (pause; after kPausesBeforeYield pauses without the lock, sched_yield(), so
// a preempted holder gets a CPU under SCHED_OTHER oversubscription). The backoff trades hand-off
// latency for less line traffic: a waiter may notice a release up to kMaxPauses pauses late. No
// priority inheritance. Not FIFO: a waiter in backoff loses to newcomers and can starve. NOT safe
// under SCHED_FIFO oversubscription: a SCHED_FIFO waiter spinning on the CPU of a preempted
// lower-priority holder never lets the holder run (sched_yield() does not yield to lower
// priorities), so the holder never releases.
#pragma once

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "locks/catalogue.h"
#include "locks/lockable.h"
#include "locks/spin_wait.h"
#include "locks/tsan.h"

namespace rtgate::locks {

class alignas(64) TtasLock {
 public:
  static constexpr std::uint32_t kMinPauses = 1;
  static constexpr std::uint32_t kMaxPauses = 1024;
  // 4096 pauses: about 50 us at 13 ns a pause (a pause costs 10 to 140 cycles, by CPU model).
  static constexpr std::uint32_t kPausesBeforeYield = 4 * kMaxPauses;

  TtasLock() noexcept { RTGATE_TSAN_CREATE(this, 0); }
  ~TtasLock() { RTGATE_TSAN_DESTROY(this); }
  TtasLock(const TtasLock&) = delete;
  TtasLock& operator=(const TtasLock&) = delete;

  void lock() noexcept {
    RTGATE_TSAN_PRE_LOCK(this, 0);
    // Uncontended: one exchange, no preceding load (which would fetch the line shared, then
    // upgrade it).
    if (locked_.exchange(true, std::memory_order_acquire)) {
      Backoff backoff;
      for (;;) {
        while (locked_.load(std::memory_order_relaxed)) backoff.poll();
        if (!locked_.exchange(true, std::memory_order_acquire)) break;
        backoff.lost_race();
      }
    }
    RTGATE_TSAN_POST_LOCK(this, 0);
  }

  [[nodiscard]] bool try_lock() noexcept {
    RTGATE_TSAN_PRE_LOCK(this, RTGATE_TSAN_TRY);
    const bool won = !locked_.load(std::memory_order_relaxed) &&
                     !locked_.exchange(true, std::memory_order_acquire);
    RTGATE_TSAN_POST_LOCK(this, RTGATE_TSAN_TRY_OUTCOME(won));
    return won;
  }

  void unlock() noexcept {
    RTGATE_TSAN_PRE_UNLOCK(this, 0);
    locked_.store(false, std::memory_order_release);
    RTGATE_TSAN_POST_UNLOCK(this, 0);
  }

 private:
  // One waiter's backoff state: the current pause count and the pauses spent since the last
  // yield.
  class Backoff {
   public:
    // One poll of a held lock.
    void poll() noexcept {
      cpu_relax();
      spend(1);
    }
    // Lost the exchange to another waiter: pause, then double the next pause, up to the cap.
    void lost_race() noexcept {
      for (std::uint32_t i = 0; i < pauses_; ++i) cpu_relax();
      spend(pauses_);
      pauses_ = std::min(pauses_ * 2, kMaxPauses);
    }

   private:
    void spend(std::uint32_t pauses) noexcept {
      spent_ += pauses;
      if (spent_ >= kPausesBeforeYield) {
        spent_ = 0;
        sched_yield();
      }
    }
    std::uint32_t pauses_ = kMinPauses;
    std::uint32_t spent_ = 0;
  };

  std::atomic<bool> locked_{false};
};

static_assert(Lockable<TtasLock>);
static_assert(std::atomic<bool>::is_always_lock_free);

RTGATE_LOCK(TtasLock, {.name = "ttas",
                       .kind = LockKind::kSpin,
                       .pi = PiSupport::kNone,
                       .fifo = false,
                       .safe_fifo_oversubscribed = false,
                       .summary = "test-and-test-and-set spinlock, bounded exponential backoff "
                                  "(1..1024 pauses), then yield"});

}  // namespace rtgate::locks
