// Housekeeping CPUs: the CPUs a run does not measure on, where rtgate's own threads (the
// watchdog, the runner with its progress line) belong. "Measured" is what the suite's tracked
// threads are actually pinned to (cyclic -p cpus=1 measures CPU 1 only), not --cpus.
// Syscalls only (sched_getaffinity/sched_setaffinity on a stack cpu_set_t): callable from the
// FIFO-99 watchdog.
#pragma once

#include <sched.h>

#include "framework/measure/run_context.h"

namespace rtgate::rt {

// The union of the CPUs the run's tracked threads may run on (threads not started yet are
// skipped). Returns false when no tracked thread has started.
bool measured_cpus(RunContext& ctx, cpu_set_t* out) noexcept;

// Moves the calling thread onto the CPUs of `allowed` not in `measured`. Returns false (and
// leaves the thread where it is) when there is no such CPU.
bool move_to_housekeeping(const cpu_set_t& allowed, const cpu_set_t& measured) noexcept;

}  // namespace rtgate::rt
