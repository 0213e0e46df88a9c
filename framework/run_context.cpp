#include "framework/run_context.h"

namespace rtgate {

RunContext::RunContext(double duration_s, std::vector<int> cpus, std::atomic<bool>& stop,
                       int run_index, int runs)
    : duration_s_(duration_s),
      cpus_(std::move(cpus)),
      stop_(stop),
      run_index_(run_index),
      runs_(runs) {}

LiveStats& RunContext::track(std::string label) {
  std::lock_guard lock(tracked_mutex_);
  return tracked_.emplace_back(std::move(label));
}

void RunContext::for_each_tracked(const std::function<void(LiveStats&)>& fn) {
  std::lock_guard lock(tracked_mutex_);
  for (LiveStats& s : tracked_) fn(s);
}

}  // namespace rtgate
