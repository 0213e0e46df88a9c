#include "framework/trace/lock_contention.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string_view>

namespace rtgate::trace {
namespace {

// The locking code itself, skipped when looking for the caller that contended.
bool is_locking_function(std::string_view f) {
  static constexpr std::array<std::string_view, 22> kPrefixes = {
      "_raw_",    "__raw_",      "queued_",  "native_queued", "__pv_queued", "do_raw_",
      "lock_",    "__lock",      "down_",    "__down",        "rwsem_",      "__rwsem",
      "mutex_",   "__mutex",     "rt_mutex", "__rt_mutex",    "rt_spin",     "rt_read",
      "rt_write", "percpu_down", "lockref_", "osq_"};
  for (std::string_view p : kPrefixes) {
    if (f.substr(0, p.size()) == p) return true;
  }
  // Helpers that take a lock for their caller (task_rq_lock, folio_lruvec_lock_irqsave, ...).
  if (f.find("_lock") != std::string_view::npos || f.find("lock_") == 0) return true;
  return f.find("_slowpath") != std::string_view::npos ||
         f.find("_slowlock") != std::string_view::npos || f.find("stack_trace") == 0 ||
         f.find("trace_") == 0 || f.find("event_trigger") != std::string_view::npos;
}

// The first frame outside the locking code, with the innermost locking helper that took the
// lock for it (not the lock primitives themselves): "release_pages+0x1a3 via folio_lruvec_lock".
std::string caller_of(const std::vector<std::uint64_t>& stack, const KernelSymbols& symbols) {
  std::string via;
  for (std::uint64_t frame : stack) {
    const std::string f = symbols.function(frame);
    if (f.empty()) continue;
    if (!is_locking_function(f)) return symbols.name(frame) + (via.empty() ? "" : " via " + via);
    if (f.rfind("_raw_", 0) != 0 && f.rfind("queued_", 0) != 0 &&
        f.find("slowpath") == std::string::npos) {
      via = f;
    }
  }
  return "";
}

std::string hex(std::uint64_t a) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(a));
  return b;
}

}  // namespace

std::string contention_flags(std::int64_t flags) {
  static const char* const kNames[] = {"SPIN", "READ", "WRITE", "RT", "PERCPU", "MUTEX"};
  std::string s;
  for (int i = 0; i < 6; ++i) {
    if ((flags & (1 << i)) == 0) continue;
    if (!s.empty()) s += "|";
    s += kNames[i];
  }
  return s.empty() ? "none" : s;
}

void ContentionCounter::add(const TraceEvent& e) {
  switch (e.type) {
    case Ev::kContentionBegin:
      waiting_[e.pid].push_back({e.addr, e.value, e.ts, {}});
      break;
    case Ev::kStack: {
      // The stacktrace trigger's event follows the contention_begin it belongs to.
      auto it = waiting_.find(e.pid);
      if (it != waiting_.end() && !it->second.empty() && it->second.back().stack.empty()) {
        it->second.back().stack = e.stack;
      }
      break;
    }
    case Ev::kContentionEnd: {
      auto it = waiting_.find(e.pid);
      if (it == waiting_.end() || it->second.empty()) break;  // began before the trace
      std::vector<Pending>& stack = it->second;
      auto p = std::find_if(stack.rbegin(), stack.rend(),
                            [&](const Pending& x) { return x.addr == e.addr; });
      if (p == stack.rend()) break;
      const Pending w = *p;
      stack.erase(std::next(p).base(), stack.end());
      const std::uint64_t pc = w.stack.empty() ? 0 : w.stack.front();
      Waits& waits = waits_[{w.addr, w.flags, pc}];
      waits.stats.add(e.ts - w.ts);
      if (waits.stack.empty()) waits.stack = w.stack;
      break;
    }
    case Ev::kMmapStartLocking:
      mmap_waiting_[e.pid] = {e.ts, e.value != 0};
      break;
    case Ev::kMmapAcquired: {
      auto it = mmap_waiting_.find(e.pid);
      if (it == mmap_waiting_.end()) break;
      const std::int64_t ns = e.ts - it->second.first;
      if (e.prio2 != 0) (it->second.second ? mmap_write_ : mmap_read_).add(ns);
      mmap_waiting_.erase(it);
      break;
    }
    default:
      break;
  }
}

LockContention ContentionCounter::result(const KernelSymbols& symbols) const {
  LockContention out;
  out.traced = true;
  out.mmap_lock_read = mmap_read_;
  out.mmap_lock_write = mmap_write_;
  // Entries with the same lock, kind and caller are one entry (merge() combines them).
  LockContention all;
  for (const auto& [key, waits] : waits_) {
    const auto& [addr, flags, pc] = key;
    LockWait w;
    w.lock = symbols.object(addr);
    if (w.lock.empty()) w.lock = hex(addr);
    w.kind = contention_flags(flags);
    w.caller = caller_of(waits.stack, symbols);
    w.wait = waits.stats;
    all.locks.push_back(std::move(w));
  }
  out.merge(all);
  out.runs = 1;
  for (LockWait& w : out.locks) w.per_run = {w.wait.count};
  return out;
}

}  // namespace rtgate::trace
