// PiMutex: a priority-inheriting mutex on a Linux PI futex. Uncontended lock and unlock are one
// CAS each in userspace; a contended lock sleeps in FUTEX_LOCK_PI2 (FUTEX_LOCK_PI before 5.14),
// where the kernel queues the waiter on an rt_mutex and boosts the owner to the waiter's
// priority, and a contended unlock is FUTEX_UNLOCK_PI, which hands the lock to the top waiter.
//
// Word (the kernel's PI futex format, linux/futex.h):
//   bits 0-29  FUTEX_TID_MASK    owner's kernel TID (gettid()); 0 = free
//   bit 30     FUTEX_OWNER_DIED  set by the kernel when it gave the lock to a waiter after the
//                                owner exited holding it; cleared by the new owner on takeover
//   bit 31     FUTEX_WAITERS     set by the kernel while waiters may sleep: unlock must go through
//                                FUTEX_UNLOCK_PI
// Invariant: TID != 0 exactly while the lock is held, and TID is the owner (or an exited thread,
//            until someone takes over).
// Invariant: userspace writes the word only by CAS 0 -> tid (lock), tid -> 0 (unlock without
//            waiters), dead tid -> tid (takeover) and clearing OWNER_DIED as owner; everything
//            else is the kernel's, under its futex hash-bucket lock.
//
// Memory ordering: the winning CAS is acquire and the unlocking CAS release. Lock and unlock via
// the kernel: the kernel's cmpxchg on the word is a full barrier; after FUTEX_LOCK_PI returns,
// the word is read with acquire for the C++ model's sake (free on x86).
//
// Errors are returned by lock_checked()/unlock_checked() and thrown as std::system_error by
// lock()/unlock(), never swallowed:
//   EDEADLK     lock by the owner (found in userspace before any syscall; the kernel would
//               return it too, and does for longer PI deadlock cycles)
//   EPERM       unlock by a thread that is not the owner
//   EOWNERDEAD  the previous owner exited holding the lock. THE LOCK IS HELD BY THE CALLER (as
//               with a robust pthread mutex): the data it protects may be half-updated. lock()
//               throws it too, still holding the lock: catch it, repair, unlock().
// Owner death without a robust list (we register none): FUTEX_LOCK_PI on a word whose TID no
// longer exists fails with ESRCH, after setting FUTEX_WAITERS; the caller then CASes the dead
// TID to its own, provided the word held the same TID before and after the failed call (another
// thread may have taken over meanwhile). A waiter already asleep when the owner exits is given
// the lock by the kernel (rc 0) with FUTEX_OWNER_DIED | FUTEX_WAITERS set: also EOWNERDEAD.
//
// RT caveats: full PI (a waiter boosts the owner, transitively along chains of PI futexes).
// Never spins: safe under SCHED_FIFO oversubscription. Not FIFO: the kernel serves waiters in
// priority order, FIFO among waiters of equal priority (all SCHED_OTHER waiters rank equal), and
// the lock is handed over (no stealing by a thread that arrives after an unlock with waiters).
// Every contended acquisition is a syscall and a wake-up, and hand-over makes threads that retake
// the lock at once queue behind the woken owner (convoys). A recycled TID (after pid_max threads)
// in the word of a lock whose owner died makes waiters wait for the new, unrelated thread.
//
// TSAN: the lock is announced as a mutex, because FUTEX_UNLOCK_PI hands it over inside the kernel.
// TSAN cannot be told that a thread died holding it; a test that lets an owner die announces the
// release from the dying thread, or TSAN reports a double lock on takeover.
#pragma once

#include <linux/futex.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include "locks/catalogue.h"
#include "locks/futex.h"
#include "locks/lockable.h"
#include "locks/tsan.h"

namespace rtgate::locks {

inline constexpr std::uint32_t kFutexTidMask = FUTEX_TID_MASK;
inline constexpr std::uint32_t kFutexOwnerDied = FUTEX_OWNER_DIED;
inline constexpr std::uint32_t kFutexWaiters = FUTEX_WAITERS;

namespace detail {

// A lock that was just taken over after its owner died is held: both mean "the caller owns it".
inline bool pi_held(int rc) noexcept { return rc == 0 || rc == EOWNERDEAD; }

// For failures that cannot be reported through the caller's return type and that only a
// corrupted word can cause (the kernel refusing to unlock a PI word its caller owns).
[[noreturn]] inline void pi_fatal(const char* what, int err) noexcept {
  std::fprintf(stderr, "rtgate: %s: %s\n", what, std::strerror(err));
  std::abort();
}

// The PI futex protocol on one word, without TSAN annotations: PiMutex annotates it as a mutex;
// RwSem and PiRwSem, built from such words, annotate themselves as reader/writer locks instead.
// `me` is always current_tid(), passed in so that callers taking many words look it up once.
class PiWord {
 public:
  PiWord() = default;
  PiWord(const PiWord&) = delete;
  PiWord& operator=(const PiWord&) = delete;

  // 0, EDEADLK, EOWNERDEAD (held), or another errno from FUTEX_LOCK_PI (not held).
  int lock(std::uint32_t me) noexcept {
    std::uint32_t seen = 0;
    if (word_.compare_exchange_strong(seen, me, std::memory_order_acquire,
                                      std::memory_order_relaxed)) {
      return 0;
    }
    return lock_slow(me, seen);
  }

  [[nodiscard]] bool try_lock(std::uint32_t me) noexcept {
    std::uint32_t expected = 0;
    return word_.compare_exchange_strong(expected, me, std::memory_order_acquire,
                                         std::memory_order_relaxed);
  }

  // 0, EPERM (not the owner), or an errno from FUTEX_UNLOCK_PI.
  int unlock(std::uint32_t me) noexcept {
    std::uint32_t expected = me;
    if (word_.compare_exchange_strong(expected, 0, std::memory_order_release,
                                      std::memory_order_relaxed)) {
      return 0;
    }
    if ((expected & kFutexTidMask) != me) return EPERM;
    // FUTEX_WAITERS: the kernel makes its top waiter the owner (or stores 0 if none is left).
    return static_cast<int>(-futex_unlock_pi(word_));
  }

  // Relaxed reads, for ownership checks by the caller itself and for diagnostics.
  std::uint32_t owner() const noexcept {
    return word_.load(std::memory_order_relaxed) & kFutexTidMask;
  }
  std::uint32_t raw() const noexcept { return word_.load(std::memory_order_relaxed); }

 private:
  int lock_slow(std::uint32_t me, std::uint32_t seen) noexcept {
    for (;;) {
      const std::uint32_t owner = seen & kFutexTidMask;
      if (owner == me) return EDEADLK;
      if (seen == 0) {
        if (word_.compare_exchange_strong(seen, me, std::memory_order_acquire,
                                          std::memory_order_relaxed)) {
          return 0;
        }
        continue;
      }
      const long rc = futex_lock_pi(word_);
      if (rc == 0) return acquired_from_kernel();
      if (rc == -ESRCH || rc == -EOWNERDEAD) {
        // The owner's TID no longer exists. Take over only if the word still names the TID it
        // named before the call: otherwise someone else took over first and may be alive.
        seen = word_.load(std::memory_order_relaxed);
        if (owner != 0 && (seen & kFutexTidMask) == owner &&
            word_.compare_exchange_strong(seen, me, std::memory_order_acquire,
                                          std::memory_order_relaxed)) {
          return EOWNERDEAD;
        }
        continue;
      }
      if (rc == -EAGAIN) {  // owner exiting; kernels before 5.x return this instead of waiting
        seen = word_.load(std::memory_order_relaxed);
        continue;
      }
      return static_cast<int>(-rc);
    }
  }

  int acquired_from_kernel() noexcept {
    if ((word_.load(std::memory_order_acquire) & kFutexOwnerDied) == 0) return 0;
    // We own the word; the kernel may still set FUTEX_WAITERS concurrently, hence an RMW.
    word_.fetch_and(~kFutexOwnerDied, std::memory_order_relaxed);
    return EOWNERDEAD;
  }

  std::atomic<std::uint32_t> word_{0};
};

}  // namespace detail

class alignas(64) PiMutex {
 public:
  // The calling thread's cached tid (the futex word's owner value), read before the measured path.
  static void prepare_thread() noexcept { static_cast<void>(current_tid()); }

  PiMutex() noexcept { RTGATE_TSAN_CREATE(this, 0); }
  ~PiMutex() { RTGATE_TSAN_DESTROY(this); }
  PiMutex(const PiMutex&) = delete;
  PiMutex& operator=(const PiMutex&) = delete;

  // 0; EOWNERDEAD (held: the previous owner died); EDEADLK or another errno (not held).
  int lock_checked() noexcept {
    RTGATE_TSAN_PRE_LOCK(this, 0);
    const int rc = word_.lock(current_tid());
    RTGATE_TSAN_POST_LOCK(this, detail::pi_held(rc) ? 0u : RTGATE_TSAN_TRY_FAILED);
    return rc;
  }

  // 0; EPERM if the caller is not the owner (nothing changes); or an errno from FUTEX_UNLOCK_PI.
  int unlock_checked() noexcept {
    const std::uint32_t me = current_tid();
    if (word_.owner() != me) return EPERM;  // before TSAN hears of an unlock
    RTGATE_TSAN_PRE_UNLOCK(this, 0);
    const int rc = word_.unlock(me);
    RTGATE_TSAN_POST_UNLOCK(this, 0);
    return rc;
  }

  // Throws std::system_error(errno) on any error. After EOWNERDEAD the lock IS held by the caller.
  void lock() {
    if (const int rc = lock_checked(); rc != 0) {
      throw std::system_error(rc, std::generic_category(), "PiMutex::lock");
    }
  }
  void unlock() {
    if (const int rc = unlock_checked(); rc != 0) {
      throw std::system_error(rc, std::generic_category(), "PiMutex::unlock");
    }
  }

  // One CAS 0 -> tid: false whenever the word is not 0, also when the caller is the owner.
  [[nodiscard]] bool try_lock() noexcept {
    RTGATE_TSAN_PRE_LOCK(this, RTGATE_TSAN_TRY);
    const bool won = word_.try_lock(current_tid());
    RTGATE_TSAN_POST_LOCK(this, RTGATE_TSAN_TRY_OUTCOME(won));
    return won;
  }

  // The owner's TID, 0 if free (a relaxed snapshot).
  std::uint32_t owner_tid() const noexcept { return word_.owner(); }
  // The whole word, for tests and diagnostics (FUTEX_WAITERS shows a sleeping waiter).
  std::uint32_t raw_word() const noexcept { return word_.raw(); }

 private:
  detail::PiWord word_;  // first member: `this` is the futex word's address
};
static_assert(Lockable<PiMutex>);
static_assert(sizeof(PiMutex) == 64);

RTGATE_LOCK(PiMutex,
            {.name = "pi_mutex",
             .kind = LockKind::kSleep,
             .pi = PiSupport::kFull,
             .fifo = false,
             .safe_fifo_oversubscribed = true,
             .summary = "PI futex mutex (owner TID in the word, FUTEX_LOCK_PI2): the kernel "
                        "boosts the owner and serves waiters by priority, FIFO within "
                        "a priority; EDEADLK, EPERM, EOWNERDEAD reported"});

}  // namespace rtgate::locks
