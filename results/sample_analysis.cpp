#include "results/sample_analysis.h"

#include <cstdio>

#include "base/text/units.h"

namespace rtgate::trace {

std::string task_label(const AnalysisPart& p) {
  return p.name + " (pid " + std::to_string(p.pid) + ", " + p.policy + " " +
         std::to_string(p.prio) + ")";
}

std::int64_t SampleAnalysis::host_ns() const {
  std::int64_t ns = 0;
  for (const AnalysisPart& p : parts) ns += p.kind == "host" ? p.ns : 0;
  return ns;
}

std::string SampleAnalysis::summary(std::size_t max_parts) const {
  std::string s = thread + " " + trigger + " " + text::in_us(latency_ns) + ":";
  std::size_t shown = 0;
  for (const AnalysisPart& p : parts) {
    if (shown++ == max_parts) {
      s += " ...";
      break;
    }
    char pct[16];
    std::snprintf(
        pct, sizeof pct, "%.0f%%",
        latency_ns > 0 ? 100.0 * static_cast<double>(p.ns) / static_cast<double>(latency_ns) : 0.0);
    s += shown > 1 ? ", " : " ";
    if (p.kind == "task") {
      s += task_label(p);
    } else if (p.kind == "host") {
      s += "host (" + p.name + ")";
    } else if (p.kind == "self" || p.kind == "idle" || p.kind == "untraced") {
      s += p.kind == "self" ? "the thread itself" : p.kind;
    } else {
      s += p.kind + " " + p.name;
    }
    s += " " + text::in_us(p.ns) + " " + pct;
  }
  if (!pi_boosts.empty()) s += "; " + std::to_string(pi_boosts.size()) + " PI boost(s)";
  if (delayed_by) s += "; delayed by " + task_label(*delayed_by);
  return s;
}

}  // namespace rtgate::trace
