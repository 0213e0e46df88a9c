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

namespace rtgate::trace {

struct WaitStats {
  std::uint64_t count = 0;
  std::int64_t total_ns = 0;
  std::int64_t max_ns = 0;
  void add(std::int64_t ns);
  void merge(const WaitStats& o);
};

struct LockWait {
  std::string lock;    // "rename_lock" or "0xffff8881234c5678"
  std::string kind;    // "SPIN", "READ|RT", ...
  std::string caller;  // "release_pages+0x1a3 via folio_lruvec_lock_irqsave", "" without a stack
  WaitStats wait;
  std::vector<std::uint64_t> per_run;  // wait.count of each run (0 where it was not in the top)
};

struct LockContention {
  bool traced = false;
  int runs = 0;  // runs folded in
  std::vector<LockWait> locks;  // largest total wait first, at most kTop
  std::uint64_t other_waits = 0;  // waits on locks beyond the top entries
  WaitStats mmap_lock_read, mmap_lock_write;
  static constexpr std::size_t kTop = 10;
  // Folds another run's contention in (entries matched by lock, kind and caller).
  void merge(const LockContention& o);
};

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
