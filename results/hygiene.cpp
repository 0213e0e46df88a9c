#include "results/hygiene.h"

#include <algorithm>
#include <cstdio>

#include "base/text/cpu_list.h"
#include "base/text/sched_policy.h"

namespace rtgate {
namespace {

// Thresholds below which steal is clock-tick noise rather than a reason to distrust a result.
constexpr double kCpuStealThresholdMs = 0.1;
constexpr double kTotalStealThresholdMs = 1.0;

std::string format_ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), ms < 0.1 ? "%.3f" : "%.1f", ms);
  return buf;
}

std::string describe(const ForeignRtThread& t) {
  const std::string policy =
      text::kernel_policy_name(text::policy_from_name(t.policy).value_or(-1));
  std::string who = "pid " + std::to_string(t.pid) + ", tid " + std::to_string(t.tid);
  if (t.policy != "deadline") who += ", prio " + std::to_string(t.priority);
  return "foreign " + policy + " thread '" + t.comm + "' (" + who + ") ran " +
         format_ms(static_cast<double>(t.runtime_ns) / 1e6) + " ms on CPUs " + t.cpus_allowed;
}

bool may_run_on(const ForeignRtThread& t, int cpu) {
  const auto cpus = text::parse_cpu_list(t.cpus_allowed);
  // An unknown mask is treated as "anywhere": a false alarm is cheaper than a hidden one.
  if (!cpus || cpus->empty()) return true;
  return std::binary_search(cpus->begin(), cpus->end(), cpu);
}

}  // namespace

std::vector<std::string> contamination_reasons_for_cpu(const Hygiene& h, int cpu) {
  std::vector<std::string> reasons;
  for (const auto& t : h.foreign_rt_threads) {
    if (!t.kernel_thread && may_run_on(t, cpu)) reasons.push_back(describe(t));
  }
  if (auto it = h.steal_ms_per_cpu.find(cpu);
      it != h.steal_ms_per_cpu.end() && it->second > kCpuStealThresholdMs) {
    reasons.push_back(format_ms(it->second) + " ms of CPU steal on CPU " + std::to_string(cpu));
  }
  return reasons;
}

std::vector<std::string> contamination_reasons(const Hygiene& h) {
  std::vector<std::string> reasons;
  for (const auto& t : h.foreign_rt_threads) {
    if (!t.kernel_thread) reasons.push_back(describe(t));
  }
  if (h.steal_ms > kTotalStealThresholdMs) {
    reasons.push_back(format_ms(h.steal_ms) + " ms of CPU steal in total");
  }
  if (h.rt_throttled > 0) {
    reasons.push_back("RT throttling activated during the run (" + std::to_string(h.rt_throttled) +
                      " event(s), source " + h.rt_throttled_source + ")");
  }
  return reasons;
}

void merge_hygiene(Hygiene& into, const Hygiene& later) {
  for (const ForeignRtThread& t : later.foreign_rt_threads) {
    const bool known = std::any_of(into.foreign_rt_threads.begin(), into.foreign_rt_threads.end(),
                                   [&](const ForeignRtThread& o) { return o.tid == t.tid; });
    if (!known) into.foreign_rt_threads.push_back(t);
  }
  into.steal_ms += later.steal_ms;
  for (const auto& [cpu, ms] : later.steal_ms_per_cpu) into.steal_ms_per_cpu[cpu] += ms;
  into.steal_ms_per_run.insert(into.steal_ms_per_run.end(), later.steal_ms_per_run.begin(),
                               later.steal_ms_per_run.end());
  if (into.steal_source.empty()) into.steal_source = later.steal_source;
  if (into.cfs_protection.empty()) into.cfs_protection = later.cfs_protection;
  if (into.rt_throttled >= 0 && later.rt_throttled >= 0) {
    into.rt_throttled += later.rt_throttled;
  } else {
    into.rt_throttled = std::max(into.rt_throttled, later.rt_throttled);
  }
  if (into.rt_throttled_source.empty()) into.rt_throttled_source = later.rt_throttled_source;
  into.missed_periods += later.missed_periods;
}

}  // namespace rtgate
