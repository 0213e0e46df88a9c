#include "framework/workload/workload_params.h"

#include <algorithm>
#include <cmath>

namespace rtgate::workload {

std::vector<ParamSpec> with_common_params(std::vector<ParamSpec> own, double default_overcommit) {
  own.push_back(ParamSpec::real("overcommit", default_overcommit, 0.25, 8, "",
                                "worker threads per CPU (threads = max(1, round(overcommit x "
                                "CPUs))); 1 and 2 are the pvqspinlock cases"));
  own.push_back(ParamSpec::integer("threads", 0, 0, 1024, "",
                                   "worker threads; 0 = from overcommit, else overrides it"));
  own.push_back(ParamSpec::boolean("probe", true,
                                   "run a SCHED_FIFO cyclic probe beside the workload and report "
                                   "the wakeup latency the workload inflicted"));
  own.push_back(ParamSpec::integer("probe_cpu", -1, -1, 4095, "",
                                   "CPU of the RT probe; -1 = the last CPU the run may use"));
  own.push_back(ParamSpec::integer("probe_priority", 90, 1, 98, "",
                                   "SCHED_FIFO priority of the RT probe (99 is the watchdog's)"));
  own.push_back(ParamSpec::integer("probe_interval_us", 1000, 50, 1'000'000, "us",
                                   "wakeup period of the RT probe"));
  return own;
}

int threads_for(double overcommit, std::size_t ncpus) {
  const double n = std::round(overcommit * static_cast<double>(ncpus));
  return std::max(1, static_cast<int>(n));
}

int thread_count(const Params& p, const RunContext& ctx) {
  if (const auto explicit_threads = p.get_int("threads"); explicit_threads > 0) {
    return static_cast<int>(explicit_threads);
  }
  return threads_for(p.get_double("overcommit"), std::max<std::size_t>(1, ctx.cpus().size()));
}

}  // namespace rtgate::workload
