// Metrics every workload suite reports beside its throughput.
#pragma once

#include <string>
#include <vector>

#include "framework/measure/cpu_usage.h"
#include "framework/workload/worker_group.h"
#include "framework/workload/workload_probe.h"
#include "results/report.h"

namespace rtgate::workload {

// A duration metric (kind "duration", better lower), e.g. a fixed-work run time in us. One
// sample per repetition when a run repeats its unit of work.
Metric duration_metric(std::string name, std::string unit, std::vector<double> samples);

// `m` with its samples replaced: for a run that measured its unit of work several times.
Metric with_samples(Metric m, std::vector<double> samples);

// "ops_rate" (the group's operations per second, divided by `per` in `unit`: 1e3 for kops/s) and
// "ops" (the operations counted, reported only).
void add_ops_metrics(Case& c, const GroupRun& g, const std::string& unit = "ops/s",
                     double per = 1);

// "cpu_usr_s" and "cpu_sys_s": user and system CPU time in seconds, one sample per element.
void add_cpu_metrics(Case& c, const std::vector<CpuUsage>& used);
// The common end of a single-group workload case: CPU time, the probe's latency, the case into
// the result, and the group's error (if any) as the suite's status.
void finish_case(SuiteResult& result, Case c, const GroupRun& g, WorkloadProbe& probe);

}  // namespace rtgate::workload
