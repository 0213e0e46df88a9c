// TraceEvent: one kernel trace event as the analyses read it, decoded from the ring buffer by
// EventDecoder (libtraceevent) and independent of it, so that the analyses are pure functions a
// test can feed by hand.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace rtgate::trace {

enum class Ev : std::uint8_t {
  kOther,
  kSwitch,        // sched_switch: pid=prev_pid prio=prev_prio comm=prev_comm, pid2/prio2/comm2=next
  kWaking,        // sched_waking: pid2=woken pid, prio2, comm2, value=target_cpu
  kWakeup,        // sched_wakeup: the same fields
  kPiSetprio,     // sched_pi_setprio: pid2=task, comm2, prio=old prio, prio2=new prio
  kIrqEntry,      // irq_handler_entry: value=irq, comm2=handler name
  kIrqExit,       // irq_handler_exit: value=irq
  kSoftirqEntry,  // softirq_entry: value=vec
  kSoftirqExit,   // softirq_exit: value=vec
  kVectorEntry,   // irq_vectors:*_entry (local_timer, reschedule, call_function, ...): comm2=name
  kVectorExit,    // irq_vectors:*_exit: comm2=name
  kHrtimerStart,  // hrtimer_start: addr=hrtimer, value=expires (ns)
  kHrtimerExpire,       // hrtimer_expire_entry: addr=hrtimer
  kMarker,              // ftrace print (trace_marker): comm2=text
  kContentionBegin,     // lock:contention_begin: addr=lock, value=flags
  kContentionEnd,       // lock:contention_end: addr=lock, value=ret
  kMmapStartLocking,    // mmap_lock_start_locking: addr=mm, value=write
  kMmapAcquired,        // mmap_lock_acquire_returned: addr=mm, value=write, prio2=success
  kStack,               // ftrace kernel_stack (a stacktrace trigger): stack=callers
  kMigrate,             // sched_migrate_task: pid2=task, prio2, comm2, value=dest_cpu
};

struct TraceEvent {
  std::int64_t ts = 0;  // CLOCK_MONOTONIC ns (the instance's "mono" trace clock)
  int cpu = 0;
  Ev type = Ev::kOther;
  pid_t pid = 0;   // common_pid (the task current on `cpu`), or prev_pid for kSwitch
  pid_t pid2 = 0;  // the other task (next, woken, boosted)
  int prio = 0, prio2 = 0;  // kernel priorities (0-99 RT, 100-139 normal)
  std::int64_t value = 0;
  std::uint64_t addr = 0;
  std::string comm, comm2;
  std::vector<std::uint64_t> stack;
  // The event as the kernel's trace file prints it, filled only when an excerpt needs it.
  std::string text;
  // The raw record (for formatting later) and its event id; empty in hand-made events.
  std::string raw;
  int event_id = -1;
};

}  // namespace rtgate::trace
