#include "tests/integration/fleet_reports.h"

#include <regex>
#include <stdexcept>
#include <vector>

namespace rtgate::test {

LatencyHistogram doubled(const LatencyHistogram& h) {
  std::vector<Bucket> moved;
  for (const Bucket& b : h.buckets()) {
    const std::size_t i = LatencyHistogram::bucket_index(2 * b.lower_ns);
    moved.push_back(
        {LatencyHistogram::bucket_lower(i), LatencyHistogram::bucket_upper(i), b.count});
  }
  LatencyHistogram out;
  if (h.max() >= LatencyHistogram::kRangeEnd / 2 ||
      !out.restore(moved, h.count(), 2 * h.min(), 2 * h.max(), 2 * h.mean(), 2 * h.stddev(),
                   h.overflow())) {
    throw std::runtime_error("cannot double a histogram with max " + std::to_string(h.max()));
  }
  return out;
}

RunReport on_host(RunReport r, const std::string& host, const std::string& kernel,
                  const std::string& finished_at) {
  r.environment.hostname = host;
  r.environment.kernel_release = kernel;
  r.finished_at = finished_at;
  return r;
}

RunReport regressed(RunReport r) {
  for (SuiteResult& s : r.suites) {
    for (Case& c : s.cases) {
      for (Metric& m : c.metrics) {
        if (m.kind == MetricKind::kLatency && m.histogram) m.histogram = doubled(*m.histogram);
        if (m.kind == MetricKind::kThroughput) {
          for (double& v : m.samples) v /= 2;
        }
      }
    }
  }
  return r;
}

std::map<std::string, double> ratios(const RunReport& k1, const RunReport& k2, MetricKind kind) {
  std::map<std::string, double> out;
  for (const SuiteResult& s : k1.suites) {
    for (const Case& c : s.cases) {
      for (const Metric& m : c.metrics) {
        if (m.kind != kind) continue;
        const Metric& later = *k2.find(s.name)->find(c.name)->find(m.name);
        double before = 0, after = 0;
        if (kind == MetricKind::kLatency) {
          before = static_cast<double>(LatencySummary::of(*m.histogram).p999) / 1e9;
          after = static_cast<double>(LatencySummary::of(*later.histogram).p999) / 1e9;
        } else {
          before = SampleSummary::of(m.samples).hmean;
          after = SampleSummary::of(later.samples).hmean;
        }
        if (kind == MetricKind::kThroughput || before > 0) {
          out[c.name + "/" + m.name] = after / before;
        }
      }
    }
  }
  return out;
}

std::map<std::string, double> crossing(const std::map<std::string, double>& r, MetricKind kind,
                                       double threshold) {
  std::map<std::string, double> out;
  for (const auto& [key, ratio] : r) {
    if (kind == MetricKind::kLatency ? ratio > threshold : ratio < threshold) out[key] = ratio;
  }
  return out;
}

YAML::Node alert_rule(const std::string& name) {
  for (const auto& group : YAML::LoadFile(kRules)["groups"]) {
    for (const auto& rule : group["rules"]) {
      if (rule["alert"] && rule["alert"].as<std::string>() == name) return rule;
    }
  }
  throw std::runtime_error(name + " is not in " + kRules);
}

std::pair<std::string, double> split_threshold(const std::string& expr) {
  std::smatch m;
  if (!std::regex_match(expr, m, std::regex(R"(([\s\S]*\S)\s*[<>]\s*([0-9.]+)\s*)"))) {
    throw std::runtime_error("alert expression does not end in '< N' or '> N': " + expr);
  }
  return {m[1], std::stod(m[2])};
}

}  // namespace rtgate::test
