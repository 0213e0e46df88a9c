// Unbound kernel work that may run on the measured CPUs: unbound workqueues and writeback, whose
// cpumasks can keep them on housekeeping CPUs, and the kernel threads kthreadd starts, which
// inherit its affinity.
#include <cstdio>
#include <string>

#include "base/text/strings.h"
#include "framework/readiness/check_util.h"

namespace rtgate::readiness {
namespace {

// kthreadd (pid 2) hands its CPUs to every kernel thread it creates from then on.
void check_kthreadd(const Context& ctx, const std::string& keep, std::vector<Finding>& out) {
  const std::string status = ctx.root.read("/proc/2/status").value_or("");
  const auto at = status.find("Cpus_allowed_list:");
  if (status.find("Name:\tkthreadd") == std::string::npos || at == std::string::npos) return;
  const auto end = status.find('\n', at);
  const std::string line = status.substr(at, end == std::string::npos ? end : end - at);
  const std::string allowed(text::trim(line.substr(line.find(':') + 1)));
  if (missing(ctx.cpus, cpus_of(allowed)).size() == ctx.cpus.size()) {
    add(out, "kthreadd affinity", Level::kOk, "new kernel threads start off the measured CPUs", "",
        "kthreadd Cpus_allowed_list: " + allowed);
    return;
  }
  add(out, "kthreadd affinity", Level::kWarn,
      "kernel threads created from now on may run on the measured CPUs",
      "taskset -pc " + keep + " 2", "kthreadd Cpus_allowed_list: " + allowed);
}

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
  check_kthreadd(ctx, list(housekeeping), out);
}

}  // namespace
}  // namespace rtgate::readiness

RTGATE_READINESS_CHECK({.order = 40, .name = "kthreads", .fn = rtgate::readiness::check_kthreads})
