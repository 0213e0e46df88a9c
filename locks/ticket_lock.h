// TicketLock: FIFO spinlock. A thread takes a ticket from `next_` and waits until `owner_`
// ("now serving") reaches it; unlock() serves the next ticket.
//
// Words: two 32-bit counters in one cache line, both wrapping modulo 2^32.
//   next_   the next ticket to hand out; lock() takes one with fetch_add
//   owner_  the ticket now being served; only the holder writes it, in unlock()
// They are separate atomics rather than two 16-bit halves of one word because standard C++ has
// no atomic add on half of a word (the kernel's x86 ticket lock incremented the low half in
// place); with 32-bit counters the only limit is 2^32 - 1 threads waiting at once.
// Invariant: next_ - owner_ (mod 2^32) is the number of threads holding or waiting: 0 when free,
//            1 when held without waiters.
// Invariant: the holder is the thread whose ticket equals owner_, and owner_ != next_ while held.
// Invariant: tickets are served in the order fetch_add handed them out (FIFO).
//
// Memory ordering: the fetch_add on next_ only takes a place in line and is relaxed. The acquire
// is the load of owner_ that sees the thread's own ticket: it reads the release store of the
// previous holder's unlock(). unlock() is a plain load plus a release store of owner_ + 1 (no
// RMW needed: only the holder writes owner_). try_lock() loads owner_ with acquire and then
// CASes next_ from owner_ to owner_ + 1 (relaxed: the acquire was the load, and the CAS only
// succeeds while owner_ still holds the value loaded).
//
// RT caveats: spins. No priority inheritance. FIFO-fair: yes. FIFO hands the lock to one named
// waiter, so if that waiter is preempted everyone else waits for it to be scheduled again:
// waiters further back than next in line yield after a few pauses (under SCHED_OTHER
// oversubscription they hand their CPU to the one that can make progress), and the next in
// line spins, yielding after SpinWait's budget. NOT safe under SCHED_FIFO oversubscription: a
// SCHED_FIFO waiter spinning on the CPU of a preempted lower-priority holder (or next-in-line
// waiter) never lets it run, and sched_yield() does not yield to lower priorities.
#pragma once

#include <sched.h>

#include <atomic>
#include <cstdint>

#include "locks/catalogue.h"
#include "locks/lockable.h"
#include "locks/spin_wait.h"
#include "locks/tsan.h"

namespace rtgate::locks {

class alignas(64) TicketLock {
 public:
  // A waiter with other waiters ahead of it pauses this often between yields.
  static constexpr std::uint32_t kFarPausesBeforeYield = 8;

  TicketLock() noexcept { RTGATE_TSAN_CREATE(this, 0); }
  ~TicketLock() { RTGATE_TSAN_DESTROY(this); }
  TicketLock(const TicketLock&) = delete;
  TicketLock& operator=(const TicketLock&) = delete;

  void lock() noexcept {
    RTGATE_TSAN_PRE_LOCK(this, 0);
    const std::uint32_t ticket = next_.fetch_add(1, std::memory_order_relaxed);
    if (owner_.load(std::memory_order_acquire) != ticket) wait_for(ticket);
    RTGATE_TSAN_POST_LOCK(this, 0);
  }

  [[nodiscard]] bool try_lock() noexcept {
    RTGATE_TSAN_PRE_LOCK(this, RTGATE_TSAN_TRY);
    const std::uint32_t owner = owner_.load(std::memory_order_acquire);
    std::uint32_t expected = owner;
    const bool won = next_.compare_exchange_strong(expected, owner + 1, std::memory_order_relaxed,
                                                   std::memory_order_relaxed);
    RTGATE_TSAN_POST_LOCK(this, RTGATE_TSAN_TRY_OUTCOME(won));
    return won;
  }

  void unlock() noexcept {
    RTGATE_TSAN_PRE_UNLOCK(this, 0);
    owner_.store(owner_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    RTGATE_TSAN_POST_UNLOCK(this, 0);
  }

  // Test hook: tickets handed out so far (mod 2^32); a new waiter is queued once this moved.
  [[nodiscard]] std::uint32_t next_ticket_for_test() const noexcept {
    return next_.load(std::memory_order_relaxed);
  }

 private:
  void wait_for(std::uint32_t ticket) noexcept {
    SpinWait next_in_line;
    std::uint32_t far_pauses = 0;
    for (;;) {
      const std::uint32_t owner = owner_.load(std::memory_order_acquire);
      if (owner == ticket) return;
      if (ticket - owner == 1) {
        next_in_line.wait();
      } else if (++far_pauses < kFarPausesBeforeYield) {
        cpu_relax();
      } else {
        far_pauses = 0;
        sched_yield();
      }
    }
  }

  std::atomic<std::uint32_t> next_{0};
  std::atomic<std::uint32_t> owner_{0};
};

static_assert(Lockable<TicketLock>);
static_assert(std::atomic<std::uint32_t>::is_always_lock_free);

RTGATE_LOCK(TicketLock, {.name = "ticket",
                         .kind = LockKind::kSpin,
                         .pi = PiSupport::kNone,
                         .fifo = true,
                         .safe_fifo_oversubscribed = false,
                         .summary = "ticket spinlock: 32-bit next/owner counters, FIFO; waiters "
                                    "behind the next in line yield"});

}  // namespace rtgate::locks
