// McsLock: the Mellor-Crummey/Scott queue lock. Waiters form a linked queue of per-thread nodes
// and each spins on its own node's cache line; unlock() hands the lock to the next node. The
// lock word is touched once per acquisition and at most once per release.
//
// std-compatible lock()/unlock() without a node argument: every thread has a small pool of
// cache-line-aligned nodes (McsNodePool, thread_local), lock() takes one, and the lock keeps the
// holder's node in `holder_`, a field only the holder reads or writes. A node is in use from
// lock() until the matching unlock() returns, so a thread can hold (or be acquiring) at most
// McsNodePool::kNodes = 8 McsLocks at once; the 9th lock() aborts with a message. Locks may be
// released in any order.
//
// Word: `tail_`, a pointer to the last node in the queue (nullptr: free, nobody queued).
// Node:  next   the successor, linked by the successor after it swapped itself into tail_
//        state  kWaiting -> (kNext) -> kOwner. kOwner: the lock is ours (set by ourselves when
//               the queue was empty, else by the predecessor's unlock). kNext: only a hint
//               that the predecessor holds the lock, so it is worth spinning rather than yielding.
// Invariant: tail_ == nullptr exactly when no thread holds or waits.
// Invariant: the holder's node is the head of the queue; each waiter's node is linked, or about
//            to be linked, from its predecessor's `next`.
// Invariant: a node's state is kOwner only for the holder. Once a node is linked, only its
//            predecessor, while holding the lock, writes its state.
// Invariant: holder_ is written by a thread just after it acquired and read in its unlock().
//
// Memory ordering: the exchange on tail_ is acq_rel (written reason): acquire because it is the
// winning RMW when the queue was empty, release so that a successor that swaps in after us sees
// our node initialised before it links itself to it (otherwise our `next = nullptr` could
// overwrite its link). Likewise try_lock's CAS. A waiter's acquire is the load that sees
// state == kOwner, reading the predecessor's release store. unlock() is release: the CAS of
// tail_ back to nullptr, or the store of kOwner into the successor. Loads of `next` are acquire
// because we then write into the node they point to, which its owner initialised.
//
// Cost: an uncontended lock+unlock is two locked RMWs (the tail exchange, and the CAS that clears
// tail_ on release; a plain store there could drop a waiter that swapped in between), where
// pthread_spin and TasLock need one plus a store, so it costs about twice theirs (bench_locks).
// That is the price of the queue; QSpinLock keeps a one-RMW uncontended path and queues only under
// contention.
//
// RT caveats: spins. No priority inheritance. FIFO-fair: yes (queue order = order of the tail_
// exchanges). FIFO hands the lock to one named waiter, so if it is preempted everyone waits for
// it: waiters that do not know they are next in line yield after a few pauses, the next in line
// spins (yielding after SpinWait's budget). NOT safe under SCHED_FIFO oversubscription: a
// SCHED_FIFO waiter spinning on the CPU of a preempted lower-priority holder (or next waiter, or
// a successor that has swapped tail_ but not linked yet) never lets it run, and sched_yield()
// does not yield to lower priorities.
#pragma once

#include <sched.h>

#include <atomic>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "locks/catalogue.h"
#include "locks/lockable.h"
#include "locks/spin_wait.h"
#include "locks/tsan.h"

namespace rtgate::locks {

struct alignas(64) McsNode {
  static constexpr std::uint32_t kWaiting = 0;
  static constexpr std::uint32_t kNext = 1;  // the predecessor holds the lock
  static constexpr std::uint32_t kOwner = 2;
  std::atomic<McsNode*> next{nullptr};
  std::atomic<std::uint32_t> state{kWaiting};
};

// The calling thread's nodes. Only the owning thread takes and returns them.
class McsNodePool {
 public:
  static constexpr unsigned kNodes = 8;

  static McsNodePool& local() noexcept {
    static constinit thread_local McsNodePool pool;
    return pool;
  }

  McsNode* take() noexcept {
    if (used_ == kAllUsed) {
      std::fprintf(stderr,
                   "rtgate: McsLock: this thread already holds or waits for %u MCS locks, the "
                   "most one thread may hold at once (McsNodePool::kNodes)\n",
                   kNodes);
      std::abort();
    }
    const unsigned index = static_cast<unsigned>(std::countr_one(used_));
    used_ = static_cast<std::uint8_t>(used_ | (1u << index));
    return &nodes_[index];
  }

  void give_back(const McsNode* node) noexcept {
    const auto index = static_cast<unsigned>(node - nodes_);
    used_ = static_cast<std::uint8_t>(used_ & ~(1u << index));
  }

 private:
  static constexpr std::uint8_t kAllUsed = 0xff;
  static_assert(kNodes == 8, "used_ is one bit per node");
  McsNode nodes_[kNodes];
  std::uint8_t used_ = 0;
};

class alignas(64) McsLock {
 public:
  // A waiter that does not know it is next in line pauses this often between yields.
  static constexpr std::uint32_t kFarPausesBeforeYield = 8;

  // The calling thread's node pool (a thread_local), touched before the measured path.
  static void prepare_thread() noexcept { static_cast<void>(McsNodePool::local()); }

  McsLock() noexcept { RTGATE_TSAN_CREATE(this, 0); }
  ~McsLock() { RTGATE_TSAN_DESTROY(this); }
  McsLock(const McsLock&) = delete;
  McsLock& operator=(const McsLock&) = delete;

  void lock() noexcept {
    RTGATE_TSAN_PRE_LOCK(this, 0);
    McsNode* me = McsNodePool::local().take();
    me->next.store(nullptr, std::memory_order_relaxed);
    me->state.store(McsNode::kWaiting, std::memory_order_relaxed);
    McsNode* pred = tail_.exchange(me, std::memory_order_acq_rel);
    if (pred == nullptr) {
      me->state.store(McsNode::kOwner, std::memory_order_relaxed);  // a hint for a successor
    } else {
      wait_behind(pred, me);
    }
    holder_ = me;
    RTGATE_TSAN_POST_LOCK(this, 0);
  }

  [[nodiscard]] bool try_lock() noexcept {
    RTGATE_TSAN_PRE_LOCK(this, RTGATE_TSAN_TRY);
    bool won = false;
    if (tail_.load(std::memory_order_relaxed) == nullptr) {
      McsNodePool& pool = McsNodePool::local();
      McsNode* me = pool.take();
      me->next.store(nullptr, std::memory_order_relaxed);
      me->state.store(McsNode::kOwner, std::memory_order_relaxed);
      McsNode* expected = nullptr;
      won = tail_.compare_exchange_strong(expected, me, std::memory_order_acq_rel,
                                          std::memory_order_relaxed);
      if (won) {
        holder_ = me;
      } else {
        pool.give_back(me);
      }
    }
    RTGATE_TSAN_POST_LOCK(this, RTGATE_TSAN_TRY_OUTCOME(won));
    return won;
  }

  void unlock() noexcept {
    RTGATE_TSAN_PRE_UNLOCK(this, 0);
    McsNode* me = holder_;
    McsNode* succ = me->next.load(std::memory_order_acquire);
    if (succ == nullptr) {
      McsNode* expected = me;
      if (!tail_.compare_exchange_strong(expected, nullptr, std::memory_order_release,
                                         std::memory_order_relaxed)) {
        // A successor swapped itself into tail_ and is about to link to us.
        SpinWait wait;
        while ((succ = me->next.load(std::memory_order_acquire)) == nullptr) wait.wait();
      }
    }
    if (succ != nullptr) succ->state.store(McsNode::kOwner, std::memory_order_release);
    McsNodePool::local().give_back(me);
    RTGATE_TSAN_POST_UNLOCK(this, 0);
  }

  // Test hook: the last queued node (nullptr when free); it changes whenever a waiter queues.
  [[nodiscard]] const void* tail_for_test() const noexcept {
    return tail_.load(std::memory_order_relaxed);
  }

 private:
  void wait_behind(McsNode* pred, McsNode* me) noexcept {
    // pred's node stays in use until we link to it (its unlock waits for the link), so it may
    // be read until then. If it already holds the lock, we are next in line.
    if (pred->state.load(std::memory_order_relaxed) == McsNode::kOwner) {
      me->state.store(McsNode::kNext, std::memory_order_relaxed);
    }
    pred->next.store(me, std::memory_order_release);
    SpinWait next_in_line;
    std::uint32_t far_pauses = 0;
    for (;;) {
      const std::uint32_t state = me->state.load(std::memory_order_acquire);
      if (state == McsNode::kOwner) break;
      if (state == McsNode::kNext) {
        next_in_line.wait();
      } else if (++far_pauses < kFarPausesBeforeYield) {
        cpu_relax();
      } else {
        far_pauses = 0;
        sched_yield();
      }
    }
    // Tell a successor that linked while we waited that it is next in line now.
    if (McsNode* succ = me->next.load(std::memory_order_acquire)) {
      succ->state.store(McsNode::kNext, std::memory_order_relaxed);
    }
  }

  std::atomic<McsNode*> tail_{nullptr};
  McsNode* holder_ = nullptr;  // the holder's node; only the holder touches it
};

static_assert(Lockable<McsLock>);
static_assert(std::atomic<McsNode*>::is_always_lock_free);

RTGATE_LOCK(McsLock, {.name = "mcs",
                      .kind = LockKind::kSpin,
                      .pi = PiSupport::kNone,
                      .fifo = true,
                      .safe_fifo_oversubscribed = false,
                      .summary = "MCS queue spinlock: per-thread nodes (8 per thread), FIFO, "
                                 "each waiter spins on its own cache line"});

}  // namespace rtgate::locks
