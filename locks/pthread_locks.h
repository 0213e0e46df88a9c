// Baselines: the C library's and the standard library's locks behind the same interface as ours,
// so every suite and benchmark puts each of our locks beside what applications use today.
//
// RT caveats, per wrapper:
// - PthreadMutex / PthreadMutexAdaptive: futex-based, no PI. The adaptive one spins a bounded
//   number of times before sleeping (glibc's PTHREAD_MUTEX_ADAPTIVE_NP).
// - PthreadMutexPi: PTHREAD_PRIO_INHERIT, i.e. FUTEX_LOCK_PI in glibc: full PI.
// - PthreadRwlockReader / PthreadRwlockWriter: no PI at all (a blocked writer or reader boosts
//   nobody). Reader-preferring can starve writers; writer-preferring is glibc's
//   PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP.
// - PthreadSpinlock: spins forever, no backoff, no yield: never safe under FIFO oversubscription.
// - StdSharedMutex: libstdc++'s std::shared_mutex (a pthread_rwlock underneath): no PI.
#pragma once

#include <pthread.h>

#include <shared_mutex>
#include <system_error>

#include "locks/catalogue.h"
#include "locks/lockable.h"

namespace rtgate::locks {

namespace detail {
inline void check_pthread(int rc, const char* what) {
  if (rc != 0) throw std::system_error(rc, std::generic_category(), what);
}
}  // namespace detail

template <int kType, int kProtocol>
class BasicPthreadMutex {
 public:
  BasicPthreadMutex() {
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, kType);
    pthread_mutexattr_setprotocol(&a, kProtocol);
    const int rc = pthread_mutex_init(&m_, &a);
    pthread_mutexattr_destroy(&a);
    detail::check_pthread(rc, "pthread_mutex_init");
  }
  ~BasicPthreadMutex() { pthread_mutex_destroy(&m_); }
  BasicPthreadMutex(const BasicPthreadMutex&) = delete;
  BasicPthreadMutex& operator=(const BasicPthreadMutex&) = delete;

  void lock() { detail::check_pthread(pthread_mutex_lock(&m_), "pthread_mutex_lock"); }
  void unlock() { detail::check_pthread(pthread_mutex_unlock(&m_), "pthread_mutex_unlock"); }
  [[nodiscard]] bool try_lock() { return pthread_mutex_trylock(&m_) == 0; }

 private:
  alignas(64) pthread_mutex_t m_;
};

using PthreadMutex = BasicPthreadMutex<PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_NONE>;
using PthreadMutexAdaptive = BasicPthreadMutex<PTHREAD_MUTEX_ADAPTIVE_NP, PTHREAD_PRIO_NONE>;
using PthreadMutexPi = BasicPthreadMutex<PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_INHERIT>;
static_assert(Lockable<PthreadMutex> && Lockable<PthreadMutexPi>);

template <int kKind>
class BasicPthreadRwlock {
 public:
  BasicPthreadRwlock() {
    pthread_rwlockattr_t a;
    pthread_rwlockattr_init(&a);
    pthread_rwlockattr_setkind_np(&a, kKind);
    const int rc = pthread_rwlock_init(&l_, &a);
    pthread_rwlockattr_destroy(&a);
    detail::check_pthread(rc, "pthread_rwlock_init");
  }
  ~BasicPthreadRwlock() { pthread_rwlock_destroy(&l_); }
  BasicPthreadRwlock(const BasicPthreadRwlock&) = delete;
  BasicPthreadRwlock& operator=(const BasicPthreadRwlock&) = delete;

  void lock() { detail::check_pthread(pthread_rwlock_wrlock(&l_), "pthread_rwlock_wrlock"); }
  void unlock() { detail::check_pthread(pthread_rwlock_unlock(&l_), "pthread_rwlock_unlock"); }
  [[nodiscard]] bool try_lock() { return pthread_rwlock_trywrlock(&l_) == 0; }
  void lock_shared() { detail::check_pthread(pthread_rwlock_rdlock(&l_), "pthread_rwlock_rdlock"); }
  void unlock_shared() { unlock(); }
  [[nodiscard]] bool try_lock_shared() { return pthread_rwlock_tryrdlock(&l_) == 0; }

 private:
  alignas(64) pthread_rwlock_t l_;
};

using PthreadRwlockReader = BasicPthreadRwlock<PTHREAD_RWLOCK_PREFER_READER_NP>;
using PthreadRwlockWriter = BasicPthreadRwlock<PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP>;
static_assert(SharedLockable<PthreadRwlockReader> && SharedLockable<PthreadRwlockWriter>);

class PthreadSpinlock {
 public:
  PthreadSpinlock() {
    detail::check_pthread(pthread_spin_init(&s_, PTHREAD_PROCESS_PRIVATE), "pthread_spin_init");
  }
  ~PthreadSpinlock() { pthread_spin_destroy(&s_); }
  PthreadSpinlock(const PthreadSpinlock&) = delete;
  PthreadSpinlock& operator=(const PthreadSpinlock&) = delete;

  void lock() { pthread_spin_lock(&s_); }
  void unlock() { pthread_spin_unlock(&s_); }
  [[nodiscard]] bool try_lock() { return pthread_spin_trylock(&s_) == 0; }

 private:
  alignas(64) pthread_spinlock_t s_;
};
static_assert(Lockable<PthreadSpinlock>);

class StdSharedMutex {
 public:
  void lock() { m_.lock(); }
  void unlock() { m_.unlock(); }
  [[nodiscard]] bool try_lock() { return m_.try_lock(); }
  void lock_shared() { m_.lock_shared(); }
  void unlock_shared() { m_.unlock_shared(); }
  [[nodiscard]] bool try_lock_shared() { return m_.try_lock_shared(); }

 private:
  alignas(64) std::shared_mutex m_;
};
static_assert(SharedLockable<StdSharedMutex>);

RTGATE_LOCK(PthreadMutex, {.name = "pthread_mutex", .kind = LockKind::kSleep,
                           .safe_fifo_oversubscribed = true,
                           .summary = "glibc pthread_mutex_t, PTHREAD_MUTEX_NORMAL (baseline)"});
RTGATE_LOCK(PthreadMutexAdaptive,
            {.name = "pthread_mutex_adaptive", .kind = LockKind::kSleep,
             .safe_fifo_oversubscribed = true,
             .summary = "glibc PTHREAD_MUTEX_ADAPTIVE_NP: bounded spin, then sleep (baseline)"});
RTGATE_LOCK(PthreadMutexPi, {.name = "pthread_mutex_pi", .kind = LockKind::kSleep,
                             .pi = PiSupport::kFull, .safe_fifo_oversubscribed = true,
                             .summary = "glibc PTHREAD_PRIO_INHERIT mutex (FUTEX_LOCK_PI)"});
RTGATE_LOCK(PthreadRwlockReader,
            {.name = "pthread_rwlock", .kind = LockKind::kRw, .safe_fifo_oversubscribed = true,
             .summary = "glibc pthread_rwlock_t, reader-preferring (default), no PI"});
RTGATE_LOCK(PthreadRwlockWriter,
            {.name = "pthread_rwlock_wp", .kind = LockKind::kRw, .safe_fifo_oversubscribed = true,
             .summary = "glibc pthread_rwlock_t, writer-preferring, no PI"});
RTGATE_LOCK(PthreadSpinlock, {.name = "pthread_spin", .kind = LockKind::kSpin,
                              .summary = "glibc pthread_spinlock_t: spins, no backoff"});
RTGATE_LOCK(StdSharedMutex, {.name = "std_shared_mutex", .kind = LockKind::kRw,
                             .safe_fifo_oversubscribed = true,
                             .summary = "libstdc++ std::shared_mutex (pthread_rwlock), no PI"});

}  // namespace rtgate::locks
