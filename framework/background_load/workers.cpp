#include "framework/background_load/workers.h"

#include "framework/measure/clock.h"

namespace rtgate::load {

rt::ThreadSpec other_thread(std::string name) {
  return {.name = std::move(name), .policy = rt::Policy::kOther, .priority = 0};
}

void Workers::start(int n, const std::function<rt::ThreadSpec(int)>& spec, const Body& body) {
  if (counters_ != nullptr) throw LoadError("already started");
  n_ = n;
  counters_ = std::make_unique<Counter[]>(static_cast<std::size_t>(n));
  start_ns_ = monotonic_ns();
  try {
    for (int i = 0; i < n; ++i) {
      Counter* counter = &counters_[static_cast<std::size_t>(i)];
      threads_.push_back(
          std::make_unique<rt::RtThread>(spec(i), [body, i, counter] { body(i, *counter); }));
    }
  } catch (const std::exception& e) {
    request_stop();
    throw LoadError(e.what());
  }
}

void Workers::join() {
  if (threads_.empty() && end_ns_ != 0) return;
  for (auto& t : threads_) t->join();
  threads_.clear();
  if (start_ns_ != 0 && end_ns_ == 0) end_ns_ = monotonic_ns();
}

std::uint64_t Workers::ops() const {
  std::uint64_t sum = 0;
  for (int i = 0; i < n_; ++i) {
    sum += counters_[static_cast<std::size_t>(i)].value.load(std::memory_order_relaxed);
  }
  return sum;
}

double Workers::seconds() const {
  if (start_ns_ == 0) return 0;
  const std::int64_t end = end_ns_ != 0 ? end_ns_ : monotonic_ns();
  return static_cast<double>(end - start_ns_) * 1e-9;
}

LoadReport Workers::report(std::string kind, std::string spec, int instances,
                           std::string unit) const {
  LoadReport r{.kind = std::move(kind),
               .spec = std::move(spec),
               .instances = instances,
               .seconds = seconds(),
               .ops = ops(),
               .unit = std::move(unit)};
  if (r.seconds > 0) r.ops_per_s = static_cast<double>(r.ops) / r.seconds;
  return r;
}

}  // namespace rtgate::load
