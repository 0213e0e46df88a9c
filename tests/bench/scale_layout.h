// Results at lab scale for bench_scale: the selection a 256-CPU board runs, and copies of a real
// result's cases.
#pragma once

#include <random>
#include <string>

#include "tests/unit/gate_sim.h"

namespace rtgate::bench {

// A board's selection per 1,000 cases: cyclic on 256 CPUs; lock.latency over 16 locks at 16
// RT-thread counts (256); the lock.throughput sweep of 12 locks at 20 thread counts up to 2x
// the CPUs (240); mm.pft at 1..248 threads. `cases` scales every part (10,000: ten times each).
// Latency metrics are drawn as gate_sim draws them (a run's p99, p99.9 and max through order
// statistics, the merged histogram at the expected bucket counts), cyclic at 10,000 samples a
// run (10 s at 1 kHz), the lock latencies at 5,000.
inline RunReport board(std::size_t cases, int runs) {
  using namespace gate::sim;
  std::mt19937_64 rng(16);
  const double k = static_cast<double>(cases) / 1000;
  const auto part = [&](double per_1000) { return static_cast<int>(per_1000 * k + 0.5); };
  const Drift drift{.sigma = 0.05};
  RunReport r;
  r.environment = environment();
  r.environment.online_cpus = 256;
  r.environment.hostname = "board256";
  r.complete = true;
  r.started_at = "2026-12-02T00:00:00Z";
  r.finished_at = "2026-12-02T02:00:00Z";
  auto suite = [&](const char* name) {
    SuiteResult s;
    s.name = name;
    s.runs = runs;
    s.duration_s = 10.0 * runs;
    return s;
  };
  {
    SuiteResult s = suite("cyclic");
    const auto shared = run_drift(rng, drift, runs);
    for (int cpu = 0; cpu < part(256); ++cpu) {
      Case c;
      c.name = "cpu" + std::to_string(cpu);
      c.labels["cpu"] = std::to_string(cpu);
      c.metrics.push_back(latency_metric(rng, "wakeup_latency", {}, 10'000, drift, shared));
      c.metrics.push_back(count_metric(rng, "overruns", "wakeups", 0.2, runs));
      c.metrics.push_back(count_metric(rng, "missed_periods", "periods", 0.5, runs));
      s.cases.push_back(std::move(c));
    }
    r.suites.push_back(std::move(s));
  }
  {
    SuiteResult s = suite("lock.latency");
    const auto shared = run_drift(rng, drift, runs);
    for (int i = 0; i < part(256); ++i) {
      Case c;
      const std::string lock = "lock" + std::to_string(i % 16);
      c.name = lock + "/" + std::to_string(1 + i / 16) + "rt";
      c.labels = {{"lock", lock},
                  {"kind", "mutex"},
                  {"pi", "yes"},
                  {"thread_class", "rt"},
                  {"rt_threads", std::to_string(1 + i / 16)}};
      for (const auto& [metric, shape] :
           {std::pair{"acquire_latency", acquire_shape()},
            std::pair{"release_latency", release_shape()}, std::pair{"wakeup_latency", Shape{}}}) {
        c.metrics.push_back(latency_metric(rng, metric, shape, 5'000, drift, shared));
      }
      c.metrics.push_back(throughput_metric(rng, "nonrt_throughput", 1e6, 0.03, drift, shared));
      c.metrics.push_back(count_metric(rng, "nonrt_fairness_cv", "%", 10, runs));
      c.metrics.push_back(count_metric(rng, "skipped_periods", "periods", 0.2, runs));
      c.metrics.push_back(count_metric(rng, "overran_periods", "periods", 0.1, runs));
      s.cases.push_back(std::move(c));
    }
    r.suites.push_back(std::move(s));
  }
  {
    SuiteResult s = suite("lock.throughput");
    const auto shared = run_drift(rng, drift, runs);
    for (int i = 0; i < part(240); ++i) {
      Case c;
      const std::string lock = "lock" + std::to_string(i % 12);
      const int threads = 1 + (i / 12) * 27;  // 20 points from 1 to 514 per 240 cases
      c.name = lock + "/" + std::to_string(threads) + "t";
      c.labels = {{"lock", lock}, {"threads", std::to_string(threads)}};
      c.metrics.push_back(throughput_metric(rng, "throughput", 5e6, 0.05, drift, shared));
      c.metrics.push_back(count_metric(rng, "fairness_cv", "%", 12, runs));
      s.cases.push_back(std::move(c));
    }
    r.suites.push_back(std::move(s));
  }
  {
    SuiteResult s = suite("mm.pft");
    const auto shared = run_drift(rng, drift, runs);
    for (int t = 1; t <= part(248); ++t) {
      Case c;
      c.name = std::to_string(t) + "t";
      c.labels["threads"] = std::to_string(t);
      c.metrics.push_back(throughput_metric(rng, "faults_per_sec", 4e5 * t, 0.04, drift, shared));
      c.metrics.push_back(throughput_metric(rng, "faults_per_cpu", 4e5, 0.04, drift, shared));
      c.metrics.push_back(count_metric(rng, "faults", "faults", 4e6, runs));
      c.metrics.push_back(count_metric(rng, "minor_faults", "faults", 4e6, runs));
      s.cases.push_back(std::move(c));
    }
    r.suites.push_back(std::move(s));
  }
  return r;
}

// `r`'s cases copied round-robin, renamed "<case>#k", until the suites hold `n` in all.
inline RunReport widened(const RunReport& r, std::size_t n) {
  RunReport out = r;
  std::size_t have = 0, total = 0;
  for (const auto& s : r.suites) total += s.cases.size();
  if (total == 0) return out;
  for (auto& s : out.suites) s.cases.clear();
  for (std::size_t k = 0; have < n; ++k) {
    for (std::size_t i = 0; i < r.suites.size() && have < n; ++i) {
      for (const auto& c : r.suites[i].cases) {
        if (have == n) break;
        Case copy = c;
        copy.name += "#" + std::to_string(k);
        out.suites[i].cases.push_back(std::move(copy));
        ++have;
      }
    }
  }
  return out;
}

}  // namespace rtgate::bench
