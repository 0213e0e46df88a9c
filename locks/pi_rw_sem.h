// PiRwSem: a reader/writer lock with priority inheritance in both directions, built only from PI
// futex words (the PiMutex protocol, detail::PiWord): kSlots reader slots, each owned by one
// reader at a time, plus a writer word. Whoever waits, waits in FUTEX_LOCK_PI on a word that names
// the thread in its way, and the kernel boosts that thread.
//
// Words (each a PI futex word on its own 64-byte line: owner TID | OWNER_DIED | WAITERS):
//   slots_[0 .. kSlots-1]  0 = free; a reader's TID while it reads (or backs off, below); the
//                          writer's TID for a slot it had to wait for, until it unlocks
//   writer_                the writer's TID while a writer holds or is taking the lock; a
//                          reader's TID for the moment a reader that waited for a writer takes
//                          its slot
// Reader: CAS its home slot (TID % kSlots), else the first free one, 0 -> TID; then read
// writer_. Free: it is in (one atomic). Held: it releases the slot and waits in FUTEX_LOCK_PI on
// writer_ (boosting the writer); once it owns writer_, no writer can be in, so it takes a slot
// (waiting on its home slot, boosting that reader, if every slot is taken) and releases writer_.
// If every slot is taken at first, it waits on its home slot, then reads writer_ as above.
// unlock_shared: release the slot holding our TID (search from home).
// Writer: take writer_ (CAS, or FUTEX_LOCK_PI behind another writer), then read every slot: for
// each one held, FUTEX_LOCK_PI on it (boosting the reader inside) and keep it until unlock. With
// no reader in, that is one atomic to lock and one to unlock, as the kernel's rwsem.
// The pairing: a reader takes a slot, then reads writer_; a writer takes writer_, then reads the
// slots; both sequentially consistent (detail::PiWord), so at least one of the two sees the other.
// Invariant: a writer is inside only when it holds writer_ and no slot holds another thread:
//            every reader that took a slot after the writer took writer_ sees writer_ held and
//            leaves the slot; every reader before it, the writer waited for.
// Invariant: a reader holds at most one slot, and waits while holding a word only as the owner of
//            writer_, for its home slot, whose holder is a reader inside (who waits for nothing)
//            or a reader backing off (who releases it before waiting for writer_).
// No deadlock: writers wait while holding writer_ (and slots they took) only for slots held by
// readers; readers inside wait for nothing, readers backing off release their slot first.
//
// Limits: kSlots concurrent readers (default 16). Readers beyond that wait for their home slot,
// boosting its holder: correct, but such readers serialize per slot. A writer waits for the read
// sections in progress when it took writer_, no more: readers that arrive after it wait for it.
// Readers that waited for a writer go in one at a time (each takes writer_ for a slot), in
// priority order. Recursive read locks are not supported (a second slot, or a wait behind a
// writer, or EDEADLK).
//
// Memory ordering: every acquisition (slot or writer_) is a seq_cst CAS or a kernel hand-over
// followed by a seq_cst fence, and the reads of the other side are seq_cst loads; every release
// is a release CAS or FUTEX_UNLOCK_PI (the kernel's cmpxchg is a full barrier). A reader entering
// after a writer acquired writer_ from it, or saw it free after the writer's release; a writer
// acquires each held slot after its reader released it, and saw the others free.
//
// Errors (the *_checked functions return them; the std-named functions throw std::system_error):
//   EDEADLK     lock() by a reader (no upgrade: the read lock stays held, nothing else is),
//               lock_shared() by the writer, or a PI deadlock cycle the kernel found
//   EPERM       unlock()/unlock_shared() by a thread that does not hold that mode
//   EOWNERDEAD  lock(): a writer exited holding the lock; the caller holds it now.
//               lock_shared(): a writer exited holding the lock, or the previous holder of the
//               caller's home slot exited holding it; the caller holds the read lock now. The
//               latter may have been a reader (nothing lost): reported either way.
// A reader that exits holding a slot is recovered: whoever needs the slot next takes it over
// (writers treat that as success, since a reader changed nothing).
//
// RT caveats: PiSupport::kFull. Never spins: safe under SCHED_FIFO oversubscription. Not FIFO:
// each word serves waiters by priority, FIFO within a priority; writers and the readers that
// wait for one queue together on writer_.
//
// TSAN: announced as one reader/writer mutex at `this` (the words' hand-overs happen in the
// kernel). A writer's death needs the same announcement as PiMutex's (see pi_mutex.h).
#pragma once

#include <array>
#include <atomic>
#include <bitset>
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
    const std::size_t slot = take_free_slot(me, home);
    const int rc = slot != kNone && !writer_.held_sc() ? 0 : lock_shared_slow(me, home, slot);
    RTGATE_TSAN_POST_LOCK(
        this, detail::pi_held(rc) ? RTGATE_TSAN_READ : RTGATE_TSAN_READ | RTGATE_TSAN_TRY_FAILED);
    return rc;
  }

  [[nodiscard]] bool try_lock_shared() noexcept {
    const std::uint32_t me = current_tid();
    RTGATE_TSAN_PRE_LOCK(this, RTGATE_TSAN_READ | RTGATE_TSAN_TRY);
    const std::size_t slot = take_free_slot(me, me % kSlots);
    const bool won = slot != kNone && !writer_.held_sc();
    if (slot != kNone && !won) release_slot(slot, me);
    RTGATE_TSAN_POST_LOCK(this, RTGATE_TSAN_READ | RTGATE_TSAN_TRY_OUTCOME(won));
    return won;
  }

  // 0; EPERM if the caller holds no read lock; or an errno from FUTEX_UNLOCK_PI.
  int unlock_shared_checked() noexcept {
    const std::uint32_t me = current_tid();
    if (writer_.owner() == me) return EPERM;  // the slots the writer holds are not read locks
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
    if (detail::pi_held(rc) && any_slot_held()) rc = wait_for_readers(me, rc);
    RTGATE_TSAN_POST_LOCK(this, detail::pi_held(rc) ? 0u : RTGATE_TSAN_TRY_FAILED);
    return rc;
  }

  [[nodiscard]] bool try_lock() noexcept {
    const std::uint32_t me = current_tid();
    RTGATE_TSAN_PRE_LOCK(this, RTGATE_TSAN_TRY);
    bool won = writer_.try_lock(me);
    if (won && any_slot_held()) {
      release_writer(me);
      won = false;
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
    for (std::size_t i = 0; held_.any() && i < kSlots; ++i) {
      if (!held_.test(i)) continue;
      held_.reset(i);
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

  static constexpr std::size_t kNone = kSlots;

  // The slot taken: home first with a bare CAS (usually free), the others only if they look
  // free, so that a scan does not pull busy lines exclusive. kNone when every slot is taken.
  std::size_t take_free_slot(std::uint32_t me, std::size_t home) noexcept {
    if (slots_[home].word.try_lock(me)) return home;
    for (std::size_t i = 1; i < kSlots; ++i) {
      const std::size_t s = (home + i) % kSlots;
      if (slots_[s].word.raw() == 0 && slots_[s].word.try_lock(me)) return s;
    }
    return kNone;
  }

  // The reader's way in when a writer holds (or takes) the lock, or every slot is taken; `slot`
  // is the one the fast path took, or kNone.
  int lock_shared_slow(std::uint32_t me, std::size_t home, std::size_t slot) noexcept {
    bool died = false;
    if (slot == kNone) {  // every slot taken: wait for the home slot's reader, boosting it
      const int rc = slots_[home].word.lock(me);
      if (!detail::pi_held(rc)) return rc;
      if (!writer_.held_sc()) return rc;
      slot = home;
      died = rc == EOWNERDEAD;
    }
    release_slot(slot, me);
    if (writer_.owner() == me) return EDEADLK;  // the writer asking for a read lock
    // Behind the writer, boosting it. Owning writer_, no writer is in: take a slot, let go.
    const int rc = writer_.lock(me);
    if (!detail::pi_held(rc)) return rc;
    died = died || rc == EOWNERDEAD;
    const std::size_t free = take_free_slot(me, home);
    const int slot_rc = free != kNone ? 0 : slots_[home].word.lock(me);
    if (const int w = writer_.unlock(me); w != 0) detail::pi_fatal("PiRwSem: FUTEX_UNLOCK_PI", w);
    if (!detail::pi_held(slot_rc)) return slot_rc;
    return died || slot_rc == EOWNERDEAD ? EOWNERDEAD : 0;
  }

  // Whether any slot holds a thread, read after taking writer_: one pass of plain loads (on x86),
  // no branch per slot.
  bool any_slot_held() const noexcept {
    std::uint32_t any = 0;
    for (const Slot& s : slots_) any |= s.word.raw_sc();
    return any != 0;
  }

  // The writer, holding writer_ (rc 0 or EOWNERDEAD), waits for each slot held by a reader inside
  // (or backing off), boosting it, and keeps the slot until unlock. EOWNERDEAD from a slot: a
  // dead reader's, taken over. Returns rc, or the error that undid the write lock (EDEADLK: the
  // caller reads).
  int wait_for_readers(std::uint32_t me, int rc) noexcept {
    for (std::size_t i = 0; i < kSlots; ++i) {
      if (!slots_[i].word.held_sc()) continue;
      const int slot_rc = slots_[i].word.lock(me);
      if (!detail::pi_held(slot_rc)) {
        release_writer(me);
        return slot_rc;
      }
      held_.set(i);
    }
    return rc;
  }

  void release_slot(std::size_t slot, std::uint32_t me) noexcept {
    if (const int rc = slots_[slot].word.unlock(me); rc != 0) {
      detail::pi_fatal("PiRwSem: FUTEX_UNLOCK_PI", rc);
    }
  }

  // Undo a partial write lock: the slots taken, then writer_.
  void release_writer(std::uint32_t me) noexcept {
    for (std::size_t i = 0; held_.any() && i < kSlots; ++i) {
      if (held_.test(i)) release_slot(i, me);
    }
    held_.reset();
    if (const int rc = writer_.unlock(me); rc != 0) {
      detail::pi_fatal("PiRwSem: FUTEX_UNLOCK_PI", rc);
    }
  }

  std::array<Slot, kSlots> slots_;  // first member: `this` is slot 0's address
  alignas(64) detail::PiWord writer_;
  std::bitset<kSlots> held_;  // the slots the writer waited for; only the writer_'s owner writes
};

using PiRwSem = BasicPiRwSem<16>;
static_assert(SharedLockable<PiRwSem>);

RTGATE_LOCK(PiRwSem, {.name = "pi_rw_sem",
                      .kind = LockKind::kRw,
                      .pi = PiSupport::kFull,
                      .fifo = false,
                      .safe_fifo_oversubscribed = true,
                      .summary = "multi-reader PI rwsem: 16 PI reader slots plus a PI writer word; "
                                 "one atomic per uncontended lock or unlock; every waiter boosts "
                                 "the thread it waits for; readers beyond 16 share slots"});

}  // namespace rtgate::locks
