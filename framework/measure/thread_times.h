// Where a thread's wall time went, from its own clocks: on CPU, waiting on the runqueue, or
// neither, which for a runnable thread is time its CPU did not exist for the guest (host steal).
//
// The scheduler charges a task only the time its runqueue clock advanced, and with paravirt steal
// accounting (KVM) that clock leaves steal out; /proc/thread-self/schedstat's second field is the
// time the task was runnable but another task ran (preemption, RT throttling, the fair server).
// So over a window in which the thread was runnable throughout (spinning or preempted, never
// asleep):  wall = cpu + run_delay + unaccounted,  and `unaccounted` is the host's (or, on a
// kernel with CONFIG_IRQ_TIME_ACCOUNTING, IRQ time; on one without steal accounting it is 0 and
// the steal hides in `cpu`). Exact to the nanosecond and cheap: no /proc/stat ticks.
#pragma once

#include <cstdint>

namespace rtgate {

struct ThreadTimes {
  std::int64_t wall_ns = 0;       // CLOCK_MONOTONIC
  std::int64_t cpu_ns = 0;        // CLOCK_THREAD_CPUTIME_ID
  std::int64_t run_delay_ns = 0;  // schedstat; 0 when unreadable
};

struct WindowSplit {
  std::int64_t wall_ns = 0;
  std::int64_t cpu_ns = 0;
  std::int64_t preempted_ns = 0;    // runnable while another task ran
  std::int64_t unaccounted_ns = 0;  // runnable, "running", and no clock advanced: host steal
};

// Reads the calling thread's times. Construct it on the thread it reads (the schedstat file is
// the opening thread's); reading never allocates.
class ThreadTimesReader {
 public:
  ThreadTimesReader() noexcept;
  ~ThreadTimesReader();
  ThreadTimesReader(const ThreadTimesReader&) = delete;
  ThreadTimesReader& operator=(const ThreadTimesReader&) = delete;

  ThreadTimes now() const noexcept;
  bool has_run_delay() const noexcept { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

WindowSplit split_window(const ThreadTimes& start, const ThreadTimes& end) noexcept;

}  // namespace rtgate
