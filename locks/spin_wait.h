// Spinning politely: `cpu_relax()` is the CPU's spin-wait hint (x86 `pause`), and SpinWait
// escalates from pause to sched_yield() after a bounded number of rounds.
//
// RT caveat: sched_yield() only yields to threads of the same or higher priority. Under
// SCHED_FIFO a waiter that spins on the CPU of a preempted lock holder of lower priority spins
// forever: spinlocks are never safe under FIFO oversubscription, whatever the backoff.
// Under SCHED_OTHER, the yield lets a preempted holder (or the next FIFO-queued waiter of a
// ticket/MCS lock) run, instead of burning a whole time slice.
#pragma once

#include <sched.h>

#include <cstdint>

namespace rtgate::locks {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#else
  asm volatile("" ::: "memory");
#endif
}

class SpinWait {
 public:
  static constexpr std::uint32_t kSpinsBeforeYield = 256;

  void wait() noexcept {
    if (++spins_ < kSpinsBeforeYield) {
      cpu_relax();
    } else {
      spins_ = 0;
      sched_yield();
    }
  }

 private:
  std::uint32_t spins_ = 0;
};

}  // namespace rtgate::locks
