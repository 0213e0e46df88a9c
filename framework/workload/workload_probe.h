// WorkloadProbe: the RT probe of a workload suite, as its common parameters ask (probe,
// probe_cpu, probe_priority, probe_interval_us; see workload_params.h). A disabled probe does
// nothing, so a suite calls the same four functions either way:
//
//   WorkloadProbe probe(p, ctx);
//   if (std::string why = probe.start(); !why.empty()) return skipped(why);
//   ... the workload ...
//   probe.stop();
//   probe.add_metrics(main_case);
#pragma once

#include <memory>
#include <string>

#include "framework/measure/run_context.h"
#include "framework/params.h"
#include "framework/workload/rt_probe.h"
#include "results/report.h"

namespace rtgate::workload {

class WorkloadProbe {
 public:
  // `max_duration_ns` sizes the per-second block maxima (the run's duration; fixed-work suites
  // pass their limit).
  WorkloadProbe(const Params& p, RunContext& ctx, std::int64_t max_duration_ns);
  ~WorkloadProbe();
  WorkloadProbe(const WorkloadProbe&) = delete;
  WorkloadProbe& operator=(const WorkloadProbe&) = delete;

  bool enabled() const { return probe_ != nullptr; }
  // "" when the probe runs (or is disabled); else why it cannot: its CPU is not one the run may
  // use, or SCHED_FIFO was refused.
  std::string start();
  void stop();
  // The probe's latency and missed periods, and its CPU as a label. No-op when disabled.
  void add_metrics(Case& c);

 private:
  std::string unusable_;
  std::unique_ptr<RtProbe> probe_;
};

}  // namespace rtgate::workload
