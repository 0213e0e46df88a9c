// The scheduler's limits on RT threads: RT throttling, and from 6.12 the deadline fair server,
// which each take CPU time from a FIFO thread that wants it all; and timer migration.
#include <optional>

#include "framework/readiness/check_util.h"

namespace rtgate::readiness {
namespace {

void check_throttling(const SysRoot& r, std::vector<Finding>& out) {
  const std::int64_t runtime = r.integer("/proc/sys/kernel/sched_rt_runtime_us").value_or(-1);
  const std::int64_t period = r.integer("/proc/sys/kernel/sched_rt_period_us").value_or(1000000);
  const std::string evidence = read_as_evidence(r, "/proc/sys/kernel/sched_rt_runtime_us");
  if (runtime < 0) {
    add(out, "rt throttling", Level::kOk, "RT threads are never throttled", "", evidence);
    return;
  }
  add(out, "rt throttling", Level::kWarn,
      "RT threads may use " + std::to_string(runtime) + " of every " + std::to_string(period) +
          " us: a spinning FIFO thread is stopped for the rest (rtgate's watchdog bounds its own)",
      "sysctl -w kernel.sched_rt_runtime_us=-1", evidence);
}

void check_fair_server(const Context& ctx, std::vector<Finding>& out) {
  const SysRoot& r = ctx.root;
  const std::string dir = "/sys/kernel/debug/sched/fair_server";
  if (!r.exists(dir)) return;  // before 6.12, or debugfs not mounted
  std::vector<int> serving, unreadable;
  std::int64_t runtime = 0;
  for (const int cpu : ctx.cpus) {
    const std::optional<std::int64_t> ns =
        r.integer(dir + "/cpu" + std::to_string(cpu) + "/runtime");
    if (!ns) unreadable.push_back(cpu);
    if (ns.value_or(0) > 0) {
      serving.push_back(cpu);
      runtime = *ns;
    }
  }
  if (serving.empty() && !unreadable.empty()) {
    add(out, "fair server", Level::kWarn,
        "the deadline fair server's runtime cannot be read here (kernel lockdown?); by default it "
        "runs normal tasks for 50 ms a second ahead of FIFO threads",
        "for c in " + words(unreadable) + "; do echo 0 > " + dir + "/cpu$c/runtime; done",
        dir + "/cpu" + std::to_string(unreadable.front()) + "/runtime: (unreadable)");
    return;
  }
  if (serving.empty()) {
    add(out, "fair server", Level::kOk, "the deadline fair server is off on the measured CPUs", "",
        dir + "/cpuN/runtime: 0");
    return;
  }
  add(out, "fair server", Level::kWarn,
      "the deadline fair server runs normal tasks for " + std::to_string(runtime / 1000000) +
          " ms a second ahead of FIFO threads: a FIFO thread that shares its CPU stalls that long",
      "for c in " + words(serving) + "; do echo 0 > " + dir + "/cpu$c/runtime; done",
      dir + "/cpu" + std::to_string(serving.front()) + "/runtime: " + std::to_string(runtime));
}

void check_timer_migration(const SysRoot& r, std::vector<Finding>& out) {
  if (r.trimmed("/proc/sys/kernel/timer_migration") != "1") return;
  add(out, "timer migration", Level::kWarn,
      "timers armed on a busy CPU may be moved to the measured CPUs when those look idle",
      "sysctl -w kernel.timer_migration=0",
      read_as_evidence(r, "/proc/sys/kernel/timer_migration"));
}

void check_sched(const Context& ctx, std::vector<Finding>& out) {
  check_throttling(ctx.root, out);
  check_fair_server(ctx, out);
  check_timer_migration(ctx.root, out);
}

}  // namespace
}  // namespace rtgate::readiness

RTGATE_READINESS_CHECK({.order = 60, .name = "scheduler", .fn = rtgate::readiness::check_sched})
