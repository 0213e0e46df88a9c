#include "exporters/prometheus/serve_collectable.h"

#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>

namespace rtgate::prom {
namespace {

prometheus::ClientMetric::Label label(std::string name, std::string value) {
  prometheus::ClientMetric::Label l;
  l.name = std::move(name);
  l.value = std::move(value);
  return l;
}

prometheus::MetricFamily family(std::string name, std::string help, prometheus::MetricType type) {
  prometheus::MetricFamily f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.type = type;
  return f;
}

}  // namespace

ServeCollectable::ServeCollectable(const Environment& env)
    : host_(env.hostname), kernel_release_(env.kernel_release) {}

void ServeCollectable::set_result(std::shared_ptr<prometheus::Collectable> latest) {
  std::lock_guard lock(mutex_);
  latest_ = std::move(latest);
}

void ServeCollectable::on_run(const std::string& suite, RunContext* ctx) {
  std::lock_guard lock(mutex_);
  suite_ = suite;
  ctx_ = ctx;
}

void ServeCollectable::count_run() {
  std::lock_guard lock(mutex_);
  ++runs_;
}

std::vector<prometheus::MetricFamily> ServeCollectable::Collect() const {
  std::lock_guard lock(mutex_);
  std::vector<prometheus::MetricFamily> out;
  if (latest_) out = latest_->Collect();
  const auto common = [&](std::vector<prometheus::ClientMetric::Label> ls) {
    ls.push_back(label("host", host_));
    ls.push_back(label("kernel_release", kernel_release_));
    return ls;
  };

  auto progress = family("rtgate_run_in_progress", "1 while a run of the suite is in progress",
                         prometheus::MetricType::Gauge);
  prometheus::ClientMetric p;
  p.label = common({label("suite", suite_)});
  p.gauge.value = ctx_ != nullptr ? 1 : 0;
  progress.metric.push_back(std::move(p));
  out.push_back(std::move(progress));

  auto samples =
      family("rtgate_live_samples", "samples the measuring thread took so far in this run",
             prometheus::MetricType::Gauge);
  auto max =
      family("rtgate_live_max_seconds", "the measuring thread's max latency so far in this run",
             prometheus::MetricType::Gauge);
  if (ctx_ != nullptr) {
    ctx_->for_each_tracked([&](LiveStats& s) {
      prometheus::ClientMetric n, m;
      n.label = m.label = common({label("suite", suite_), label("thread", s.label)});
      n.gauge.value = static_cast<double>(s.samples.load(std::memory_order_relaxed));
      m.gauge.value = static_cast<double>(s.max_ns.load(std::memory_order_relaxed)) / 1e9;
      samples.metric.push_back(std::move(n));
      max.metric.push_back(std::move(m));
    });
  }
  out.push_back(std::move(samples));
  out.push_back(std::move(max));

  auto runs = family("rtgate_serve_runs_total", "runs completed since serve started",
                     prometheus::MetricType::Counter);
  prometheus::ClientMetric r;
  r.label = common({});
  r.counter.value = static_cast<double>(runs_);
  runs.metric.push_back(std::move(r));
  out.push_back(std::move(runs));
  return out;
}

}  // namespace rtgate::prom
