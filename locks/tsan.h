// ThreadSanitizer annotations for the custom locks. TSAN understands atomics, but not an
// ownership hand-over done by the kernel (FUTEX_UNLOCK_PI gives the lock to a waiter without any
// userspace release/acquire pair), so every lock announces its lock/unlock to TSAN as a mutex.
// Without -fsanitize=thread these expand to nothing.
#pragma once

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define RTGATE_TSAN 1
#define RTGATE_TSAN_CREATE(addr, flags) __tsan_mutex_create((addr), (flags))
#define RTGATE_TSAN_DESTROY(addr) __tsan_mutex_destroy((addr), 0)
#define RTGATE_TSAN_PRE_LOCK(addr, flags) __tsan_mutex_pre_lock((addr), (flags))
#define RTGATE_TSAN_POST_LOCK(addr, flags) __tsan_mutex_post_lock((addr), (flags), 0)
#define RTGATE_TSAN_PRE_UNLOCK(addr, flags) __tsan_mutex_pre_unlock((addr), (flags))
#define RTGATE_TSAN_POST_UNLOCK(addr, flags) __tsan_mutex_post_unlock((addr), (flags))
#define RTGATE_TSAN_READ __tsan_mutex_read_lock
#define RTGATE_TSAN_TRY __tsan_mutex_try_lock
#define RTGATE_TSAN_TRY_FAILED __tsan_mutex_try_lock_failed
#else
#define RTGATE_TSAN 0
#define RTGATE_TSAN_CREATE(addr, flags) ((void)(addr), (void)(flags))
#define RTGATE_TSAN_DESTROY(addr) ((void)(addr))
#define RTGATE_TSAN_PRE_LOCK(addr, flags) ((void)(addr), (void)(flags))
#define RTGATE_TSAN_POST_LOCK(addr, flags) ((void)(addr), (void)(flags))
#define RTGATE_TSAN_PRE_UNLOCK(addr, flags) ((void)(addr), (void)(flags))
#define RTGATE_TSAN_POST_UNLOCK(addr, flags) ((void)(addr), (void)(flags))
#define RTGATE_TSAN_READ 0u
#define RTGATE_TSAN_TRY 0u
#define RTGATE_TSAN_TRY_FAILED 0u
#endif

// The post-lock flags of a try_lock that won or lost.
#define RTGATE_TSAN_TRY_OUTCOME(won) \
  ((won) ? RTGATE_TSAN_TRY : RTGATE_TSAN_TRY | RTGATE_TSAN_TRY_FAILED)
