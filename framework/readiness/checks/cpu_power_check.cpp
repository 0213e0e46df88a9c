// What the measured CPUs' power management adds to a wakeup: frequency changes (governor,
// boost), the exit latency of deep idle states, and an SMT sibling sharing the core.
#include <algorithm>

#include "framework/readiness/check_util.h"

namespace rtgate::readiness {
namespace {

std::string cpu_dir(int cpu) { return "/sys/devices/system/cpu/cpu" + std::to_string(cpu); }

void check_frequency(const Context& ctx, std::vector<Finding>& out) {
  const SysRoot& r = ctx.root;
  std::vector<int> slow;
  std::string governors;
  for (const int cpu : ctx.cpus) {
    const std::string g = r.trimmed(cpu_dir(cpu) + "/cpufreq/scaling_governor");
    if (g.empty()) continue;
    if (governors.find(g) == std::string::npos) governors += (governors.empty() ? "" : ",") + g;
    if (g != "performance") slow.push_back(cpu);
  }
  if (governors.empty()) {
    add(out, "cpufreq", Level::kOk, "no frequency scaling here (fixed clock, or a VM's)", "",
        cpu_dir(ctx.cpus.empty() ? 0 : ctx.cpus.front()) + "/cpufreq: (absent)");
  } else if (!slow.empty()) {
    add(out, "cpufreq", Level::kWarn,
        "governor " + governors + ": the clock ramps up after idle, so a wakeup runs slower",
        "for c in " + words(slow) +
            "; do echo performance > /sys/devices/system/cpu/cpu$c/cpufreq/"
            "scaling_governor; done",
        "scaling_governor " + governors + " on CPUs " + list(slow));
  } else {
    add(out, "cpufreq", Level::kOk, "governor performance on the measured CPUs", "",
        "scaling_governor performance");
  }
  if (r.trimmed("/sys/devices/system/cpu/cpufreq/boost") == "1") {
    add(out, "cpu boost", Level::kWarn,
        "boost raises the clock while the package is cool: latency depends on the temperature",
        "echo 0 > /sys/devices/system/cpu/cpufreq/boost",
        read_as_evidence(r, "/sys/devices/system/cpu/cpufreq/boost"));
  }
}

void check_idle(const Context& ctx, std::vector<Finding>& out) {
  const SysRoot& r = ctx.root;
  std::int64_t worst = 0;
  std::string deepest;
  for (const int cpu : ctx.cpus) {
    const std::string dir = cpu_dir(cpu) + "/cpuidle";
    for (const std::string& s : r.list(dir)) {
      if (s.rfind("state", 0) != 0 || r.trimmed(dir + "/" + s + "/disable") == "1") continue;
      const std::int64_t lat = r.integer(dir + "/" + s + "/latency").value_or(0);
      if (lat > worst) {
        worst = lat;
        deepest = r.trimmed(dir + "/" + s + "/name");
      }
    }
  }
  if (worst <= 10) {
    add(out, "idle states", Level::kOk, "no enabled idle state takes more than 10 us to leave", "",
        "deepest exit latency " + std::to_string(worst) + " us");
    return;
  }
  // rtgate holds /dev/cpu_dma_latency at 0 during a run when it can write it.
  const bool held = r.exists("/dev/cpu_dma_latency");
  add(out, "idle states", held ? Level::kOk : Level::kWarn,
      "idle state " + deepest + " takes " + std::to_string(worst) + " us to leave" +
          (held ? "; rtgate holds /dev/cpu_dma_latency at 0 while it measures, which keeps the "
                  "CPUs out of it"
                : ", and /dev/cpu_dma_latency is missing to keep the CPUs out of it"),
      held ? "" : "add intel_idle.max_cstate=1 processor.max_cstate=1 to the kernel command line",
      "deepest enabled state " + deepest + ": exit latency " + std::to_string(worst) + " us");
}

void check_smt(const Context& ctx, std::vector<Finding>& out) {
  const SysRoot& r = ctx.root;
  std::vector<int> shared;
  for (const int cpu : ctx.cpus) {
    if (cpus_of(r.trimmed(cpu_dir(cpu) + "/topology/thread_siblings_list")).size() > 1) {
      shared.push_back(cpu);
    }
  }
  if (shared.empty()) {
    add(out, "smt", Level::kOk, "no measured CPU shares its core with a sibling thread", "",
        read_as_evidence(r, "/sys/devices/system/cpu/smt/control"));
    return;
  }
  add(out, "smt", Level::kWarn,
      "a sibling thread shares the core's execution units and caches with the measured CPUs " +
          list(shared),
      "echo off > /sys/devices/system/cpu/smt/control (or nosmt on the kernel command line)",
      "thread_siblings_list of CPU " + std::to_string(shared.front()) + ": " +
          r.trimmed(cpu_dir(shared.front()) + "/topology/thread_siblings_list"));
}

void check_cpu_power(const Context& ctx, std::vector<Finding>& out) {
  check_frequency(ctx, out);
  check_idle(ctx, out);
  check_smt(ctx, out);
}

}  // namespace
}  // namespace rtgate::readiness

RTGATE_READINESS_CHECK({.order = 50, .name = "cpu power", .fn = rtgate::readiness::check_cpu_power})
