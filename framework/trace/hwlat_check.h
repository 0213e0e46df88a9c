// The readiness item that needs a measurement: the kernel's hwlat tracer, run for a few seconds
// on the measured CPUs, finds the time a CPU lost while it spun with interrupts off (SMIs,
// firmware, or a hypervisor's host). Such a gap is a latency floor no kernel setting removes.
//
// The tracer runs as the latency suites' tracers do (KernelTracer): in a private instance whose
// cpumask is the measured CPUs, the global knobs it writes (hwlat_detector/{window,width,mode},
// tracing_thresh) put back on every exit path, SIGINT included.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "framework/readiness/readiness.h"

namespace rtgate::trace {

struct HwlatOptions {
  double seconds = 10;
  std::vector<int> cpus;  // empty: all online
  // The smallest gap recorded, in us; 0 keeps hwlat's own (10 us, unless tracing_thresh or the
  // last hwlat run says otherwise).
  std::int64_t threshold_us = 0;
  bool hypervisor = false;  // the fix names the host rather than the firmware
};

// What a run found.
struct HwlatSummary {
  double seconds = 0;    // how long it ran
  bool stopped = false;  // cut short by a stop request
  std::int64_t threshold_us = 0;
  std::vector<int> cpus;
  std::uint64_t gaps = 0;  // hwlat events: samples with a gap over the threshold
  std::uint64_t max_inner_us = 0, max_outer_us = 0;
  std::uint64_t nmis = 0;  // NMIs that fell inside the sampled windows
};

// The item "hardware latency" for `s`: ok without a gap, bad with one, warn when the run was cut
// short before it found any.
readiness::Finding judge_hwlat(const HwlatSummary& s, bool hypervisor);

// Runs hwlat for o.seconds (or until `stop`) and judges it. When the tracer cannot run here, the
// item is a warning that says why, and `*unavailable` is set.
readiness::Finding run_hwlat(const HwlatOptions& o, const std::function<bool()>& stop,
                             bool* unavailable);

}  // namespace rtgate::trace
