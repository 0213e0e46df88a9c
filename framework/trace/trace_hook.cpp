#include "framework/trace/trace_hook.h"

#include <charconv>
#include <cstdio>
#include <cstring>

#include <sched.h>
#include <unistd.h>

#include <algorithm>

namespace rtgate::trace {
namespace {

// Appends `s` to [p, end), clipped; returns the new position.
char* put(char* p, char* end, const char* s, std::size_t n) noexcept {
  const std::size_t room = static_cast<std::size_t>(end - p);
  const std::size_t k = n < room ? n : room;
  std::memcpy(p, s, k);
  return p + k;
}

char* put_int(char* p, char* end, std::int64_t v) noexcept {
  const auto r = std::to_chars(p, end, v);
  return r.ec == std::errc() ? r.ptr : p;
}

}  // namespace

TraceHook::TraceHook(const TraceSession& session, std::int64_t threshold_ns, std::int64_t break_ns,
                     std::atomic<bool>* stop)
    : session_(session),
      threshold_ns_(threshold_ns),
      break_ns_(break_ns),
      stop_(stop),
      cpus_(std::max(1L, sysconf(_SC_NPROCESSORS_CONF))),
      floor_ns_(new std::atomic<std::int64_t>[static_cast<std::size_t>(cpus_)]) {
  for (long i = 0; i < cpus_; ++i) floor_ns_[static_cast<std::size_t>(i)].store(0);
}

bool TraceHook::over_floor(std::int64_t latency_ns) noexcept {
  const int cpu = sched_getcpu();  // vDSO: no syscall, no lock
  if (cpu < 0 || cpu >= cpus_) return false;
  std::atomic<std::int64_t>& floor = floor_ns_[static_cast<std::size_t>(cpu)];
  std::int64_t seen = floor.load(std::memory_order_relaxed);
  while (latency_ns > seen) {
    if (floor.compare_exchange_weak(seen, latency_ns, std::memory_order_relaxed)) return true;
  }
  return false;
}

void TraceHook::lower_mark_floor(int cpu, std::int64_t ns) noexcept {
  if (cpu < 0 || cpu >= cpus_) return;
  std::atomic<std::int64_t>& floor = floor_ns_[static_cast<std::size_t>(cpu)];
  std::int64_t seen = floor.load(std::memory_order_relaxed);
  while (ns < seen && !floor.compare_exchange_weak(seen, ns, std::memory_order_relaxed)) {
  }
}

std::size_t TraceHook::format_marker(char* out, std::size_t size, const std::string& label,
                                     std::int64_t latency_ns, std::int64_t deadline_ns,
                                     bool is_break) noexcept {
  char* p = out;
  char* const end = out + size;
  p = put(p, end, "rtgate: ", 8);
  p = put(p, end, label.data(), label.size());
  p = put(p, end, " latency_ns=", 12);
  p = put_int(p, end, latency_ns);
  p = put(p, end, " deadline_ns=", 13);
  p = put_int(p, end, deadline_ns);
  if (is_break) p = put(p, end, " break", 6);
  p = put(p, end, "\n", 1);
  return static_cast<std::size_t>(p - out);
}

bool TraceHook::on_sample(const LiveStats& who, std::int64_t deadline_ns,
                          std::int64_t latency_ns) noexcept {
  const bool over_threshold = threshold_ns_ > 0 && latency_ns >= threshold_ns_;
  const bool over_break = break_ns_ > 0 && latency_ns >= break_ns_;
  const bool worst = over_floor(latency_ns);
  if (!over_threshold && !over_break && !worst) return true;
  char text[160];
  const std::size_t n =
      format_marker(text, sizeof text, who.label, latency_ns, deadline_ns, over_break);
  if (session_.mark({text, n})) marks_.fetch_add(1, std::memory_order_relaxed);
  if (!over_break) return true;
  bool expected = false;
  if (broke_.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
    break_who_ = &who;
    break_latency_ns_ = latency_ns;
    session_.freeze();  // the marker just written is the trace's last
    if (stop_ != nullptr) stop_->store(true, std::memory_order_relaxed);
  }
  return false;
}

std::string TraceHook::break_reason() const {
  if (!broke()) return "";
  char buf[160];
  std::snprintf(buf, sizeof buf, "break: %s latency %.1f us over --break-us %.0f",
                break_who_->label.c_str(), static_cast<double>(break_latency_ns_) / 1e3,
                static_cast<double>(break_ns_) / 1e3);
  return buf;
}

}  // namespace rtgate::trace
