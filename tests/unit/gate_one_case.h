// Small in-memory results for the gate's rule tests: one suite "s" with one case "c", and the
// metrics they hold (per-run values, event counts, simulated latency).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gate/pair/compare.h"
#include "gate_sim.h"

namespace rtgate::gate {

// One suite "s" with one case "c" holding `metrics`.
inline RunReport report_of(std::vector<Metric> metrics, const std::string& suite = "s") {
  RunReport r;
  r.environment = sim::environment();
  SuiteResult s;
  s.name = suite;
  Case c;
  c.name = "c";
  c.metrics = std::move(metrics);
  s.cases.push_back(std::move(c));
  r.suites.push_back(std::move(s));
  return r;
}

inline Metric per_run(const std::string& name, MetricKind kind, std::vector<double> values) {
  Metric m = kind == MetricKind::kThroughput
                 ? Metric::throughput(name, "ops/s", 0)
                 : Metric::count(name, 0, "s", Metric::Gating::kReported);
  m.kind = kind;
  m.better = kind == MetricKind::kThroughput ? Better::kHigher : Better::kLower;
  m.samples = std::move(values);
  return m;
}

inline Metric values(double mean, double cv, int runs, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(mean, mean * cv);
  std::vector<double> v;
  for (int i = 0; i < runs; ++i) v.push_back(d(rng));
  return per_run("ops", MetricKind::kThroughput, std::move(v));
}

inline Metric latency(std::uint64_t seed, int runs, const sim::Shape& shape = {}, double factor = 1,
                      std::uint64_t samples = 20'000) {
  std::mt19937_64 rng(seed);
  return sim::latency_metric(rng, "wakeup_latency", shape, samples, {},
                             std::vector<double>(static_cast<std::size_t>(runs), 0.0), factor);
}

inline const MetricVerdict& only(const GateVerdict& g) { return g.suites.at(0).metrics.at(0); }

inline const Evidence* evidence(const MetricVerdict& m, const std::string& statistic) {
  for (const Evidence& e : m.evidence) {
    if (e.statistic == statistic) return &e;
  }
  return nullptr;
}

inline Metric events(const std::string& name, std::vector<double> per_run) {
  Metric m = Metric::count(name, 0, "periods", Metric::Gating::kEventRate);
  m.samples = std::move(per_run);
  return m;
}

}  // namespace rtgate::gate
