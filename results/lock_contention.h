// Kernel lock contention of a traced run (--trace=locks) as a result records it: per lock, kind
// and caller the waits and their time (framework/trace/lock_contention.h counts them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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
  int runs = 0;                   // runs folded in
  std::vector<LockWait> locks;    // largest total wait first, at most kTop
  std::uint64_t other_waits = 0;  // waits on locks beyond the top entries
  WaitStats mmap_lock_read, mmap_lock_write;
  static constexpr std::size_t kTop = 10;
  // Folds another run's contention in (entries matched by lock, kind and caller).
  void merge(const LockContention& o);
};

}  // namespace rtgate::trace
