// The preemption model: only PREEMPT_RT bounds the latency of a kernel's own sections; a full
// preemption kernel comes nearest without it, and a dynamic kernel can be switched at boot.
#include <utility>

#include "framework/readiness/check_util.h"

namespace rtgate::readiness {
namespace {

// A dynamic kernel's mode at boot, without debugfs: preempt= if given, else the config's
// default (CONFIG_PREEMPT, _VOLUNTARY, _NONE, _LAZY), with where it was read.
std::pair<std::string, std::string> boot_mode(const SysRoot& r) {
  if (const auto p = cmdline_param(r, "preempt"); p && !p->empty()) {
    return {*p, "/proc/cmdline: preempt=" + *p};
  }
  const std::string config = "/boot/config-" + r.trimmed("/proc/sys/kernel/osrelease");
  const std::string text = r.read(config).value_or("");
  for (const auto& [option, mode] : {std::pair{"CONFIG_PREEMPT=y", "full"},
                                     {"CONFIG_PREEMPT_LAZY=y", "lazy"},
                                     {"CONFIG_PREEMPT_VOLUNTARY=y", "voluntary"},
                                     {"CONFIG_PREEMPT_NONE=y", "none"}}) {
    if (text.find(std::string("\n") + option) != std::string::npos) {
      return {mode, config + ": " + option};
    }
  }
  return {"", ""};
}

void check_preempt(const Context& ctx, std::vector<Finding>& out) {
  const SysRoot& r = ctx.root;
  const std::string version = r.trimmed("/proc/version");
  const bool rt =
      r.trimmed("/sys/kernel/realtime") == "1" || version.find("PREEMPT_RT") != std::string::npos;
  // A dynamic kernel lists its models with the current one in parentheses.
  const std::string dynamic = r.trimmed("/sys/kernel/debug/sched/preempt");
  std::string current;
  std::string evidence = "/proc/version: " + version;
  if (const auto a = dynamic.find('('), b = dynamic.find(')'); a != std::string::npos && b > a) {
    current = dynamic.substr(a + 1, b - a - 1);
    evidence += "; /sys/kernel/debug/sched/preempt: " + dynamic;
  } else if (version.find("PREEMPT_DYNAMIC") != std::string::npos) {
    const auto [mode, where] = boot_mode(r);
    current = mode.empty() ? "unknown" : mode;
    const bool locked = r.exists("/sys/kernel/debug/sched/preempt");
    evidence +=
        "; " + (where.empty() ? std::string(locked ? "debugfs' preempt unreadable" : "no debugfs") +
                                    ", no preempt=, no config"
                              : where);
  }
  if (rt) {
    add(out, "preempt model", Level::kOk,
        "PREEMPT_RT: spinlocks sleep and interrupts are threads, so the kernel's own sections are "
        "preemptible",
        "", evidence);
    return;
  }
  if (current == "full" || current == "lazy" ||
      (current.empty() && version.find(" PREEMPT ") != std::string::npos &&
       version.find("PREEMPT_DYNAMIC") == std::string::npos)) {
    add(out, "preempt model", Level::kWarn,
        "full preemption without PREEMPT_RT: spinlock and interrupt sections still delay RT "
        "threads, so the worst case is not an RT kernel's",
        "boot a PREEMPT_RT kernel (Debian: apt install linux-image-rt-amd64)", evidence);
    return;
  }
  if (current == "unknown") {
    add(out, "preempt model", Level::kBad,
        "dynamic preemption in a mode nothing here shows (debugfs, preempt=, config): "
        "without preempt=full, a kernel path runs to its end before an RT thread may preempt it",
        "add preempt=full to the kernel command line (or mount -t debugfs none /sys/kernel/debug "
        "to see the mode)",
        evidence);
    return;
  }
  if (!current.empty()) {
    add(out, "preempt model", Level::kBad,
        "dynamic preemption set to '" + current +
            "': a kernel path runs to its end before an RT thread may preempt it",
        "add preempt=full to the kernel command line (the nearest this kernel gets), or boot a "
        "PREEMPT_RT kernel",
        evidence);
    return;
  }
  add(out, "preempt model", Level::kBad,
      "no kernel preemption: a kernel path runs to its end before an RT thread may preempt it",
      "boot a PREEMPT_RT kernel (Debian: apt install linux-image-rt-amd64)", evidence);
}

}  // namespace
}  // namespace rtgate::readiness

RTGATE_READINESS_CHECK({.order = 10, .name = "preempt", .fn = rtgate::readiness::check_preempt})
