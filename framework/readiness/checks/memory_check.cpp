// Memory management that runs where it likes and takes locks an RT thread may wait on:
// transparent huge pages (khugepaged, compaction), swap, KSM's scanner, NUMA balancing's faults.
#include <algorithm>

#include "framework/readiness/check_util.h"

namespace rtgate::readiness {
namespace {

void check_memory(const Context& ctx, std::vector<Finding>& out) {
  const SysRoot& r = ctx.root;
  const std::string thp = "/sys/kernel/mm/transparent_hugepage/enabled";
  if (r.chosen(thp) == "always") {
    add(out, "transparent hugepages", Level::kWarn,
        "THP for every mapping: page faults compact memory and khugepaged collapses pages behind "
        "the measured threads",
        "echo never > " + thp + " (or transparent_hugepage=never on the kernel command line)",
        thp + ": " + r.trimmed(thp));
  }
  const std::string khugepaged = "/sys/kernel/mm/transparent_hugepage/khugepaged/defrag";
  if (r.chosen(thp) != "never" && r.trimmed(khugepaged) == "1") {
    add(out, "khugepaged", Level::kWarn,
        "khugepaged compacts memory to collapse pages into huge ones, in the background",
        "echo 0 > " + khugepaged, khugepaged + ": 1");
  }
  std::string swaps = r.read("/proc/swaps").value_or("");
  const auto lines = std::count(swaps.begin(), swaps.end(), '\n');
  if (lines > 1) {
    add(out, "swap", Level::kWarn,
        "swap is on: pages of other processes (and of an unlocked tool) page in from disk",
        "swapoff -a", "/proc/swaps: " + std::to_string(lines - 1) + " device(s)");
  }
  if (r.trimmed("/sys/kernel/mm/ksm/run") == "1") {
    add(out, "ksm", Level::kWarn, "KSM's scanner merges pages and makes copy-on-write faults",
        "echo 0 > /sys/kernel/mm/ksm/run", read_as_evidence(r, "/sys/kernel/mm/ksm/run"));
  }
  if (r.integer("/proc/sys/kernel/numa_balancing").value_or(0) > 0) {
    add(out, "numa balancing", Level::kWarn,
        "NUMA balancing unmaps pages to sample their use, so threads fault on their own memory",
        "sysctl -w kernel.numa_balancing=0",
        read_as_evidence(r, "/proc/sys/kernel/numa_balancing"));
  }
}

}  // namespace
}  // namespace rtgate::readiness

RTGATE_READINESS_CHECK({.order = 70, .name = "memory", .fn = rtgate::readiness::check_memory})
