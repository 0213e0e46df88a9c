// The parameters every workload suite shares, and what they mean: how many worker threads
// (overcommit x CPUs, or an explicit count) and the RT probe that runs beside the workload.
//
//   .params = rtgate::workload::with_common_params({ParamSpec::integer("writes", ...)}, 2.0),
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "framework/measure/run_context.h"
#include "framework/params.h"

namespace rtgate::workload {

// `own` followed by:
//   overcommit      real, worker threads per CPU the run may use (default `default_overcommit`)
//   threads         int, 0 = from overcommit; > 0 overrides it
//   probe           bool, run the RT probe beside the workload (default true)
//   probe_cpu       int, -1 = the last CPU the run may use
//   probe_priority  int, SCHED_FIFO priority of the probe (default 90)
//   probe_interval_us int, the probe's period (default 1000)
std::vector<ParamSpec> with_common_params(std::vector<ParamSpec> own,
                                          double default_overcommit = 1.0);

// max(1, round(overcommit x ncpus)).
int threads_for(double overcommit, std::size_t ncpus);

// The worker count for this run: `threads` when > 0, else threads_for(overcommit, CPUs).
int thread_count(const Params& p, const RunContext& ctx);

}  // namespace rtgate::workload
