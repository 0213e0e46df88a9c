#include "framework/watchdog.h"

#include <sched.h>

#include <cstdio>

#include "framework/measure/clock.h"
#include "framework/rt/cpu_list.h"
#include "framework/rt/housekeeping.h"
#include "framework/rt/rt_thread.h"

namespace rtgate {
namespace {

constexpr std::int64_t kTickNs = 100'000'000;  // 100 ms: fine enough for stalls counted in s

// Prefer a CPU the run does not measure on; otherwise any allowed CPU.
std::vector<int> housekeeping_cpus(const std::vector<int>& measured) {
  std::vector<int> out;
  for (int cpu : rt::allowed_cpus()) {
    bool used = false;
    for (int m : measured) used = used || m == cpu;
    if (!used) out.push_back(cpu);
  }
  return out;
}

}  // namespace

Watchdog::Watchdog(RunContext& ctx, double stall_s, double grace_s)
    : ctx_(ctx), stall_s_(stall_s), grace_s_(grace_s) {
  rt::ThreadSpec spec{.name = "rtgate-watchdog",
                      .policy = rt::Policy::kFifo,
                      .priority = 99,
                      .cpus = housekeeping_cpus(ctx.cpus()),
                      .stack_bytes = 256 * 1024,
                      .prefault_stack_bytes = 32 * 1024};
  try {
    thread_ = std::make_unique<rt::RtThread>(spec, [this] { loop(); });
  } catch (const rt::RtError&) {
    // Without RT privileges no suite thread is RT either: a normal thread is enough.
    spec.policy = rt::Policy::kOther;
    thread_ = std::make_unique<rt::RtThread>(spec, [this] { loop(); });
  }
}

Watchdog::~Watchdog() {
  quit_.store(true);
  thread_.reset();
}

std::string Watchdog::reason() const {
  return fired_.load(std::memory_order_acquire) ? std::string(reason_) : std::string();
}

void Watchdog::loop() {
  std::int64_t fired_at = 0;
  const auto stall_ns = static_cast<std::int64_t>(stall_s_ * 1e9);
  const auto grace_ns = static_cast<std::int64_t>(grace_s_ * 1e9);
  std::int64_t next = monotonic_ns();
  cpu_set_t allowed;
  const bool know_allowed = sched_getaffinity(0, sizeof allowed, &allowed) == 0;
  for (int tick = 0; !quit_.load(std::memory_order_relaxed); ++tick) {
    next += kTickNs;
    sleep_until_ns(next);
    const std::int64_t now = monotonic_ns();
    // Once a second: off the CPUs the suite's threads actually measure on, when there is one.
    if (know_allowed && tick % 10 == 0) {
      cpu_set_t measured;
      if (rt::measured_cpus(ctx_, &measured)) rt::move_to_housekeeping(allowed, measured);
    }
    ctx_.for_each_tracked([&](LiveStats& s) {
      if (s.done.load(std::memory_order_relaxed)) return;
      const std::uint64_t n = s.samples.load(std::memory_order_relaxed);
      LiveStats::Watch& w = s.watch;
      if (!w.seen || w.samples != n) {
        w = {.seen = true, .samples = n, .since_ns = now};
        return;
      }
      const std::int64_t stalled = now - w.since_ns;
      if (stalled >= stall_ns && !fired_.load()) {
        std::snprintf(reason_, sizeof reason_,
                      "watchdog: thread '%s' (tid %d) made no progress for %.1f s", s.label.c_str(),
                      static_cast<int>(s.tid.load()), static_cast<double>(stalled) / 1e9);
        fired_.store(true, std::memory_order_release);
        fired_at = now;
        ctx_.request_stop();
      }
      if (fired_.load() && now - fired_at >= grace_ns && s.tid.load() != 0) {
        // Still spinning after the stop request: take its RT priority away.
        sched_param sp{};
        sched_setscheduler(s.tid.load(), SCHED_OTHER, &sp);
      }
    });
  }
}

}  // namespace rtgate
