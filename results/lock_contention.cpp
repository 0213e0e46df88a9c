#include "results/lock_contention.h"

#include <algorithm>
#include <tuple>

namespace rtgate::trace {

void WaitStats::add(std::int64_t ns) {
  ++count;
  total_ns += ns;
  max_ns = std::max(max_ns, ns);
}

void WaitStats::merge(const WaitStats& o) {
  count += o.count;
  total_ns += o.total_ns;
  max_ns = std::max(max_ns, o.max_ns);
}

void LockContention::merge(const LockContention& o) {
  traced = traced || o.traced;
  auto same = [](const LockWait& a, const LockWait& b) {
    return a.lock == b.lock && a.kind == b.kind && a.caller == b.caller;
  };
  for (LockWait& mine : locks) {
    const bool in_o = std::any_of(o.locks.begin(), o.locks.end(),
                                  [&](const LockWait& w) { return same(mine, w); });
    if (!in_o) mine.per_run.insert(mine.per_run.end(), static_cast<std::size_t>(o.runs), 0);
  }
  for (const LockWait& w : o.locks) {
    auto it =
        std::find_if(locks.begin(), locks.end(), [&](const LockWait& x) { return same(x, w); });
    if (it == locks.end()) {
      locks.push_back(w);
      std::vector<std::uint64_t>& counts = locks.back().per_run;
      counts.assign(static_cast<std::size_t>(runs), 0);
      counts.insert(counts.end(), w.per_run.begin(), w.per_run.end());
    } else {
      it->wait.merge(w.wait);
      it->per_run.insert(it->per_run.end(), w.per_run.begin(), w.per_run.end());
    }
  }
  runs += o.runs;
  std::stable_sort(locks.begin(), locks.end(), [](const LockWait& a, const LockWait& b) {
    return a.wait.total_ns > b.wait.total_ns;
  });
  other_waits += o.other_waits;
  for (std::size_t i = kTop; i < locks.size(); ++i) other_waits += locks[i].wait.count;
  if (locks.size() > kTop) locks.resize(kTop);
  mmap_lock_read.merge(o.mmap_lock_read);
  mmap_lock_write.merge(o.mmap_lock_write);
}

}  // namespace rtgate::trace
