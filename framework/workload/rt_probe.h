// RtProbe: a cyclic measurement running beside a workload, so that a throughput suite also
// reports the worst-case wakeup latency it inflicted on an RT thread.
//
// One SCHED_FIFO thread on one CPU runs the periodic loop (periodic_loop.h: absolute
// CLOCK_MONOTONIC deadlines, the run's sample hook) and records wakeup latency through a
// PeriodicRecorder (missed periods counted), from start() to stop().
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "framework/measure/periodic_recorder.h"
#include "framework/measure/run_context.h"
#include "framework/rt/rt_thread.h"
#include "results/report.h"

namespace rtgate {

struct RtProbeSpec {
  int cpu = -1;  // -1: the last CPU the run may use
  int priority = 90;
  std::int64_t interval_ns = 1'000'000;
  std::int64_t max_duration_ns = 3'600'000'000'000;  // sizes the per-second block maxima
};

class RtProbe {
 public:
  // Registers its live counter with `ctx` (progress line, watchdog) under "probe" (the later
  // probes of a sweep under "probe-2", ...); the case it adds its metrics to owns its trace
  // samples.
  RtProbe(const RtProbeSpec& spec, RunContext& ctx);
  ~RtProbe();  // stops
  RtProbe(const RtProbe&) = delete;
  RtProbe& operator=(const RtProbe&) = delete;

  // Throws rt::RtError when SCHED_FIFO is refused.
  void start();
  void stop();
  int cpu() const { return cpu_; }

  // Appends "probe_wakeup_latency" (latency) and "probe_missed_periods" (count) to `c`, and
  // labels the case with the probe's CPU. Call after stop().
  void add_metrics(Case& c);

 private:
  RtProbeSpec spec_;
  int cpu_;
  std::atomic<bool> stop_{false};
  RunContext& ctx_;
  LiveStats& live_;
  SampleHook* hook_;
  std::unique_ptr<PeriodicRecorder> rec_;  // built by the probe's thread
  std::unique_ptr<rt::RtThread> thread_;
};

}  // namespace rtgate
