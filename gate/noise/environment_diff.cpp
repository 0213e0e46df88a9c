#include "gate/noise/environment_diff.h"

#include <algorithm>
#include <iterator>
#include <sstream>

namespace rtgate::gate {
namespace {

std::string shown(const std::string& s, const char* empty = "(unknown)") {
  return s.empty() ? empty : "'" + s + "'";
}

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

// A failure marker the runner leaves in Environment::extra, as (state, shown). The state is what
// is compared: two failures with differently worded reasons are the same condition.
struct Marker {
  std::string state, shown;
};

const std::string* extra_of(const Environment& e, const char* key) {
  const auto it = e.extra.find(key);
  return it == e.extra.end() ? nullptr : &it->second;
}

// Present only when mlockall failed; absent when it worked or no suite needed it.
Marker mlockall_marker(const Environment& e) {
  const std::string* why = extra_of(e, "mlockall");
  if (!why) return {"ok", "(no failure)"};
  return {"failed", "failed: " + *why};
}

Marker dma_hold_marker(const Environment& e) {
  const std::string* v = extra_of(e, "cpu_dma_latency_hold");
  if (!v) return {"not attempted", "not attempted"};
  if (*v == "0 us") return {"held", "held at 0 us"};
  return {"not held", "not held: " + *v};
}

class Differ {
 public:
  explicit Differ(EnvironmentDiff& d) : d_(d) {}
  void add(const char* name, bool equal, const std::string& b, const std::string& c,
           bool decisive) {
    if (equal) return;
    d_.differences.push_back(std::string(name) + ": " + b + " -> " + c);
    d_.mismatch = d_.mismatch || decisive;
  }
  void text(const char* name, const std::string& b, const std::string& c, bool decisive,
            const char* empty = "(unknown)") {
    add(name, b == c, shown(b, empty), shown(c, empty), decisive);
  }
  void marker(const char* name, const Marker& b, const Marker& c) {
    add(name, b.state == c.state, b.shown, c.shown, true);
  }

 private:
  EnvironmentDiff& d_;
};

void cmdline(EnvironmentDiff& d, const Environment& base, const Environment& cur) {
  const std::vector<std::string> bp = boot_parameters(base.cmdline);
  const std::vector<std::string> cp = boot_parameters(cur.cmdline);
  if (bp == cp) return;
  d.differences.push_back("cmdline: " + list_change(bp, cp));
  d.mismatch = true;
}

std::string yes_no(bool v) { return v ? "true" : "false"; }

}  // namespace

EnvironmentDiff diff_environments(const Environment& base, const Environment& cur) {
  EnvironmentDiff d;
  Differ f(d);
  f.text("cpu_model", base.cpu_model, cur.cpu_model, true);
  f.text("online_cpus", std::to_string(base.online_cpus), std::to_string(cur.online_cpus), true);
  f.text("preempt_model", base.preempt_model, cur.preempt_model, true);
  cmdline(d, base, cur);
  f.add("realtime", base.realtime == cur.realtime, yes_no(base.realtime), yes_no(cur.realtime),
        true);
  // Empty here is a fact (no CPU isolated, bare metal), not an unknown.
  f.text("isolated_cpus", base.isolated_cpus, cur.isolated_cpus, true, "(none)");
  f.text("nohz_full", base.nohz_full, cur.nohz_full, true, "(none)");
  f.text("smt", base.smt, cur.smt, true);
  f.text("clocksource", base.clocksource, cur.clocksource, true);
  f.text("hypervisor", base.hypervisor, cur.hypervisor, true, "(none)");
  f.add("rt_runtime_us", base.rt_runtime_us == cur.rt_runtime_us,
        std::to_string(base.rt_runtime_us), std::to_string(cur.rt_runtime_us), true);
  f.marker("mlockall", mlockall_marker(base), mlockall_marker(cur));
  f.marker("cpu_dma_latency_hold", dma_hold_marker(base), dma_hold_marker(cur));
  f.text("kernel_release", base.kernel_release, cur.kernel_release, false);
  f.text("kernel_version", base.kernel_version, cur.kernel_version, false);
  f.text("governors", base.governors, cur.governors, false);
  f.add("memory_total_kb", base.memory_total_kb == cur.memory_total_kb,
        std::to_string(base.memory_total_kb), std::to_string(cur.memory_total_kb), false);
  return d;
}

}  // namespace rtgate::gate
