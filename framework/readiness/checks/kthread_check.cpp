// Unbound kernel work that may run on the measured CPUs: unbound workqueues and writeback, whose
// cpumasks can keep them on housekeeping CPUs.
#include <cstdio>

#include "framework/readiness/check_util.h"

namespace rtgate::readiness {
namespace {

void check_kthreads(const Context& ctx, std::vector<Finding>& out) {
  const SysRoot& r = ctx.root;
  const std::vector<int> online = online_cpus(r);
  const std::vector<int> housekeeping = missing(online, ctx.cpus);
  if (housekeeping.empty()) return;  // measuring on every CPU: nowhere else to put them
  std::string mask;
  {
    unsigned long long bits = 0;
    for (const int c : housekeeping) {
      if (c < 64) bits |= 1ULL << c;
    }
    char buf[24];
    std::snprintf(buf, sizeof buf, "%llx", bits);
    mask = buf;
  }
  for (const auto& [item, path] :
       {std::pair{"workqueue cpumask", "/sys/devices/virtual/workqueue/cpumask"},
        {"writeback cpumask", "/sys/bus/workqueue/devices/writeback/cpumask"}}) {
    if (!r.exists(path)) continue;
    const std::string now = r.trimmed(path);
    if (missing(ctx.cpus, cpus_of_mask(now)).size() == ctx.cpus.size()) {
      add(out, item, Level::kOk, "unbound kernel work stays off the measured CPUs", "",
          std::string(path) + ": " + now);
    } else {
      add(out, item, Level::kWarn, "unbound kernel work may run on the measured CPUs",
          "echo " + mask + " > " + path, std::string(path) + ": " + now);
    }
  }
}

}  // namespace
}  // namespace rtgate::readiness

RTGATE_READINESS_CHECK({.order = 40, .name = "kthreads", .fn = rtgate::readiness::check_kthreads})
