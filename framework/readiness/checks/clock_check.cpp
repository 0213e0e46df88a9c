// The clock and the machine under it: a clocksource other than a stable TSC costs every read and
// may jump; under a hypervisor the host's scheduling adds delays the guest cannot remove, and
// only some hypervisors let the guest see them (steal time).
#include <sstream>

#include "framework/readiness/check_util.h"

namespace rtgate::readiness {
namespace {

void check_clocksource(const SysRoot& r, std::vector<Finding>& out) {
  const std::string dir = "/sys/devices/system/clocksource/clocksource0";
  const std::string current = r.trimmed(dir + "/current_clocksource");
  const std::string available = r.trimmed(dir + "/available_clocksource");
  const std::string evidence = "current " + current + ", available " + available;
  if (current == "tsc") {
    add(out, "clocksource", Level::kOk, "the TSC: read in nanoseconds without a trap", "",
        evidence);
  } else if (current == "kvm-clock" || current == "hyperv_clocksource_tsc_page") {
    add(out, "clocksource", Level::kWarn,
        current + ": a paravirtual clock, stable but the host's; latencies are the VM's", "",
        evidence);
  } else if (available.find("tsc") == std::string::npos && !current.empty()) {
    add(out, "clocksource", Level::kBad,
        current +
            ": the TSC is not available (marked unstable?): every clock read is slow and "
            "the timer's own latency grows",
        "dmesg | grep -i tsc  # find why the TSC was marked unstable (tsc=unstable, a failed "
        "watchdog check)",
        evidence);
  } else if (!current.empty()) {
    add(out, "clocksource", Level::kWarn, current + " instead of the TSC: slower clock reads",
        "echo tsc > " + dir + "/current_clocksource", evidence);
  }
}

// The cumulative steal of all CPUs (the 8th value of /proc/stat's "cpu" line), or -1.
long long steal_ticks(const SysRoot& r) {
  std::istringstream stat(r.read("/proc/stat").value_or(""));
  std::string cpu;
  long long v = 0, steal = -1;
  if (!(stat >> cpu) || cpu != "cpu") return -1;
  for (int i = 0; i < 8 && stat >> v; ++i) steal = i == 7 ? v : steal;
  return steal;
}

void check_hypervisor(const SysRoot& r, std::vector<Finding>& out) {
  const std::string cpuinfo = r.read("/proc/cpuinfo").value_or("");
  if (cpuinfo.find(" hypervisor") == std::string::npos) {
    add(out, "hypervisor", Level::kOk, "bare metal: no host schedules this machine", "",
        "/proc/cpuinfo flags: no hypervisor");
    return;
  }
  std::string vendor = r.trimmed("/sys/hypervisor/type");
  if (vendor.empty()) vendor = r.trimmed("/sys/class/dmi/id/sys_vendor");
  const long long steal = steal_ticks(r);
  const bool visible = steal > 0;
  add(out, "hypervisor", visible ? Level::kWarn : Level::kBad,
      std::string("a virtual machine (") + (vendor.empty() ? "unknown host" : vendor) +
          "): the host's scheduling adds latency no guest setting removes" +
          (visible ? "; steal is visible, so rtgate separates it from the kernel's part"
                   : "; no steal is reported, so the host's delays look like the kernel's"),
      visible ? ""
              : "measure on bare metal, or give the VM dedicated, pinned vCPUs (and a host "
                "that reports steal time, e.g. KVM)",
      "/proc/cpuinfo: hypervisor flag; /proc/stat steal " + std::to_string(steal) + " ticks");
}

void check_clock(const Context& ctx, std::vector<Finding>& out) {
  check_clocksource(ctx.root, out);
  check_hypervisor(ctx.root, out);
}

}  // namespace
}  // namespace rtgate::readiness

RTGATE_READINESS_CHECK({.order = 90, .name = "clock", .fn = rtgate::readiness::check_clock})
