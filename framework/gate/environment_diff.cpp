#include "framework/gate/environment_diff.h"

#include <algorithm>
#include <sstream>

namespace rtgate::gate {
namespace {

std::string shown(const std::string& s) { return s.empty() ? "(unknown)" : "'" + s + "'"; }

// The boot parameters that matter, as a sorted list: BOOT_IMAGE= and initrd= name the kernel
// image, which differs whenever the kernel does, so they are left out.
std::vector<std::string> boot_parameters(const std::string& cmdline) {
  std::istringstream in(cmdline);
  std::vector<std::string> out;
  for (std::string tok; in >> tok;) {
    if (tok.rfind("BOOT_IMAGE=", 0) == 0 || tok.rfind("initrd=", 0) == 0) continue;
    out.push_back(tok);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// "-removed +added" between two sorted lists.
std::string list_change(const std::vector<std::string>& b, const std::vector<std::string>& c) {
  std::vector<std::string> gone, added;
  std::set_difference(b.begin(), b.end(), c.begin(), c.end(), std::back_inserter(gone));
  std::set_difference(c.begin(), c.end(), b.begin(), b.end(), std::back_inserter(added));
  std::string out;
  for (const std::string& g : gone) out += (out.empty() ? "-" : " -") + g;
  for (const std::string& a : added) out += (out.empty() ? "+" : " +") + a;
  return out;
}

}  // namespace

EnvironmentDiff diff_environments(const Environment& base, const Environment& cur) {
  EnvironmentDiff d;
  auto field = [&](const char* name, const std::string& b, const std::string& c, bool decisive) {
    if (b == c) return;
    d.differences.push_back(std::string(name) + ": " + shown(b) + " -> " + shown(c));
    d.mismatch = d.mismatch || decisive;
  };
  field("cpu_model", base.cpu_model, cur.cpu_model, true);
  field("online_cpus", std::to_string(base.online_cpus), std::to_string(cur.online_cpus), true);
  field("preempt_model", base.preempt_model, cur.preempt_model, true);
  const std::vector<std::string> bp = boot_parameters(base.cmdline);
  const std::vector<std::string> cp = boot_parameters(cur.cmdline);
  if (bp != cp) {
    d.differences.push_back("cmdline: " + list_change(bp, cp));
    d.mismatch = true;
  }
  field("kernel_release", base.kernel_release, cur.kernel_release, false);
  return d;
}

}  // namespace rtgate::gate
