#include "cli/trace_threshold.h"

#include <algorithm>

namespace rtgate::cli {
namespace {

// The metric's p99 in the baseline: of its merged histogram, else the median of its runs' p99.
double p99_ns(const Metric& m) {
  if (m.histogram && m.histogram->count() > 0)
    return static_cast<double>(m.histogram->quantile(0.99));
  std::vector<double> runs;
  for (const LatencySummary& r : m.runs) {
    if (r.p99 > 0) runs.push_back(static_cast<double>(r.p99));
  }
  if (runs.empty()) return 0;
  std::nth_element(runs.begin(), runs.begin() + static_cast<long>(runs.size() / 2), runs.end());
  return runs[runs.size() / 2];
}

}  // namespace

std::map<std::string, trace::TraceOptions::Chosen> choose_trace_thresholds(
    const RunReport& baseline, const std::vector<std::string>& suites) {
  std::map<std::string, trace::TraceOptions::Chosen> out;
  for (const std::string& name : suites) {
    const SuiteResult* s = baseline.find(name);
    if (s == nullptr) continue;
    if (s->trace && s->trace->threshold_ns > 0) {
      out[name] = {.threshold_us = static_cast<double>(s->trace->threshold_ns) / 1e3,
                   .from = "the baseline's trace threshold"};
      continue;
    }
    double lowest = 0;
    std::string which;
    for (const Case& c : s->cases) {
      for (const Metric& m : c.metrics) {
        if (m.kind != MetricKind::kLatency) continue;
        const double p99 = p99_ns(m);
        if (p99 > 0 && (lowest == 0 || p99 < lowest)) {
          lowest = p99;
          which = name + "/" + c.name + "/" + m.name;
        }
      }
    }
    if (lowest > 0)
      out[name] = {.threshold_us = lowest / 1e3, .from = "the baseline's p99 of " + which};
  }
  return out;
}

}  // namespace rtgate::cli
