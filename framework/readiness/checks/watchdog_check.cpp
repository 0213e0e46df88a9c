// The lockup watchdogs: the NMI (hard lockup) watchdog interrupts every CPU with an NMI, the soft
// lockup watchdog runs a FIFO-99 stopper thread on each CPU every few seconds.
#include "framework/readiness/check_util.h"

namespace rtgate::readiness {
namespace {

void check_watchdogs(const Context& ctx, std::vector<Finding>& out) {
  const SysRoot& r = ctx.root;
  if (r.trimmed("/proc/sys/kernel/nmi_watchdog") == "1") {
    add(out, "nmi watchdog", Level::kWarn,
        "the hard-lockup watchdog's perf NMI interrupts every CPU periodically",
        "sysctl -w kernel.nmi_watchdog=0 (or nmi_watchdog=0 on the kernel command line)",
        read_as_evidence(r, "/proc/sys/kernel/nmi_watchdog"));
  }
  if (r.trimmed("/proc/sys/kernel/soft_watchdog") == "1" &&
      r.trimmed("/proc/sys/kernel/watchdog") != "0") {
    add(out, "soft lockup watchdog", Level::kWarn,
        "the soft-lockup watchdog wakes a stopper thread above every FIFO thread on each CPU",
        "sysctl -w kernel.soft_watchdog=0 (or nowatchdog on the kernel command line)",
        read_as_evidence(r, "/proc/sys/kernel/soft_watchdog"));
  }
}

}  // namespace
}  // namespace rtgate::readiness

RTGATE_READINESS_CHECK({.order = 80, .name = "watchdogs", .fn = rtgate::readiness::check_watchdogs})
