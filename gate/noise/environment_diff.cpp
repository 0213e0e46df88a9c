#include "gate/noise/environment_diff.h"

#include <map>
#include <set>
#include <sstream>

#include "results/board_class.h"

namespace rtgate::gate {
namespace {

std::string shown(const std::string& s, const char* empty = "(unknown)") {
  return s.empty() ? empty : "'" + s + "'";
}

// Boot parameters that never matter to a gate: BOOT_IMAGE= and initrd= name the kernel image,
// which differs whenever the kernel does, and rtgate_lab.* are the lab board's own (its output
// folder, the guest's host name; its clock is compared as the board class).
bool ignored_parameter(const std::string& name) {
  return name == "BOOT_IMAGE" || name == "initrd" || name.rfind("rtgate_lab.", 0) == 0;
}

// The boot parameters that matter, by name: each name's values in the order given ("" for a
// flag such as threadirqs), so that a parameter given twice keeps both.
std::map<std::string, std::vector<std::string>> boot_parameters(const std::string& cmdline) {
  std::istringstream in(cmdline);
  std::map<std::string, std::vector<std::string>> out;
  for (std::string tok; in >> tok;) {
    const std::size_t eq = tok.find('=');
    const std::string name = tok.substr(0, eq);
    if (ignored_parameter(name)) continue;
    out[name].push_back(eq == std::string::npos ? "" : tok.substr(eq + 1));
  }
  return out;
}

std::string values_of(const std::vector<std::string>* v) {
  if (v == nullptr) return "(absent)";
  std::string out;
  for (const std::string& s : *v)
    out += (out.empty() ? "" : ", ") + (s.empty() ? "(set)" : "'" + s + "'");
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

// One difference per parameter, naming it and both sides' values.
void cmdline(EnvironmentDiff& d, const Environment& base, const Environment& cur) {
  const auto bp = boot_parameters(base.cmdline), cp = boot_parameters(cur.cmdline);
  std::set<std::string> names;
  for (const auto& [name, v] : bp) names.insert(name);
  for (const auto& [name, v] : cp) names.insert(name);
  for (const std::string& name : names) {
    const auto b = bp.find(name), c = cp.find(name);
    const auto* bv = b == bp.end() ? nullptr : &b->second;
    const auto* cv = c == cp.end() ? nullptr : &c->second;
    if (bv != nullptr && cv != nullptr && *bv == *cv) continue;
    d.differences.push_back("cmdline " + name + ": " + values_of(bv) + " -> " + values_of(cv));
    d.mismatch = true;
  }
}

std::string yes_no(bool v) { return v ? "true" : "false"; }

// The readiness items both sides judged whose levels differ: "readiness cpu isolation: ok ->
// bad". Listed, not decisive: the facts that decide (isolated_cpus, preempt_model, ...) are
// compared on their own.
void readiness(EnvironmentDiff& d, const Environment& base, const Environment& cur) {
  for (const ReadinessItem& b : base.readiness) {
    for (const ReadinessItem& c : cur.readiness) {
      if (b.item == c.item && b.level != c.level) {
        d.differences.push_back("readiness " + b.item + ": " + b.level + " -> " + c.level);
      }
    }
  }
}

}  // namespace

EnvironmentDiff diff_environments(const Environment& base, const Environment& cur) {
  EnvironmentDiff d;
  Differ f(d);
  readiness(d, base, cur);
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
  f.text("board_class", to_string(board_class(base)), to_string(board_class(cur)), true);
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
