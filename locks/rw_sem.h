// RwSem: a reader/writer semaphore modelled on PREEMPT_RT's rwbase_rt (the rw_semaphore and
// rwlock of RT kernels), in userspace: a reader count with a bias bit, and a PI word (the
// PiMutex protocol, detail::PiWord) that serializes writers and parks readers behind a writer.
//
// Words:
//   readers_ (futex word)  bit 31      READER_BIAS: set = no writer, readers may take the fast path
//                          bits 0-30   readers inside (and none other: a slow-path reader counts
//                                      itself only once admitted)
//   writer_ (PI futex)     the PiMutex word: owner TID | FUTEX_OWNER_DIED | FUTEX_WAITERS
//
// State table (B = READER_BIAS, n = bits 0-30):
//   readers_  writer_  meaning
//   B + 0     free     free
//   B + n     free     n readers; more readers enter with a CAS n -> n+1
//   B + n     held     a slow-path reader admitting itself, a writer that has not yet removed
//                      the bias or has restored it and not yet released writer_, or a try_lock
//                      about to fail; fast-path readers still enter
//   n > 0     held     a writer waits (futex_wait on readers_) for n readers to leave; new
//                      readers find no bias and block on writer_, i.e. on the writer
//   0         held     a writer is inside
//   no B      free     impossible (but left behind by a writer that exited holding the lock)
// Invariant: B is clear only while writer_ is held by a writer; only writer_'s owner flips B.
// Invariant: with B clear, n only decreases, and the reader that takes readers_ to exactly 0
//            wakes the writer (0 means: no bias, no reader, so a writer waits or is inside).
// Invariant: a slow-path reader holds writer_ only for one increment, never while waiting.
//
// Memory ordering: reader entry is an acquire CAS (fast path) or goes through writer_ (acquire
// CAS or the kernel hand-over); reader exit is a release decrement. The writer's bias removal is
// an acquire RMW and its wait loop loads with acquire: it reads the count written by the last
// reader's release decrement, and since every decrement is an RMW, that value ends the release
// sequence of every earlier reader's exit, so the writer sees all their reads completed. Writer
// exit: restoring the bias is release (fast-path readers acquire it), then writer_ is released.
//
// Errors (lock_checked / lock_shared_checked / unlock_checked return them; the std-named
// functions throw std::system_error):
//   EDEADLK     lock_shared() or lock() by the thread holding the write lock
//   EPERM       unlock() by a thread that does not hold the write lock
//   EOWNERDEAD  a writer exited holding the lock; the caller now holds it (read or write) and the
//               bias is repaired. A reader that exits holding a read lock is NOT detectable: its
//               count stays and writers wait forever.
// Not detected, and deadlocks: lock() while holding a read lock; a recursive lock_shared() while
// a writer waits (it blocks behind the writer, which waits for it).
//
// RT caveats: PiSupport::kWriterOnly. Readers blocked on a writer sleep in FUTEX_LOCK_PI on
// writer_ and boost the writer (also while it still waits for readers: it holds writer_). A
// writer waiting for readers sleeps in plain FUTEX_WAIT and boosts nobody: a high-priority
// writer behind a low-priority reader preempted by medium-priority work waits unboundedly, as on
// PREEMPT_RT. Never spins: safe under SCHED_FIFO oversubscription. Writers are served by the PI
// futex (priority order, FIFO within a priority); once a writer has removed the bias, new readers
// queue behind it (writer preference). Not FIFO between readers and writers.
//
// TSAN: announced as one reader/writer mutex at `this` (writer_'s hand-overs happen in the
// kernel). A writer's death needs the same announcement as PiMutex's (see pi_mutex.h).
#pragma once

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <system_error>

#include "locks/catalogue.h"
#include "locks/futex.h"
#include "locks/lockable.h"
#include "locks/pi_mutex.h"
#include "locks/tsan.h"

namespace rtgate::locks {

class alignas(64) RwSem {  // NOLINT(clang-analyzer-optin.performance.Padding): one line per word
 public:
  static constexpr std::uint32_t kReaderBias = 1u << 31;

  RwSem() noexcept { RTGATE_TSAN_CREATE(this, 0); }
  ~RwSem() { RTGATE_TSAN_DESTROY(this); }
  RwSem(const RwSem&) = delete;
  RwSem& operator=(const RwSem&) = delete;

  // 0; EOWNERDEAD (held); EDEADLK (the caller is the writer) or another errno (not held).
  int lock_shared_checked() noexcept {
    RTGATE_TSAN_PRE_LOCK(this, RTGATE_TSAN_READ);
    const int rc = read_fast() ? 0 : read_slow();
    RTGATE_TSAN_POST_LOCK(
        this, detail::pi_held(rc) ? RTGATE_TSAN_READ : RTGATE_TSAN_READ | RTGATE_TSAN_TRY_FAILED);
    return rc;
  }

  [[nodiscard]] bool try_lock_shared() noexcept {
    RTGATE_TSAN_PRE_LOCK(this, RTGATE_TSAN_READ | RTGATE_TSAN_TRY);
    const bool won = read_fast();
    RTGATE_TSAN_POST_LOCK(this, RTGATE_TSAN_READ | RTGATE_TSAN_TRY_OUTCOME(won));
    return won;
  }

  // Undefined if the caller holds no read lock (like std::shared_mutex).
  void unlock_shared() noexcept {
    RTGATE_TSAN_PRE_UNLOCK(this, RTGATE_TSAN_READ);
    // Old value 1 = new value 0: no bias, no reader left: the writer waits for exactly this.
    if (readers_.fetch_sub(1, std::memory_order_release) == 1) futex_wake(readers_, 1);
    RTGATE_TSAN_POST_UNLOCK(this, RTGATE_TSAN_READ);
  }

  // 0; EOWNERDEAD (held); EDEADLK or another errno (not held).
  int lock_checked() noexcept {
    RTGATE_TSAN_PRE_LOCK(this, 0);
    const int rc = writer_.lock(current_tid());
    if (detail::pi_held(rc)) {
      // The bias is set (writer_ was free), unless a writer died holding writer_ after removing it.
      std::uint32_t r = 0;
      if (rc == 0 || (readers_.load(std::memory_order_relaxed) & kReaderBias) != 0) {
        r = readers_.fetch_sub(kReaderBias, std::memory_order_acquire) - kReaderBias;
      } else {
        r = readers_.load(std::memory_order_acquire);
      }
      while (r != 0) {
        futex_wait(readers_, r);  // 0, -EAGAIN (count changed) or -EINTR: look again
        r = readers_.load(std::memory_order_acquire);
      }
    }
    RTGATE_TSAN_POST_LOCK(this, detail::pi_held(rc) ? 0u : RTGATE_TSAN_TRY_FAILED);
    return rc;
  }

  [[nodiscard]] bool try_lock() noexcept {
    const std::uint32_t me = current_tid();
    RTGATE_TSAN_PRE_LOCK(this, RTGATE_TSAN_TRY);
    bool won = writer_.try_lock(me);
    if (won) {
      std::uint32_t expected = kReaderBias;  // bias set, no reader
      won = readers_.compare_exchange_strong(expected, 0, std::memory_order_acquire,
                                             std::memory_order_relaxed);
      if (!won) release_writer(me);
    }
    RTGATE_TSAN_POST_LOCK(this, RTGATE_TSAN_TRY_OUTCOME(won));
    return won;
  }

  // 0; EPERM if the caller is not the writer (nothing changes); or an errno from FUTEX_UNLOCK_PI.
  int unlock_checked() noexcept {
    const std::uint32_t me = current_tid();
    if (writer_.owner() != me) return EPERM;
    RTGATE_TSAN_PRE_UNLOCK(this, 0);
    readers_.fetch_add(kReaderBias, std::memory_order_release);
    const int rc = writer_.unlock(me);
    RTGATE_TSAN_POST_UNLOCK(this, 0);
    return rc;
  }

  void lock_shared() { check(lock_shared_checked(), "RwSem::lock_shared"); }
  void lock() { check(lock_checked(), "RwSem::lock"); }
  void unlock() { check(unlock_checked(), "RwSem::unlock"); }

  // Relaxed snapshots of both words, for tests and diagnostics.
  std::uint32_t readers_word() const noexcept { return readers_.load(std::memory_order_relaxed); }
  std::uint32_t writer_word() const noexcept { return writer_.raw(); }

 private:
  // Throws on any error; after EOWNERDEAD the lock is held.
  static void check(int rc, const char* what) {
    if (rc != 0) throw std::system_error(rc, std::generic_category(), what);
  }

  bool read_fast() noexcept {
    std::uint32_t r = readers_.load(std::memory_order_relaxed);
    while ((r & kReaderBias) != 0) {
      if (readers_.compare_exchange_weak(r, r + 1, std::memory_order_acquire,
                                         std::memory_order_relaxed)) {
        return true;
      }
    }
    return false;
  }

  // A writer is inside or waiting: queue on writer_ (boosting the writer), count ourselves in
  // while holding it (no writer can be in: the bias is set), and let the next one through.
  int read_slow() noexcept {
    const std::uint32_t me = current_tid();
    const int rc = writer_.lock(me);
    if (!detail::pi_held(rc)) return rc;
    std::uint32_t add = 1;
    if (rc == EOWNERDEAD && (readers_.load(std::memory_order_relaxed) & kReaderBias) == 0) {
      add += kReaderBias;  // the dead writer removed the bias; nobody else restores it
    }
    // Relaxed: the ordering with the previous writer came through writer_.
    readers_.fetch_add(add, std::memory_order_relaxed);
    release_writer(me);
    return rc;
  }

  void release_writer(std::uint32_t me) noexcept {
    if (const int rc = writer_.unlock(me); rc != 0) detail::pi_fatal("RwSem: FUTEX_UNLOCK_PI", rc);
  }

  std::atomic<std::uint32_t> readers_{kReaderBias};  // first member: `this` is its address
  alignas(64) detail::PiWord writer_;                // own line: readers' fast path skips it
};
static_assert(SharedLockable<RwSem>);

RTGATE_LOCK(RwSem, {.name = "rw_sem",
                    .kind = LockKind::kRw,
                    .pi = PiSupport::kWriterOnly,
                    .fifo = false,
                    .safe_fifo_oversubscribed = true,
                    .summary = "PREEMPT_RT rwbase_rt-style rwsem: reader count with READER_BIAS "
                               "plus a PI writer word; blocked readers boost the writer, a writer "
                               "waiting for readers boosts nobody"});

}  // namespace rtgate::locks
