// QSpinLock: the Linux kernel's queued spinlock (kernel/locking/qspinlock.c), reimplemented in
// userspace from its description. The first waiter spins on the word with the pending bit; later
// ones queue MCS-style on per-thread nodes and only the queue head spins on the word.
//
// Word (32 bits):
//   bits  0-7   locked byte: 1 while held, else 0
//   bit   8     pending: one waiter is first in line and spins on the word, not in the queue
//   bits  9-15  always 0
//   bits 16-17  tail nesting level (0..kLevels-1) of the last queued node
//   bits 18-31  tail thread number + 1 of the last queued node (0 with bits 16-17: no queue)
// Transitions, written (tail, pending, locked):
//   lock fast path / try_lock    (0,0,0) -> (0,0,1)   CAS, acquire
//   first waiter sets pending    (0,0,*) -> (0,1,*)   fetch_or, acquire; then waits locked == 0
//   pending waiter takes over    (0,1,0) -> (0,0,1)   fetch_sub
//   pending lost to a race       (n,1,*) -> (n,0,*)   fetch_and: someone queued first, undo
//   waiter queues (tail t)       (n,p,l) -> (t,p,l)   CAS loop, acq_rel; links to node n
//   queue head, last in queue    (t,0,0) -> (0,0,1)   CAS; the queue is now empty
//   queue head, others behind    (n,0,0) -> (n,0,1)   fetch_or; then makes its successor head
//   unlock                       (*,*,1) -> (*,*,0)   fetch_sub, release
// Invariant: the locked byte is 1 exactly while one thread holds the lock.
// Invariant: at most one thread owns the pending bit at a time; the queue head waits for both
//            locked and pending to clear, so the pending waiter goes first (FIFO).
// Invariant: the word is 0 only when nobody holds or waits, and the fast path and try_lock
//            need 0, so nobody overtakes the pending waiter or the queue.
// Invariant: a node is in use only during its thread's slow path; a node named by the tail, or
//            linked as someone's `next`, belongs to a thread still inside lock().
//
// Memory ordering: acquire on the winning RMW (fast-path CAS, try_lock), or in the slow paths
// on the load that sees locked (pending waiter) or locked+pending (queue head) clear; the RMW
// that then sets the locked byte is relaxed, as nobody can take the lock in between. unlock()
// is a release fetch_sub (the kernel stores a byte; C++ has no byte store into a 32-bit
// atomic). Publishing the tail is acq_rel (written reason): release so the next waiter sees our
// node initialised before it links into it, acquire so we see our predecessor's node
// initialised before we link into it; loads of `next` are acquire for the same reason. The MCS
// hand-over is a release store into the next node.
//
// Threads and nodes: a thread gets a number (0..kMaxThreads-1) when it first queues; a
// thread_local destructor returns it at thread exit. Nodes: a static kMaxThreads x kLevels table
// of cache lines (1 MiB of bss). A node is free again when lock() returns, so a thread may hold
// any number of QSpinLocks; the levels let a signal handler queue while interrupting a slow path
// (like the kernel's per-context nodes). Past either limit lock() aborts with a message.
//
// RT caveats: spins. No priority inheritance. FIFO-fair: yes. Queued waiters behind the head
// yield after a few pauses; the pending waiter and the queue head spin, yielding after
// SpinWait's budget, so a preempted holder or head gets a CPU under SCHED_OTHER. NOT safe under
// SCHED_FIFO oversubscription: a SCHED_FIFO waiter spinning on the CPU of a preempted
// lower-priority holder (or queue head) never lets it run; sched_yield() does not yield to
// lower priorities.
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

struct alignas(64) QSpinNode {
  std::atomic<QSpinNode*> next{nullptr};
  std::atomic<std::uint32_t> head{0};  // 1: the predecessor made this node the queue head
};

class alignas(64) QSpinLock {
 public:
  // The RT thread prelude: takes the calling thread's number and registers its thread_local
  // destructor now (registering may allocate), not on its first contended acquisition, which is
  // on the measured path. Returns the number.
  static std::uint32_t prepare_thread() noexcept { return thread_slot().number; }

  static constexpr std::uint32_t kLocked = 1;
  static constexpr std::uint32_t kLockedMask = 0xff;
  static constexpr std::uint32_t kPending = 1u << 8;
  static constexpr std::uint32_t kLockedPendingMask = kLockedMask | kPending;
  static constexpr unsigned kLevelShift = 16;
  static constexpr unsigned kThreadShift = 18;
  static constexpr std::uint32_t kTailMask = 0xffff0000u;
  static constexpr std::uint32_t kLevels = 4;
  static constexpr std::uint32_t kMaxThreads = 4096;
  static_assert(kLevels == 1u << (kThreadShift - kLevelShift));
  static_assert(kMaxThreads < 1u << (32 - kThreadShift));
  static constexpr std::uint32_t kFarPausesBeforeYield = 8;
  static constexpr int kPendingHandOverPolls = 64;

  QSpinLock() noexcept { RTGATE_TSAN_CREATE(this, 0); }
  ~QSpinLock() { RTGATE_TSAN_DESTROY(this); }
  QSpinLock(const QSpinLock&) = delete;
  QSpinLock& operator=(const QSpinLock&) = delete;

  void lock() noexcept {
    RTGATE_TSAN_PRE_LOCK(this, 0);
    std::uint32_t val = 0;
    if (!word_.compare_exchange_strong(val, kLocked, std::memory_order_acquire,
                                       std::memory_order_relaxed)) {
      slow_path(val);
    }
    RTGATE_TSAN_POST_LOCK(this, 0);
  }

  [[nodiscard]] bool try_lock() noexcept {
    RTGATE_TSAN_PRE_LOCK(this, RTGATE_TSAN_TRY);
    const bool won = try_lock_word();
    RTGATE_TSAN_POST_LOCK(this, RTGATE_TSAN_TRY_OUTCOME(won));
    return won;
  }

  void unlock() noexcept {
    RTGATE_TSAN_PRE_UNLOCK(this, 0);
#if defined(__x86_64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    // Like the kernel's queued_spin_unlock: a release store of 0 to the locked byte alone (the
    // lowest-addressed byte here), not an RMW on the word. Only the holder writes that byte;
    // everyone else changes the word with RMWs, and x86 keeps mixed-size accesses coherent.
    // This is outside ISO C++ (mixed-size atomics), hence the GCC builtin and the guard.
    __atomic_store_n(reinterpret_cast<std::uint8_t*>(&word_), std::uint8_t{0}, __ATOMIC_RELEASE);
#else
    word_.fetch_sub(kLocked, std::memory_order_release);
#endif
    RTGATE_TSAN_POST_UNLOCK(this, 0);
  }

  // Test hook: the whole word, to observe the pending bit and the tail.
  [[nodiscard]] std::uint32_t word_for_test() const noexcept {
    return word_.load(std::memory_order_relaxed);
  }
  // Test hook: thread numbers in use (threads that have queued and not exited yet).
  [[nodiscard]] static std::uint32_t thread_numbers_in_use_for_test() noexcept {
    std::uint32_t n = 0;
    for (const auto& w : ThreadSlot::used) n += static_cast<std::uint32_t>(std::popcount(w.load()));
    return n;
  }

 private:
  // A thread's number (taken on its first slow path, returned at thread exit) and nesting level.
  struct ThreadSlot {
    static constexpr std::uint32_t kNone = ~std::uint32_t{0};
    static inline std::atomic<std::uint64_t> used[kMaxThreads / 64]{};
    std::uint32_t number = kNone;
    std::atomic<std::uint32_t> level{0};  // lock-free atomic: a signal handler may nest
    ~ThreadSlot() {
      if (number == kNone) return;
      used[number / 64].fetch_and(~(std::uint64_t{1} << (number % 64)), std::memory_order_release);
    }
  };

  static ThreadSlot& thread_slot() noexcept {
    static thread_local ThreadSlot slot;
    if (slot.number == ThreadSlot::kNone) slot.number = allocate_number();
    return slot;
  }

  static std::uint32_t allocate_number() noexcept {
    for (std::uint32_t w = 0; w < kMaxThreads / 64; ++w) {
      std::uint64_t bits = ThreadSlot::used[w].load(std::memory_order_relaxed);
      while (bits != ~std::uint64_t{0}) {
        const auto bit = static_cast<std::uint32_t>(std::countr_one(bits));
        if (ThreadSlot::used[w].compare_exchange_weak(bits, bits | (std::uint64_t{1} << bit),
                                                      std::memory_order_acquire,
                                                      std::memory_order_relaxed)) {
          return w * 64 + bit;
        }
      }
    }
    die("more than kMaxThreads (4096) threads queue at once");
  }

  static inline QSpinNode nodes_[kMaxThreads][kLevels];

  [[noreturn]] static void die(const char* why) noexcept {
    std::fprintf(stderr, "rtgate: QSpinLock: %s\n", why);
    std::abort();
  }
  static std::uint32_t encode_tail(std::uint32_t number, std::uint32_t level) noexcept {
    return ((number + 1) << kThreadShift) | (level << kLevelShift);
  }
  static QSpinNode* decode_tail(std::uint32_t tail) noexcept {
    return &nodes_[(tail >> kThreadShift) - 1][(tail >> kLevelShift) & (kLevels - 1)];
  }

  bool try_lock_word() noexcept {
    std::uint32_t val = word_.load(std::memory_order_relaxed);
    return val == 0 && word_.compare_exchange_strong(val, kLocked, std::memory_order_acquire,
                                                     std::memory_order_relaxed);
  }

  void slow_path(std::uint32_t val) noexcept {
    // Pending set, locked clear: a pending waiter is one RMW from taking the lock; let it,
    // rather than queueing behind a state that is about to change.
    for (int i = 0; val == kPending && i < kPendingHandOverPolls; ++i) {
      cpu_relax();
      val = word_.load(std::memory_order_relaxed);
    }
    if ((val & ~kLockedMask) == 0) {
      val = word_.fetch_or(kPending, std::memory_order_acquire);
      if ((val & ~kLockedMask) == 0) {
        if ((val & kLockedMask) != 0) {
          SpinWait wait;
          while ((word_.load(std::memory_order_acquire) & kLockedMask) != 0) wait.wait();
        }
        word_.fetch_sub(kPending - kLocked, std::memory_order_relaxed);
        return;
      }
      // Someone owned pending or had queued before us: undo our bit if we set it, and queue.
      if ((val & kPending) == 0) word_.fetch_and(~kPending, std::memory_order_relaxed);
    }
    queue();
  }

  void queue() noexcept {
    ThreadSlot& slot = thread_slot();
    const std::uint32_t number = slot.number;
    const std::uint32_t level = slot.level.load(std::memory_order_relaxed);
    if (level >= kLevels) die("more than kLevels (4) nested slow paths in one thread");
    slot.level.store(level + 1, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    wait_in_queue(&nodes_[number][level], encode_tail(number, level));
    std::atomic_signal_fence(std::memory_order_seq_cst);
    slot.level.store(level, std::memory_order_relaxed);
  }

  void wait_in_queue(QSpinNode* node, std::uint32_t tail) noexcept {
    node->next.store(nullptr, std::memory_order_relaxed);
    node->head.store(0, std::memory_order_relaxed);
    if (try_lock_word()) return;  // freed while we set up the node

    std::uint32_t old = word_.load(std::memory_order_relaxed);
    while (!word_.compare_exchange_weak(old, (old & ~kTailMask) | tail, std::memory_order_acq_rel,
                                        std::memory_order_relaxed)) {
    }
    QSpinNode* next = nullptr;
    if ((old & kTailMask) != 0) {
      decode_tail(old)->next.store(node, std::memory_order_release);
      // Behind the head: at least two hand-overs away, so yield early.
      std::uint32_t far_pauses = 0;
      while (node->head.load(std::memory_order_acquire) == 0) {
        if (++far_pauses < kFarPausesBeforeYield) {
          cpu_relax();
        } else {
          far_pauses = 0;
          sched_yield();
        }
      }
      next = node->next.load(std::memory_order_acquire);
    }

    // Queue head: the holder and the pending waiter go first.
    SpinWait wait;
    std::uint32_t val;
    while (((val = word_.load(std::memory_order_acquire)) & kLockedPendingMask) != 0) wait.wait();
    if ((val & kTailMask) == tail &&
        word_.compare_exchange_strong(val, kLocked, std::memory_order_relaxed,
                                      std::memory_order_relaxed)) {
      return;  // we were the last in the queue
    }
    // Someone queued behind us, or set pending and will see our tail and queue behind us.
    word_.fetch_or(kLocked, std::memory_order_relaxed);
    SpinWait link;
    while (next == nullptr && (next = node->next.load(std::memory_order_acquire)) == nullptr) {
      link.wait();
    }
    next->head.store(1, std::memory_order_release);
  }

  std::atomic<std::uint32_t> word_{0};
};

static_assert(Lockable<QSpinLock>);

RTGATE_LOCK(QSpinLock, {.name = "qspinlock",
                        .kind = LockKind::kSpin,
                        .pi = PiSupport::kNone,
                        .fifo = true,
                        .safe_fifo_oversubscribed = false,
                        .summary = "Linux qspinlock in userspace: 32-bit word, pending bit, MCS "
                                   "queue of per-thread nodes, FIFO"});

}  // namespace rtgate::locks
