// Synthetic result files for the gate tests: RunReports built in memory from seeded
// distributions shaped like real ones.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "framework/report/report.h"

namespace rtgate::gate::test {

// A wakeup-latency shape: a log-normal body, a 1% component of interrupted wakeups, and a 0.2%
// component of long stalls that holds p99.9. spike_scale multiplies the stalls (2 doubles the
// tail beyond p99.8, and so p99.9, while p99 barely moves).
struct LatencyShape {
  double body_median_ns = 4000, body_sigma = 0.2;
  double irq_share = 0.01, irq_median_ns = 10'000, irq_sigma = 0.3;
  double spike_share = 0.002, spike_median_ns = 25'000, spike_sigma = 0.3;
  double spike_scale = 1.0;
};

inline std::vector<double> latency_samples(std::mt19937_64& rng, const LatencyShape& s,
                                           std::size_t n) {
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> z(0, 1);
  std::vector<double> out(n);
  for (double& v : out) {
    const double pick = u(rng);
    if (pick < s.spike_share) {
      v = s.spike_scale * s.spike_median_ns * std::exp(s.spike_sigma * z(rng));
    } else if (pick < s.spike_share + s.irq_share) {
      v = s.irq_median_ns * std::exp(s.irq_sigma * z(rng));
    } else {
      v = s.body_median_ns * std::exp(s.body_sigma * z(rng));
    }
  }
  return out;
}

// A latency metric from samples: the histogram of all of them, and the maxima of `blocks`
// consecutive equal blocks as its samples (what the suites record per block or per run).
inline Metric latency_metric(const std::vector<double>& samples, std::size_t blocks,
                             const std::string& name = "wakeup_latency") {
  LatencyHistogram h;
  std::vector<double> maxima(blocks, 0.0);
  const std::size_t per_block = (samples.size() + blocks - 1) / blocks;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const auto v = static_cast<std::int64_t>(std::llround(samples[i]));
    h.record(v);
    double& m = maxima[i / per_block];
    m = std::max(m, static_cast<double>(v));
  }
  return Metric::latency(name, std::move(h), std::move(maxima));
}

// Per-run values from a normal distribution with the given mean and CoeffVar (percent).
inline Metric throughput_metric(std::mt19937_64& rng, double mean, double cv_pct, int runs,
                                const std::string& name = "ops") {
  std::normal_distribution<double> d(mean, mean * cv_pct / 100);
  Metric m = Metric::throughput(name, "ops/s", 0);
  m.samples.clear();
  for (int i = 0; i < runs; ++i) m.samples.push_back(d(rng));
  return m;
}

inline Environment test_environment() {
  Environment e;
  e.kernel_release = "6.1.0-rt";
  e.preempt_model = "rt";
  e.cmdline = "BOOT_IMAGE=/vmlinuz-6.1.0-rt root=/dev/sda1 isolcpus=1";
  e.cpu_model = "Test CPU @ 3.0GHz";
  e.online_cpus = 2;
  return e;
}

// One suite holding one case holding the given metrics.
inline RunReport report_of(std::vector<Metric> metrics, const std::string& suite = "cyclic",
                           const std::string& case_name = "cpu0") {
  RunReport r;
  r.environment = test_environment();
  SuiteResult s;
  s.name = suite;
  s.runs = 5;
  Case c;
  c.name = case_name;
  c.metrics = std::move(metrics);
  s.cases.push_back(std::move(c));
  r.suites.push_back(std::move(s));
  return r;
}

}  // namespace rtgate::gate::test
