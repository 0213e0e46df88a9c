// TraceSession: a private tracefs instance for one run of --trace, through libtracefs.
//
// Never the global buffer: the instance is "rtgate-<pid>-<n>", configured with the events the
// worst-sample analysis reads (sched, irq, timer, lock contention, mmap_lock; whatever the kernel
// lacks is listed, not fatal), per-CPU buffers of buffer_kb, and the measured CPUs as its
// tracing_cpumask, and the "mono" trace clock (timestamps are CLOCK_MONOTONIC, like the
// loops' deadlines). It is removed by the destructor (every normal and exceptional exit, SIGINT
// included, since the runner unwinds); if the process dies first (SIGKILL, a crash) a reaper
// process removes it, and remove_stale_instances() at the next start removes any it missed.
//
// mark() and freeze() are for the measuring thread: each is one write(2) on a file descriptor
// opened at start (trace_marker, tracing_on), no allocation, no lock.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct tracefs_instance;

namespace rtgate::trace {

struct TraceConfig {
  std::vector<int> cpus;  // traced CPUs; empty = all
  int buffer_kb = 8192;   // per CPU
  // "system:event" (a regex each side, as libtracefs takes them) or "system".
  std::vector<std::string> events = default_events();
  static std::vector<std::string> default_events();
  // Record the kernel stack at each lock:contention_begin (its caller, for --trace=locks).
  bool lock_stacks = false;
};

class TraceSession {
 public:
  // nullptr and `why` (one line) when tracing cannot be had here: not root, no tracefs, no
  // libtracefs instance. Mounts tracefs when it is not mounted.
  static std::unique_ptr<TraceSession> start(const TraceConfig& config, std::string* why);
  ~TraceSession();
  TraceSession(const TraceSession&) = delete;
  TraceSession& operator=(const TraceSession&) = delete;

  const std::string& name() const { return name_; }
  // The configured events the kernel does not have (they were skipped).
  const std::vector<std::string>& missing_events() const { return missing_; }

  // Writes `text` into the trace as a marker (cyclictest's tracemark). RT-safe. The marker goes
  // into the writing CPU's buffer: from a CPU outside the traced set it is dropped (false).
  bool mark(std::string_view text) const noexcept;
  // Stops recording, keeping the buffer (cyclictest's breaktrace). RT-safe.
  void freeze() const noexcept;
  // The instance's "trace" file as text (not for a measured path).
  std::string read_text() const;
  // For readers of the ring buffer (TraceCollector).
  tracefs_instance* instance() const { return instance_; }

 private:
  TraceSession() = default;
  tracefs_instance* instance_ = nullptr;
  std::string name_;
  std::vector<std::string> missing_;
  int marker_fd_ = -1;
  int on_fd_ = -1;
  pid_t reaper_ = -1;   // removes the instance if this process dies without doing it
  int reaper_fd_ = -1;  // its pipe: closing it (or dying) tells it to look
};

// Removes the instances named rtgate-<pid>-* whose process no longer exists; returns how many.
int remove_stale_instances();

// The instance names that start with "rtgate-" (for tests and diagnostics).
std::vector<std::string> rtgate_instances();

}  // namespace rtgate::trace
