// What this process may do: SCHED_FIFO needs an RT priority limit (or CAP_SYS_NICE), and locking
// its memory (no page faults while measuring) needs a memlock limit (or CAP_IPC_LOCK).
#include <cstdlib>
#include <sstream>

#include "framework/readiness/check_util.h"

namespace rtgate::readiness {
namespace {

// The soft limit of a /proc/self/limits row ("Max realtime priority  0  0"), "" when absent.
std::string soft_limit(const std::string& limits, const std::string& row) {
  std::istringstream in(limits);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(row, 0) != 0) continue;
    std::istringstream rest(line.substr(row.size()));
    std::string soft;
    rest >> soft;
    return soft;
  }
  return "";
}

// Whether CAP_SYS_NICE (23) and CAP_IPC_LOCK (14) are effective, from /proc/self/status.
bool has_cap(const std::string& status, int cap) {
  const auto at = status.find("CapEff:");
  if (at == std::string::npos) return false;
  const unsigned long long eff = std::strtoull(status.c_str() + at + 7, nullptr, 16);
  return (eff >> cap) & 1;
}

void check_limits(const Context& ctx, std::vector<Finding>& out) {
  const SysRoot& r = ctx.root;
  const std::string limits = r.read("/proc/self/limits").value_or("");
  const std::string status = r.read("/proc/self/status").value_or("");
  const std::string rtprio = soft_limit(limits, "Max realtime priority");
  const std::string memlock = soft_limit(limits, "Max locked memory");
  const std::string evidence = "RLIMIT_RTPRIO " + rtprio + ", RLIMIT_MEMLOCK " + memlock;
  const bool fifo = has_cap(status, 23) || (rtprio != "0" && !rtprio.empty());
  const bool lock = has_cap(status, 14) || memlock == "unlimited";
  if (!fifo) {
    add(out, "rt limits", Level::kBad,
        "this process may not use SCHED_FIFO: the suites cannot run their RT threads",
        "run as root, or add '@rtgate - rtprio 99' to /etc/security/limits.conf", evidence);
  } else if (!lock) {
    add(out, "rt limits", Level::kWarn,
        "memory cannot be locked without limit: a page fault can land in a measurement",
        "ulimit -l unlimited (or '@rtgate - memlock unlimited' in /etc/security/limits.conf)",
        evidence);
  } else {
    add(out, "rt limits", Level::kOk, "SCHED_FIFO and memory locking are allowed", "", evidence);
  }
}

}  // namespace
}  // namespace rtgate::readiness

RTGATE_READINESS_CHECK({.order = 100, .name = "limits", .fn = rtgate::readiness::check_limits})
