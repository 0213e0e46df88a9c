// FutexMutex: the classic three-state futex mutex (the third mutex of Drepper's "Futexes Are
// Tricky", written from its description). The state says whether anyone may be asleep, so an
// unlock makes a FUTEX_WAKE syscall only when that is possible.
//
// Word: one 32-bit futex word, `word_`.
//   0  free
//   1  held, nobody sleeping
//   2  held, waiters may be sleeping in FUTEX_WAIT (or were: 2 is pessimistic)
// Invariant: word_ != 0 exactly while one thread is between a winning lock()/try_lock() and its
//            unlock().
// Invariant: a thread sleeps in FUTEX_WAIT only on the value 2, and every unlock that replaces 2
//            wakes one sleeper, so no sleeper is forgotten. A woken thread (and any thread that
//            had to wait) acquires by exchanging in 2, not 1: it cannot know whether others still
//            sleep, so the next unlock wakes again, possibly needlessly.
//
// Memory ordering: the winning CAS 0 -> 1 and the winning exchange that returns 0 are acquire;
// unlock's exchange to 0 is release. FUTEX_WAIT/FUTEX_WAKE carry no ordering we rely on: the
// sleeper re-reads the word with an acquire RMW after every wake-up.
//
// Errors: FUTEX_WAIT returns EAGAIN (the word was not 2 any more) or EINTR (signal); both mean
// "look again", which the loop does whatever it returned. FUTEX_WAKE cannot fail on a valid,
// aligned, private word.
//
// RT caveats: sleeps instead of spinning: safe under SCHED_FIFO oversubscription. No priority
// inheritance: a high-priority waiter sleeps while a medium-priority thread preempts the low
// owner (unbounded inversion; use PiMutex). Not FIFO: FUTEX_WAKE wakes the highest-priority
// sleeper (FIFO within a priority), and a running thread may take the lock before the woken one
// gets a CPU (barging). Never reports errors: misuse (unlock by a non-owner) is undefined.
#pragma once

#include <atomic>
#include <cstdint>

#include "locks/catalogue.h"
#include "locks/futex.h"
#include "locks/lockable.h"
#include "locks/tsan.h"

namespace rtgate::locks {

class alignas(64) FutexMutex {
 public:
  static constexpr std::uint32_t kFree = 0;
  static constexpr std::uint32_t kLocked = 1;
  static constexpr std::uint32_t kContended = 2;

  FutexMutex() noexcept { RTGATE_TSAN_CREATE(this, 0); }
  ~FutexMutex() { RTGATE_TSAN_DESTROY(this); }
  FutexMutex(const FutexMutex&) = delete;
  FutexMutex& operator=(const FutexMutex&) = delete;

  void lock() noexcept {
    RTGATE_TSAN_PRE_LOCK(this, 0);
    std::uint32_t seen = kFree;
    if (!word_.compare_exchange_strong(seen, kLocked, std::memory_order_acquire,
                                       std::memory_order_relaxed)) {
      lock_slow(seen);
    }
    RTGATE_TSAN_POST_LOCK(this, 0);
  }

  [[nodiscard]] bool try_lock() noexcept {
    RTGATE_TSAN_PRE_LOCK(this, RTGATE_TSAN_TRY);
    std::uint32_t seen = kFree;
    const bool won = word_.compare_exchange_strong(seen, kLocked, std::memory_order_acquire,
                                                   std::memory_order_relaxed);
    RTGATE_TSAN_POST_LOCK(this, RTGATE_TSAN_TRY_OUTCOME(won));
    return won;
  }

  void unlock() noexcept {
    RTGATE_TSAN_PRE_UNLOCK(this, 0);
    if (word_.exchange(kFree, std::memory_order_release) == kContended) futex_wake(word_, 1);
    RTGATE_TSAN_POST_UNLOCK(this, 0);
  }

  // The word, for tests and diagnostics.
  std::uint32_t raw_word() const noexcept { return word_.load(std::memory_order_relaxed); }

 private:
  void lock_slow(std::uint32_t seen) noexcept {
    // Announce a (possible) sleeper before sleeping; if the exchange returns 0, we own it.
    if (seen != kContended) seen = word_.exchange(kContended, std::memory_order_acquire);
    while (seen != kFree) {
      futex_wait(word_, kContended);  // 0, -EAGAIN or -EINTR: all mean "look again"
      seen = word_.exchange(kContended, std::memory_order_acquire);
    }
  }

  std::atomic<std::uint32_t> word_{kFree};
};
static_assert(Lockable<FutexMutex>);

RTGATE_LOCK(FutexMutex, {.name = "futex_mutex",
                         .kind = LockKind::kSleep,
                         .pi = PiSupport::kNone,
                         .fifo = false,
                         .safe_fifo_oversubscribed = true,
                         .summary = "three-state futex mutex (Drepper's mutex #3: 0 free, 1 held, "
                                    "2 held with sleepers); sleeps, no PI, barging"});

}  // namespace rtgate::locks
