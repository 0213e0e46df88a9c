// Interrupts on the measured CPUs: a device interrupt's handler (or, on PREEMPT_RT, its thread's
// wakeup) lands between two samples; irqbalance moves interrupts back onto any CPU it likes.
#include <algorithm>
#include <cctype>

#include "framework/readiness/check_util.h"

namespace rtgate::readiness {
namespace {

// An interrupt in use: its /proc/irq/N directory has a directory per handler (named after the
// device) besides the fixed files.
bool in_use(const SysRoot& r, const std::string& irq) {
  static const std::vector<std::string> fixed = {
      "affinity_hint", "effective_affinity", "effective_affinity_list",
      "node",          "smp_affinity",       "smp_affinity_list",
      "spurious"};
  for (const std::string& e : r.list("/proc/irq/" + irq)) {
    if (std::find(fixed.begin(), fixed.end(), e) == fixed.end()) return true;
  }
  return false;
}

// Interrupts to the CPUs not measured. When every CPU is measured, the first one is kept for
// them and the rest measured; with one CPU there is nowhere else.
std::string irq_fix(const std::vector<int>& online, const std::vector<int>& measured) {
  if (online.size() < 2) return "";
  std::vector<int> keep = missing(online, measured);
  std::string then;
  if (keep.empty()) {
    keep = {online.front()};
    then = "  # then measure with --cpus " + list(missing(online, keep));
  }
  const std::string k = list(keep);
  return "for i in /proc/irq/[0-9]*; do echo " + k +
         " > $i/smp_affinity_list; done 2>/dev/null; echo " + k +
         " > /proc/irq/default_smp_affinity_list" + then;
}

void check_irqs(const Context& ctx, std::vector<Finding>& out) {
  const SysRoot& r = ctx.root;
  std::vector<std::string> on_measured;
  for (const std::string& irq : r.list("/proc/irq")) {
    if (irq.empty() || !std::isdigit(static_cast<unsigned char>(irq[0])) || !in_use(r, irq)) {
      continue;
    }
    // The effective affinity where the kernel reports it, else the requested one.
    std::string cpus = r.trimmed("/proc/irq/" + irq + "/effective_affinity_list");
    if (cpus.empty()) cpus = r.trimmed("/proc/irq/" + irq + "/smp_affinity_list");
    const std::vector<int> at = cpus_of(cpus);
    if (missing(ctx.cpus, at).size() < ctx.cpus.size()) {
      on_measured.push_back(irq);
    }
  }
  if (on_measured.empty()) {
    add(out, "irq affinity", Level::kOk, "no device interrupt is routed to the measured CPUs", "",
        "measured CPUs " + list(ctx.cpus));
  } else {
    std::string names;
    for (std::size_t i = 0; i < on_measured.size() && i < 8; ++i) {
      names += (i ? "," : "") + on_measured[i];
    }
    add(out, "irq affinity", Level::kWarn,
        std::to_string(on_measured.size()) +
            " device interrupts may run on the measured CPUs, between two samples",
        irq_fix(online_cpus(r), ctx.cpus),
        "irqs " + names + (on_measured.size() > 8 ? ",..." : "") + " on CPUs " + list(ctx.cpus));
  }
  bool irqbalance = false;
  for (const std::string& pid : r.list("/proc")) {
    if (!pid.empty() && std::isdigit(static_cast<unsigned char>(pid[0])) &&
        r.trimmed("/proc/" + pid + "/comm") == "irqbalance") {
      irqbalance = true;
      break;
    }
  }
  if (irqbalance) {
    add(out, "irqbalance", Level::kWarn,
        "irqbalance moves interrupts onto any CPU every 10 s, the measured ones included",
        "systemctl disable --now irqbalance (or IRQBALANCE_BANNED_CPULIST=" + list(ctx.cpus) +
            " in /etc/default/irqbalance)",
        "a process named irqbalance runs");
  } else {
    add(out, "irqbalance", Level::kOk, "irqbalance does not run", "",
        "no process named irqbalance");
  }
}

}  // namespace
}  // namespace rtgate::readiness

RTGATE_READINESS_CHECK({.order = 30, .name = "irqs", .fn = rtgate::readiness::check_irqs})
