// What a thread that will take rtgate's locks on a measured path does first: every registered
// lock's per-thread state (qspinlock's thread number and its thread_local destructor, the cached
// tid of the PI futex locks, the MCS node pool) is set up here, where allocating is allowed,
// instead of inside the first contended acquisition. Each lock registers its own hook
// (LockInfo::prepare_thread); nothing here names a lock.
#pragma once

#include "locks/catalogue.h"

namespace rtgate::locks {

inline void prepare_lock_thread() noexcept {
  for (const LockInfo& lock : LockCatalogue::instance().all()) {
    if (lock.prepare_thread != nullptr) lock.prepare_thread();
  }
}

}  // namespace rtgate::locks
