#include "framework/run_context.h"

namespace rtgate {

RunContext::RunContext(double duration_s, std::vector<int> cpus, std::atomic<bool>& stop,
                       int run_index, int runs)
    : duration_s_(duration_s),
      cpus_(std::move(cpus)),
      stop_(stop),
      run_index_(run_index),
      runs_(runs) {}

LiveStats& RunContext::track(std::string label, std::string trace_owner) {
  std::lock_guard lock(tracked_mutex_);
  if (!trace_owner.empty()) trace_owners_[label] = std::move(trace_owner);
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
