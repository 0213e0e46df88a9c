// Thin wrappers over futex(2): plain wait/wake and the PI operations. Each returns 0 or -errno;
// none retries on its own except where noted, so callers see and report every error.
#pragma once

#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>

#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2 13  // Linux 5.14; absent from older headers
#endif

namespace rtgate::locks {

static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t) &&
                  std::atomic<std::uint32_t>::is_always_lock_free,
              "a futex word is a plain 32-bit integer");

inline std::uint32_t* futex_addr(std::atomic<std::uint32_t>& word) noexcept {
  return reinterpret_cast<std::uint32_t*>(&word);
}

inline long futex_call(std::atomic<std::uint32_t>& word, int op, std::uint32_t val,
                       const timespec* timeout = nullptr) noexcept {
  const long rc = syscall(SYS_futex, futex_addr(word), op, val, timeout, nullptr, 0);
  return rc < 0 ? -errno : rc;
}

// Sleeps while *word == expected. 0 on wake, -EAGAIN if the value differed, -EINTR on a signal.
inline long futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected) noexcept {
  return futex_call(word, FUTEX_WAIT_PRIVATE, expected);
}

inline long futex_wake(std::atomic<std::uint32_t>& word, int count) noexcept {
  return futex_call(word, FUTEX_WAKE_PRIVATE, static_cast<std::uint32_t>(count));
}

// FUTEX_LOCK_PI2 (CLOCK_MONOTONIC timeouts, Linux >= 5.14), falling back to FUTEX_LOCK_PI once
// the kernel has said ENOSYS. Retries EINTR: a PI lock attempt has no other reason to end early.
inline long futex_lock_pi(std::atomic<std::uint32_t>& word) noexcept {
  static std::atomic<bool> no_lock_pi2{false};
  for (;;) {
    long rc;
    if (!no_lock_pi2.load(std::memory_order_relaxed)) {
      rc = futex_call(word, FUTEX_LOCK_PI2 | FUTEX_PRIVATE_FLAG, 0);
      if (rc == -ENOSYS) {
        no_lock_pi2.store(true, std::memory_order_relaxed);
        continue;
      }
    } else {
      rc = futex_call(word, FUTEX_LOCK_PI_PRIVATE, 0);
    }
    if (rc != -EINTR) return rc;
  }
}

inline long futex_unlock_pi(std::atomic<std::uint32_t>& word) noexcept {
  return futex_call(word, FUTEX_UNLOCK_PI_PRIVATE, 0);
}

namespace detail {
// Bumped in the child after fork(): the child's thread has a new TID, and a cached one is stale.
inline std::atomic<unsigned> fork_generation{0};
inline const int fork_handler_installed =
    pthread_atfork(nullptr, nullptr, [] { fork_generation.fetch_add(1); });
}  // namespace detail

// The caller's kernel thread id, cached per thread (the PI futex word holds it), and refreshed
// in a child after fork().
inline std::uint32_t current_tid() noexcept {
  struct Cached {
    unsigned generation = ~0u;
    std::uint32_t tid = 0;
  };
  thread_local Cached cached;
  const unsigned gen = detail::fork_generation.load(std::memory_order_relaxed);
  if (cached.generation != gen) {
    cached = {gen, static_cast<std::uint32_t>(gettid())};
  }
  return cached.tid;
}

}  // namespace rtgate::locks
