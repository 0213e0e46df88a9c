// RT readiness: can this process run SCHED_FIFO threads, and what limits apply.
#pragma once

#include <cstdint>
#include <string>

namespace rtgate::rt {

struct Readiness {
  bool sched_fifo = false;  // a SCHED_FIFO thread was actually created (the only real proof)
  std::string reason;       // why not, when sched_fifo is false
  bool is_root = false;
  bool cap_sys_nice = false;
  bool cap_ipc_lock = false;
  std::int64_t rlimit_rtprio = 0;   // RLIMIT_RTPRIO soft limit (-1 = unlimited)
  std::int64_t rlimit_memlock = 0;  // bytes, -1 = unlimited
  std::int64_t rt_runtime_us = 0;   // /proc/sys/kernel/sched_rt_runtime_us (-1 = off)
  std::int64_t rt_period_us = 0;
  bool throttling = false;  // rt_runtime_us != -1 and < rt_period_us
  bool cpu_dma_latency_writable = false;
};

Readiness check_readiness();

// Probe: tries to create a SCHED_FIFO thread at priority 1. Returns "" on success, else reason.
std::string probe_sched_fifo();

}  // namespace rtgate::rt
