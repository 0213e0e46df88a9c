#include "framework/measure/run_context.h"

#include <algorithm>

namespace rtgate {

RunContext::RunContext(double duration_s, std::vector<int> cpus, std::atomic<bool>& stop,
                       int run_index, int runs)
    : duration_s_(duration_s),
      cpus_(std::move(cpus)),
      stop_(stop),
      run_index_(run_index),
      runs_(runs) {}

LiveStats& RunContext::track(const std::string& base, std::string trace_owner) {
  std::lock_guard lock(tracked_mutex_);
  const auto taken = [&](const std::string& l) {
    return std::any_of(tracked_.begin(), tracked_.end(),
                       [&](const Tracked& t) { return t.stats.label == l; });
  };
  std::string label = base;
  for (int n = 2; taken(label); ++n) label = base + "-" + std::to_string(n);
  if (!trace_owner.empty()) trace_owners_[label] = std::move(trace_owner);
  return append_locked(std::move(label));
}

LiveStats& RunContext::append_locked(std::string label) {
  Tracked& t = tracked_.emplace_back(std::move(label));
  (tail_ == nullptr ? head_ : tail_->next).store(&t, std::memory_order_release);
  tail_ = &t;
  return t.stats;
}

void RunContext::claim_trace(const std::string& label, std::string case_name) {
  std::lock_guard lock(tracked_mutex_);
  trace_owners_.emplace(label, std::move(case_name));
}

std::map<std::string, std::string> RunContext::trace_owners() const {
  std::lock_guard lock(tracked_mutex_);
  return trace_owners_;
}

}  // namespace rtgate
