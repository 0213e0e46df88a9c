// Kernel lock contention of a traced run (--trace=locks): lock:contention_begin/end paired per
// task, each wait credited to its lock (a kernel symbol when the lock is a static one, else its
// address), its kind (the contention flags: SPIN, READ, WRITE, RT, PERCPU, MUTEX) and its caller
// (the first frame outside the locking code in the stack that the event's stacktrace trigger
// records); and mmap_lock waits from the mmap_lock events (start_locking -> acquire_returned).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "framework/trace/kernel_symbols.h"
#include "framework/trace/trace_event.h"
#include "results/lock_contention.h"

namespace rtgate::trace {

std::string contention_flags(std::int64_t flags);

class ContentionCounter {
 public:
  void add(const TraceEvent& e);
  LockContention result(const KernelSymbols& symbols) const;

 private:
  struct Pending {
    std::uint64_t addr;
    std::int64_t flags, ts;
    std::vector<std::uint64_t> stack;
  };
  using Key = std::tuple<std::uint64_t, std::int64_t, std::uint64_t>;  // lock, flags, caller pc
  struct Waits {
    WaitStats stats;
    std::vector<std::uint64_t> stack;  // the first one seen
  };
  std::unordered_map<pid_t, std::vector<Pending>> waiting_;
  std::map<Key, Waits> waits_;
  std::unordered_map<pid_t, std::pair<std::int64_t, bool>> mmap_waiting_;  // ts, write
  WaitStats mmap_read_, mmap_write_;
};

}  // namespace rtgate::trace
