// What a thread that will take rtgate's locks on a measured path does first: every lock's
// per-thread state (qspinlock's thread number and its thread_local destructor, the cached tid
// of the futex locks, the MCS node pool) is set up here, where allocating is allowed, instead of
// inside the first contended acquisition.
#pragma once

#include "locks/futex.h"
#include "locks/mcs_lock.h"
#include "locks/qspinlock.h"

namespace rtgate::locks {

inline void prepare_lock_thread() noexcept {
  QSpinLock::prepare_thread();
  static_cast<void>(current_tid());
  static_cast<void>(McsNodePool::local());
}

}  // namespace rtgate::locks
