// CPU isolation of the measured CPUs: isolcpus keeps the scheduler's other tasks off them,
// nohz_full stops their tick while one task runs, rcu_nocbs moves RCU callbacks elsewhere.
#include "framework/readiness/check_util.h"

namespace rtgate::readiness {
namespace {

struct Part {
  const char* name;
  std::vector<int> cpus;
  const char* why;
};

void check_isolation(const Context& ctx, std::vector<Finding>& out) {
  const SysRoot& r = ctx.root;
  const std::vector<int> online = online_cpus(r);
  const std::string measured = list(ctx.cpus);
  const std::vector<Part> parts = {
      {"isolcpus", cpus_of(r.trimmed("/sys/devices/system/cpu/isolated")),
       "other tasks and the load balancer may run there"},
      {"nohz_full", cpus_of(r.trimmed("/sys/devices/system/cpu/nohz_full")),
       "the scheduler tick interrupts them every jiffy"},
      {"rcu_nocbs", cpus_of(cmdline_param(r, "rcu_nocbs").value_or("")),
       "RCU callbacks run there in softirq context"},
  };
  std::string evidence = "measured CPUs " + measured;
  std::vector<std::string> lacking;
  std::string why;
  for (const Part& p : parts) {
    evidence += std::string("; ") + p.name + " " + (p.cpus.empty() ? "-" : list(p.cpus));
    if (!missing(ctx.cpus, p.cpus).empty()) {
      lacking.push_back(p.name);
      if (why.empty()) why = std::string("measured CPUs outside ") + p.name + ": " + p.why;
    }
  }
  if (lacking.empty()) {
    add(out, "cpu isolation", Level::kOk,
        "the measured CPUs are isolated, tickless and free of RCU callbacks", "", evidence);
    return;
  }
  if (online.size() < 2) {
    add(out, "cpu isolation", Level::kWarn,
        "one CPU online: nothing can be isolated, so everything else runs where the measurement "
        "does",
        "give the machine (or VM) a second CPU to keep the rest on", evidence);
    return;
  }
  // Keep the first online CPU for the rest of the system; isolate the measured ones (or all
  // others when the measurement would use every CPU).
  std::vector<int> isolate = missing(ctx.cpus, {online.front()});
  if (isolate.empty()) isolate = missing(online, {online.front()});
  const std::string l = list(isolate);
  const bool none = lacking.size() == parts.size() && parts[0].cpus.empty();
  add(out, "cpu isolation", none ? Level::kWarn : Level::kBad, why,
      "add isolcpus=managed_irq,domain," + l + " nohz_full=" + l + " rcu_nocbs=" + l +
          " to the kernel command line, and measure with --cpus " + l,
      evidence);
}

}  // namespace
}  // namespace rtgate::readiness

RTGATE_READINESS_CHECK({.order = 20, .name = "isolation", .fn = rtgate::readiness::check_isolation})
