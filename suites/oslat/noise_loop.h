// NoiseLoop: oslat's measurement. A thread reads a clock back to back; whenever two consecutive
// reads are further apart than the threshold, the thread did not run in between (an interrupt,
// a softirq, a task that preempted it, the host in a VM), and that gap is one noise sample. The
// loop records each one into a NoiseRecorder, keeps the largest of each period, and offers it to
// the run's SampleHook (--trace marks it so the trace analysis can say what ran in the gap).
//
// What the loop itself does after a gap (recording, a trace marker's write) is not counted: the
// clock is read again once that is done. Everything else between two reads is measured time
// (`runtime`), of which the gaps are the noise.
//
// Nothing on the loop allocates, logs or locks: the recorder is built before, on the measuring
// thread. It publishes progress every `check_ns` (checkpoints, not gaps: a quiet CPU has none,
// and the watchdog must still see the thread alive); the stop flag is read there too.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "framework/measure/clock.h"
#include "framework/measure/live_stats.h"
#include "framework/measure/periodic_loop.h"
#include "results/latency_histogram.h"

namespace rtgate {

// One measuring thread's figures. Build it on that thread; `periods`: how many period maxima to
// keep (duration / period + 2 is enough).
struct alignas(64) NoiseRecorder {
  explicit NoiseRecorder(std::size_t periods) { period_max.reserve(periods); }
  LatencyHistogram noise;          // every gap over the threshold, in ns
  std::vector<double> period_max;  // the largest gap of each period (0: none over threshold)
  std::uint64_t gaps = 0;
  std::uint64_t checks = 0;
  std::uint64_t runtime_ticks = 0;  // measured time: the sum of all deltas, gaps included
  std::int64_t noise_ns = 0;        // the sum of the gaps
  std::int64_t worst_ns = 0;
  std::int64_t period_worst_ns = 0;

  // Ends a period: keeps its largest gap.
  void close_period() noexcept {
    if (period_max.size() < period_max.capacity()) {
      period_max.push_back(static_cast<double>(period_worst_ns));
    }
    period_worst_ns = 0;
  }
};

// `Clock`: a type with `std::uint64_t read() const noexcept` (spin_clock.h), ticking at
// `ns_per_tick`.
template <class Clock>
class NoiseLoop {
 public:
  NoiseLoop(const Clock& clock, double ns_per_tick, std::int64_t threshold_ns, NoiseRecorder& rec,
            LiveStats& live, SampleHook* hook = nullptr, std::int64_t check_ns = 1'000'000)
      : clock_(clock),
        ns_per_tick_(ns_per_tick),
        threshold_ticks_(ticks(threshold_ns)),
        check_ticks_(std::max<std::uint64_t>(1, ticks(check_ns))),
        rec_(rec),
        live_(live),
        hook_(hook) {}

  // Reads the clock back to back for `budget_ns`. Returns false when `stop` was seen or the hook
  // asked to stop (broke() then says so), true when the budget is spent.
  bool spin(std::int64_t budget_ns, const std::atomic<bool>& stop) noexcept {
    std::uint64_t prev = clock_.read();
    const std::uint64_t end = prev + ticks(budget_ns);
    std::uint64_t check_at = std::min(end, prev + check_ticks_);
    for (;;) {
      const std::uint64_t now = clock_.read();
      const std::uint64_t delta = now - prev;
      rec_.runtime_ticks += delta;
      prev = now;
      if (delta > threshold_ticks_) [[unlikely]] {
        if (!on_gap(now, delta)) return false;
        prev = clock_.read();
      }
      if (now >= check_at) [[unlikely]] {
        if (stop.load(std::memory_order_relaxed)) return false;
        if (now >= end) return true;
        live_.publish(++rec_.checks, rec_.worst_ns);
        check_at = std::min(end, now + check_ticks_);
      }
    }
  }

  bool broke() const { return broke_; }
  std::int64_t to_ns(std::uint64_t t) const noexcept {
    return static_cast<std::int64_t>(static_cast<double>(t) * ns_per_tick_);
  }

 private:
  std::uint64_t ticks(std::int64_t ns) const noexcept {
    return ns <= 0 ? 0 : static_cast<std::uint64_t>(static_cast<double>(ns) / ns_per_tick_);
  }

  bool on_gap(std::uint64_t now, std::uint64_t delta) noexcept {
    const std::int64_t ns = to_ns(delta);
    rec_.noise.record(ns);
    ++rec_.gaps;
    rec_.noise_ns += ns;
    rec_.worst_ns = std::max(rec_.worst_ns, ns);
    rec_.period_worst_ns = std::max(rec_.period_worst_ns, ns);
    if (hook_ == nullptr) return true;
    // The gap's start on CLOCK_MONOTONIC (the trace's clock): back from a monotonic reading by
    // the loop clock's time since then; off by at most one clock read.
    const std::int64_t mono = monotonic_ns();
    const std::uint64_t after = clock_.read();
    const std::int64_t gap_start = mono - to_ns(after - (now - delta));
    if (hook_->on_sample(live_, gap_start, ns)) return true;
    broke_ = true;
    return false;
  }

  const Clock& clock_;
  double ns_per_tick_;
  std::uint64_t threshold_ticks_, check_ticks_;
  NoiseRecorder& rec_;
  LiveStats& live_;
  SampleHook* hook_;
  bool broke_ = false;
};

}  // namespace rtgate
