#include "framework/workload/workload_metrics.h"

namespace rtgate::workload {

Metric duration_metric(std::string name, std::string unit, std::vector<double> samples) {
  Metric m;
  m.name = std::move(name);
  m.kind = MetricKind::kDuration;
  m.unit = std::move(unit);
  m.better = Better::kLower;
  m.samples = std::move(samples);
  return m;
}

Metric with_samples(Metric m, std::vector<double> samples) {
  m.samples = std::move(samples);
  return m;
}

void add_ops_metrics(Case& c, const GroupRun& g, const std::string& unit, double per) {
  c.metrics.push_back(Metric::throughput("ops_rate", unit, g.ops_per_s() / per));
  c.metrics.push_back(
      Metric::count("ops", static_cast<double>(g.ops), "ops", Metric::Gating::kReported));
}

void add_cpu_metrics(Case& c, const std::vector<CpuUsage>& used) {
  std::vector<double> usr, sys;
  for (const CpuUsage& u : used) {
    usr.push_back(u.usr_s);
    sys.push_back(u.sys_s);
  }
  c.metrics.push_back(duration_metric("cpu_usr_s", "s", std::move(usr)));
  c.metrics.push_back(duration_metric("cpu_sys_s", "s", std::move(sys)));
}

void finish_case(SuiteResult& result, Case c, const GroupRun& g, WorkloadProbe& probe) {
  add_cpu_metrics(c, {g.cpu});
  probe.add_metrics(c);
  result.cases.push_back(std::move(c));
  if (!g.error.empty()) {
    result.status = SuiteStatus::kError;
    result.reason = g.error;
  }
}

}  // namespace rtgate::workload
