// PiRwSem: a reader/writer lock with priority inheritance in both directions, built only from PI
// futex words (the PiMutex protocol, detail::PiWord): kSlots reader slots, each owned by one
// reader at a time, plus a writer word. A writer owns the writer word and every slot, so anyone
// who waits, waits in FUTEX_LOCK_PI on a word that names the thread in its way, and the kernel
// boosts that thread.
//
// Words (each a PI futex word on its own 64-byte line: owner TID | OWNER_DIED | WAITERS):
//   slots_[0 .. kSlots-1]  0 = free; a reader's TID while it reads; the writer's TID while a
//                          writer holds or is collecting the slots
//   writer_                the writer's TID while a writer holds the lock or is collecting slots
// Reader: start at the home slot (TID % kSlots), CAS the first free slot 0 -> TID; if every slot
// is taken, FUTEX_LOCK_PI on the home slot. unlock_shared: release the slot holding our TID
// (search from home). Writer: lock writer_, then every slot in index order (CAS or FUTEX_LOCK_PI);
// unlock: release every slot, then writer_.
// Invariant: a reader holds at most one slot, and never waits while holding one.
// Invariant: a writer holds writer_ before it takes any slot and releases it after the last, so
//            slots named by the writer_'s owner belong to that writer; all other held slots are
//            readers inside.
// Invariant: a writer is inside only when it holds all kSlots slots: no reader can be inside.
// No deadlock: cycles need a thread that waits while holding. Readers never do; writers wait
// while holding writer_ and slots 0..i-1, only for slot i, and only one writer at a time can be
// collecting (writer_); slot i's holder is a reader, who waits for nothing.
//
// Limits: kSlots concurrent readers (default 16). Readers beyond that wait for their home slot,
// boosting its holder: correct, but such readers serialize per slot. A writer waits, per slot, for
// the read section in progress there, plus readers already queued on that slot with a priority
// >= its own (served first; there are none unless more than kSlots readers contend): at most
// kSlots x the longest read section + kSlots+1 syscalls. Readers arriving while a writer collects
// slots take slots it has not reached yet (each costs it that slot's one read section, no more).
// Recursive read locks are not supported (a second slot, or EDEADLK, or a wait behind a writer).
//
// Memory ordering: every acquisition (slot or writer_) is an acquire CAS or a kernel hand-over,
// every release a release CAS or FUTEX_UNLOCK_PI (the kernel's cmpxchg is a full barrier). A
// reader entering after a writer acquires the slot the writer released; a writer acquires every
// slot after its last reader released it.
//
// Errors (the *_checked functions return them; the std-named functions throw std::system_error):
//   EDEADLK     lock() by a reader (no upgrade: the read lock stays held, nothing else is),
//               lock_shared() by the writer, or a PI deadlock cycle the kernel found (a
//               recursive read lock while a writer collects slots)
//   EPERM       unlock()/unlock_shared() by a thread that does not hold that mode
//   EOWNERDEAD  lock(): a writer exited holding the lock; the caller holds it now.
//               lock_shared(): the previous holder of the caller's slot exited holding it; the
//               caller holds the read lock now. That may have been a reader (nothing lost) or a
//               writer (the data may be half-written): reported either way.
// A reader that exits holding a slot is recovered: whoever needs the slot next takes it over
// (writers treat that as success, since a reader changed nothing).
//
// RT caveats: PiSupport::kFull. Never spins: safe under SCHED_FIFO oversubscription. Not FIFO:
// each word serves waiters by priority, FIFO within a priority. Reader preference per slot (see
// Limits), writer_ orders writers. A write lock costs kSlots+1 atomics on distinct lines.
//
// TSAN: announced as one reader/writer mutex at `this` (the words' hand-overs happen in the
// kernel). A writer's death needs the same announcement as PiMutex's (see pi_mutex.h).
#pragma once

#include <array>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <system_error>

#include "locks/catalogue.h"
#include "locks/futex.h"
#include "locks/lockable.h"
#include "locks/pi_mutex.h"
#include "locks/tsan.h"

namespace rtgate::locks {

template <std::size_t kSlots>
class alignas(64) BasicPiRwSem {
  static_assert(kSlots >= 1 && kSlots <= 256, "a slot is a cache line; a writer takes them all");

 public:
  static constexpr std::size_t kReaderSlots = kSlots;

  // The calling thread's cached tid (a slot's owner value), read before the measured path.
  static void prepare_thread() noexcept { static_cast<void>(current_tid()); }

  BasicPiRwSem() noexcept { RTGATE_TSAN_CREATE(this, 0); }
  ~BasicPiRwSem() { RTGATE_TSAN_DESTROY(this); }
  BasicPiRwSem(const BasicPiRwSem&) = delete;
  BasicPiRwSem& operator=(const BasicPiRwSem&) = delete;

  // 0; EOWNERDEAD (held); EDEADLK or another errno (not held).
  int lock_shared_checked() noexcept {
    const std::uint32_t me = current_tid();
    const std::size_t home = me % kSlots;
    RTGATE_TSAN_PRE_LOCK(this, RTGATE_TSAN_READ);
    const int rc = take_free_slot(me, home) ? 0 : slots_[home].word.lock(me);
    RTGATE_TSAN_POST_LOCK(
        this, detail::pi_held(rc) ? RTGATE_TSAN_READ : RTGATE_TSAN_READ | RTGATE_TSAN_TRY_FAILED);
    return rc;
  }

  [[nodiscard]] bool try_lock_shared() noexcept {
    const std::uint32_t me = current_tid();
    RTGATE_TSAN_PRE_LOCK(this, RTGATE_TSAN_READ | RTGATE_TSAN_TRY);
    const bool won = take_free_slot(me, me % kSlots);
    RTGATE_TSAN_POST_LOCK(this, RTGATE_TSAN_READ | RTGATE_TSAN_TRY_OUTCOME(won));
    return won;
  }

  // 0; EPERM if the caller holds no read lock; or an errno from FUTEX_UNLOCK_PI.
  int unlock_shared_checked() noexcept {
    const std::uint32_t me = current_tid();
    if (writer_.owner() == me) return EPERM;  // the writer's TID is in every slot
    const std::size_t home = me % kSlots;
    for (std::size_t i = 0; i < kSlots; ++i) {
      detail::PiWord& slot = slots_[(home + i) % kSlots].word;
      if (slot.owner() != me) continue;
      RTGATE_TSAN_PRE_UNLOCK(this, RTGATE_TSAN_READ);
      const int rc = slot.unlock(me);
      RTGATE_TSAN_POST_UNLOCK(this, RTGATE_TSAN_READ);
      return rc;
    }
    return EPERM;
  }

  // 0; EOWNERDEAD (held: a writer died holding it); EDEADLK or another errno (not held).
  int lock_checked() noexcept {
    const std::uint32_t me = current_tid();
    RTGATE_TSAN_PRE_LOCK(this, 0);
    int rc = writer_.lock(me);
    if (detail::pi_held(rc)) {
      for (std::size_t i = 0; i < kSlots; ++i) {
        const int slot_rc = slots_[i].word.lock(me);  // waits for (and boosts) the slot's reader
        if (detail::pi_held(slot_rc)) continue;       // EOWNERDEAD: a dead reader's slot
        release(i, me);
        rc = slot_rc;
        break;
      }
    }
    RTGATE_TSAN_POST_LOCK(this, detail::pi_held(rc) ? 0u : RTGATE_TSAN_TRY_FAILED);
    return rc;
  }

  [[nodiscard]] bool try_lock() noexcept {
    const std::uint32_t me = current_tid();
    RTGATE_TSAN_PRE_LOCK(this, RTGATE_TSAN_TRY);
    bool won = writer_.try_lock(me);
    for (std::size_t i = 0; won && i < kSlots; ++i) {
      if (!slots_[i].word.try_lock(me)) {
        release(i, me);
        won = false;
      }
    }
    RTGATE_TSAN_POST_LOCK(this, RTGATE_TSAN_TRY_OUTCOME(won));
    return won;
  }

  // 0; EPERM if the caller is not the writer (nothing changes); or the first errno from
  // FUTEX_UNLOCK_PI (every word is still released).
  int unlock_checked() noexcept {
    const std::uint32_t me = current_tid();
    if (writer_.owner() != me) return EPERM;
    RTGATE_TSAN_PRE_UNLOCK(this, 0);
    int rc = 0;
    for (std::size_t i = 0; i < kSlots; ++i) {
      if (const int slot_rc = slots_[i].word.unlock(me); slot_rc != 0 && rc == 0) rc = slot_rc;
    }
    if (const int writer_rc = writer_.unlock(me); writer_rc != 0 && rc == 0) rc = writer_rc;
    RTGATE_TSAN_POST_UNLOCK(this, 0);
    return rc;
  }

  void lock_shared() { check(lock_shared_checked(), "PiRwSem::lock_shared"); }
  void unlock_shared() { check(unlock_shared_checked(), "PiRwSem::unlock_shared"); }
  void lock() { check(lock_checked(), "PiRwSem::lock"); }
  void unlock() { check(unlock_checked(), "PiRwSem::unlock"); }

  // Relaxed snapshots of the words, for tests and diagnostics.
  std::uint32_t slot_word(std::size_t i) const noexcept { return slots_[i].word.raw(); }
  std::uint32_t writer_word() const noexcept { return writer_.raw(); }

 private:
  struct alignas(64) Slot {
    detail::PiWord word;
  };

  // Throws on any error; after EOWNERDEAD the lock is held.
  static void check(int rc, const char* what) {
    if (rc != 0) throw std::system_error(rc, std::generic_category(), what);
  }

  // Home slot first with a bare CAS (usually free); the others only if they look free, so that a
  // scan does not pull busy lines exclusive.
  bool take_free_slot(std::uint32_t me, std::size_t home) noexcept {
    if (slots_[home].word.try_lock(me)) return true;
    for (std::size_t i = 1; i < kSlots; ++i) {
      detail::PiWord& slot = slots_[(home + i) % kSlots].word;
      if (slot.raw() == 0 && slot.try_lock(me)) return true;
    }
    return false;
  }

  // Undo a partial write lock: slots [0, taken), then writer_.
  void release(std::size_t taken, std::uint32_t me) noexcept {
    for (std::size_t i = 0; i < taken; ++i) {
      if (const int rc = slots_[i].word.unlock(me); rc != 0) {
        detail::pi_fatal("PiRwSem: FUTEX_UNLOCK_PI", rc);
      }
    }
    if (const int rc = writer_.unlock(me); rc != 0)
      detail::pi_fatal("PiRwSem: FUTEX_UNLOCK_PI", rc);
  }

  std::array<Slot, kSlots> slots_;  // first member: `this` is slot 0's address
  alignas(64) detail::PiWord writer_;
};

using PiRwSem = BasicPiRwSem<16>;
static_assert(SharedLockable<PiRwSem>);

RTGATE_LOCK(PiRwSem, {.name = "pi_rw_sem",
                      .kind = LockKind::kRw,
                      .pi = PiSupport::kFull,
                      .fifo = false,
                      .safe_fifo_oversubscribed = true,
                      .summary = "multi-reader PI rwsem: 16 PI reader slots plus a PI writer word; "
                                 "every waiter boosts the thread it waits for; readers beyond 16 "
                                 "share slots"});

}  // namespace rtgate::locks
