// Synthetic results with what real results have, not only what the gate assumes: the gate's
// calibration has to hold on data that breaks its model, so this draws it.
//
// Per metric, a run's value on log scale is kernel effect + session offset + run noise. A session
// is one boot and process: every run of one RunReport shares its offsets (memory layout, IRQ
// placement, the host's load), which is why runs of one session are not independent replicates
// of a kernel. On top of gate_sim.h's model, the run noise here can be heavy-tailed or bimodal,
// latency samples can be autocorrelated (fewer independent samples than reported), event counts
// overdispersed, and one member of a group noisier than its peers.
#pragma once

#include <cmath>
#include <cstdint>
#include <ctime>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "tests/unit/gate_sim.h"

namespace rtgate::gate::sim {

// A boot's offsets: every process of one boot shares them (memory layout, IRQ placement), on top
// of its own session offsets. Drawn lazily per metric from the boot's own generator, so that a
// world without boots draws exactly what it drew before.
struct Boot {
  double sigma = 0;
  std::mt19937_64 rng;
  std::map<std::string, double> shifts;
  double shift(const std::string& suite, const std::string& c, const std::string& metric) {
    if (sigma == 0) return 0;
    const auto [it, added] = shifts.emplace(suite + "/" + c + "/" + metric, 0.0);
    if (added) it->second = sigma * std::normal_distribution<double>(0, 1)(rng);
    return it->second;
  }
};

struct World {
  // Session offsets: each session draws, per metric, a log offset ~ N(0, sigma^2), `shared` of the
  // variance common to every metric of the session (the host), the rest the metric's own.
  double session_sigma = 0;              // latency quantiles and max, event rates (log SD)
  double throughput_session_sigma = -1;  // < 0: same as session_sigma
  double session_shared = 0.5;
  // Per-run drift inside a session (as gate_sim.h's Drift: `common` shared by a run's metrics).
  Drift drift{.sigma = 0.10};
  // Heavy tails and bimodality of runs: with probability slow_share a run of a suite is in a slow
  // mode (every metric's scale multiplied by slow_factor); the drift's z is Student t with
  // drift_t_df degrees of freedom (0 = normal; else > 2) scaled to unit variance.
  double slow_share = 0, slow_factor = 1;
  double drift_t_df = 0;
  // Within-run autocorrelation of samples: a lag-1 correlation rho shrinks the effective sample
  // count of a run's order statistics to n (1 - rho) / (1 + rho); the run still reports n samples.
  double autocorrelation = 0;
  // Event counts: negative binomial per run (gamma-Poisson with variance/mean = count_dispersion
  // at every rate; 1 = Poisson), the rate scaled by the session's offset.
  double count_dispersion = 1;
  // One group member noisier than the rest: lock `noisy_lock` (-1 none) has its run drift and
  // session offsets multiplied by noisy_factor.
  int noisy_lock = -1;
  double noisy_factor = 1;
  // The boot this session's process ran in (nullptr: none, the session is its own boot).
  Boot* boot = nullptr;
  double boot_shift(const std::string& suite, const std::string& c, const std::string& m) const {
    return boot == nullptr ? 0 : boot->shift(suite, c, m);
  }
};

// sim::Change, and what only real data shows: one run of the matched nonrt_throughput at 0 ops/s
// (a run whose non-RT load never got the CPU). outlier_factor (one run's max) is Change's own.
struct WorldChange : Change {
  bool zero_run = false;
};

// A standard normal, or a Student t with df degrees of freedom scaled to unit variance.
inline double unit_z(std::mt19937_64& rng, double df) {
  const double z = std::normal_distribution<double>(0, 1)(rng);
  if (df <= 0) return z;
  const double chi2 = std::chi_squared_distribution<double>(df)(rng);
  return z / std::sqrt(chi2 / df) * std::sqrt((df - 2) / df);
}

// One session's offsets: the host's z, drawn once, and a metric's own part per call.
struct SessionOffsets {
  double host_z = 0, shared = 0.5;
  double draw(std::mt19937_64& rng, double sigma) const {
    const double own = std::normal_distribution<double>(0, 1)(rng);
    return sigma * (std::sqrt(shared) * host_z + std::sqrt(1 - shared) * own);
  }
};

// The runs of one suite in one session: each run's shared drift and slow-mode log factor.
struct SuiteRuns {
  std::vector<double> shared, slow;
};

inline SuiteRuns suite_runs(std::mt19937_64& rng, const World& w, int runs) {
  SuiteRuns out;
  std::bernoulli_distribution slow(w.slow_share);
  for (int r = 0; r < runs; ++r) {
    out.shared.push_back(w.drift.sigma * std::sqrt(w.drift.common) * unit_z(rng, w.drift_t_df));
    out.slow.push_back(w.slow_share > 0 && slow(rng) ? std::log(w.slow_factor) : 0.0);
  }
  return out;
}

// A metric's log scale per run: session offset plus run drift (both times `noise`, the noisy
// member's factor) plus the run's slow mode.
inline std::vector<double> log_scales(std::mt19937_64& rng, const World& w, const SuiteRuns& s,
                                      double offset, double noise) {
  std::vector<double> out;
  for (std::size_t r = 0; r < s.shared.size(); ++r) {
    const double own = w.drift.sigma * std::sqrt(1 - w.drift.common) * unit_z(rng, w.drift_t_df);
    out.push_back(noise * (offset + s.shared[r] + own) + s.slow[r]);
  }
  return out;
}

// draw_run for any n: below 1000 samples (or effective samples) p99.9 is the k-th of n with k = n,
// which draw_run's Beta(n - k, 1) cannot express. `n` is what the run reports, `n_eff` the
// independent samples its order statistics are drawn from; a quantile whose rank in n is the last
// is the max, as LatencyHistogram::quantile reports it.
inline LatencySummary draw_run_eff(std::mt19937_64& rng, const Shape& s, std::uint64_t n,
                                   std::uint64_t n_eff, double scale) {
  n_eff = std::clamp<std::uint64_t>(n_eff, 2, n);
  if (n_eff >= 1000) {
    LatencySummary r = draw_run(rng, s, n_eff, scale);
    r.count = n;
    return r;
  }
  const double ne = static_cast<double>(n_eff);
  const double k99 = std::ceil(0.99 * ne), k999 = std::max(k99, std::ceil(0.999 * ne));
  const double u99 = beta(rng, k99, ne - k99 + 1);
  const double u999 = k999 > k99 ? u99 + (1 - u99) * beta(rng, k999 - k99, ne - k999 + 1) : u99;
  const double umax = ne > k999 ? u999 + (1 - u999) * beta(rng, ne - k999, 1) : u999;
  const double dn = static_cast<double>(n);
  LatencySummary r;
  r.count = n;
  r.max = static_cast<std::uint64_t>(std::llround(scale * shape_quantile(s, umax)));
  r.p999 = std::ceil(0.999 * dn) >= dn
               ? r.max
               : std::min(r.max, as_reported(scale * shape_quantile(s, u999)));
  r.p99 = std::ceil(0.99 * dn) >= dn
              ? r.max
              : std::min(r.p999, as_reported(scale * shape_quantile(s, u99)));
  r.p50 = r.p90 = r.p99;
  r.p9999 = r.p999;
  r.min = 1;
  return r;
}

inline Metric world_latency_metric(std::mt19937_64& rng, const std::string& name, const Shape& s,
                                   std::uint64_t n, double rho, const std::vector<double>& logs) {
  Metric m;
  m.name = name;
  m.kind = MetricKind::kLatency;
  m.unit = "ns";
  m.better = Better::kLower;
  const auto n_eff =
      static_cast<std::uint64_t>(std::llround(static_cast<double>(n) * (1 - rho) / (1 + rho)));
  double mean_log = 0;
  for (double l : logs) {
    mean_log += l / static_cast<double>(logs.size());
    m.runs.push_back(draw_run_eff(rng, s, n, n_eff, std::exp(l)));
    m.samples.push_back(static_cast<double>(m.runs.back().max));
  }
  m.histogram = expected_histogram(s, m.runs, std::exp(mean_log));
  return m;
}

// Gamma-Poisson counts with variance/mean `dispersion` (a hiccup swallows a cluster of periods,
// not one), plus the layout's bursts as gate_sim.h draws them.
inline Metric world_count_metric(std::mt19937_64& rng, const std::string& name,
                                 const std::string& unit, double rate, double dispersion,
                                 const Layout& l, int runs) {
  Metric m = Metric::count(name, 0, unit, Metric::gating_of_legacy_unit(unit));
  m.samples.clear();
  std::bernoulli_distribution hit(l.burst_share);
  std::poisson_distribution<int> burst(std::max(l.burst, 1e-12));
  for (int r = 0; r < runs; ++r) {
    double lambda = rate;
    if (dispersion > 1 && rate > 0) {
      lambda = std::gamma_distribution<double>(rate / (dispersion - 1), dispersion - 1)(rng);
    }
    double v = lambda > 0 ? std::poisson_distribution<int>(lambda)(rng) : 0;
    if (l.burst_share > 0 && hit(rng)) v += burst(rng);
    m.samples.push_back(v);
  }
  return m;
}

// One latency metric of a session: its runs drawn around the session's and boot's offsets, with
// what `change` does to it when it is the metric changed.
struct MetricName {
  std::string suite, c, name;
};
inline Metric changed_latency(std::mt19937_64& rng, const World& w, const SessionOffsets& off,
                              const WorldChange& change, const MetricName& id, Shape shape,
                              std::uint64_t n, const SuiteRuns& sr, double noise) {
  const std::string& suite = id.suite;
  const std::string& c = id.c;
  const std::string& name = id.name;
  const bool hit = change.matches(suite, c, name);
  if (hit) shape.tail_scale = change.tail_scale;
  std::vector<double> logs =
      log_scales(rng, w, sr, off.draw(rng, w.session_sigma) + w.boot_shift(suite, c, name), noise);
  if (hit) {
    for (double& x : logs) x += std::log(change.latency_factor);
  }
  Metric m = world_latency_metric(rng, name, shape, n, w.autocorrelation, logs);
  if (hit && change.stall_ns > 0) {
    for (LatencySummary& run : m.runs) {
      run.max = std::max<std::uint64_t>(run.max, static_cast<std::uint64_t>(change.stall_ns));
    }
    refresh_max(m);
  }
  if (hit && change.outlier_factor != 1) {
    LatencySummary& run =
        m.runs[std::uniform_int_distribution<std::size_t>(0, m.runs.size() - 1)(rng)];
    run.max = static_cast<std::uint64_t>(static_cast<double>(run.max) * change.outlier_factor);
    refresh_max(m);
  }
  return m;
}

// One session's whole result: the suites, cases and metrics sim::side makes, `runs` runs each.
inline RunReport session(std::mt19937_64& rng, const Layout& l, const World& w, int runs,
                         const WorldChange& change = {}) {
  RunReport r;
  r.environment = environment();
  r.environment.hostname = "sim";
  const SessionOffsets off{.host_z = std::normal_distribution<double>(0, 1)(rng),
                           .shared = w.session_shared};
  const double tp_sigma =
      w.throughput_session_sigma < 0 ? w.session_sigma : w.throughput_session_sigma;
  auto latency = [&](const std::string& suite, const std::string& c, const std::string& name,
                     const Shape& shape, std::uint64_t n, const SuiteRuns& sr, double noise) {
    return changed_latency(rng, w, off, change, {suite, c, name}, shape, n, sr, noise);
  };
  auto count = [&](const std::string& suite, const std::string& c, const std::string& name,
                   const std::string& unit, double base, double noise) {
    const double rate =
        change.matches(suite, c, name) && change.event_rate >= 0 ? change.event_rate : base;
    const double scaled =
        rate * std::exp(noise * (off.draw(rng, w.session_sigma) + w.boot_shift(suite, c, name)));
    return world_count_metric(rng, name, unit, scaled, w.count_dispersion, l, runs);
  };
  {
    SuiteResult s;
    s.name = "cyclic";
    s.runs = runs;
    const SuiteRuns sr = suite_runs(rng, w, runs);
    for (int cpu = 0; cpu < l.cpus; ++cpu) {
      Case c;
      c.name = "cpu" + std::to_string(cpu);
      c.metrics.push_back(
          latency(s.name, c.name, "wakeup_latency", l.cyclic_shape, l.cyclic_samples, sr, 1));
      c.metrics.push_back(count(s.name, c.name, "overruns", "wakeups", l.overrun_rate, 1));
      c.metrics.push_back(count(s.name, c.name, "missed_periods", "periods", l.missed_rate, 1));
      s.cases.push_back(std::move(c));
    }
    r.suites.push_back(std::move(s));
  }
  if (l.locks > 0) {
    SuiteResult s;
    s.name = "lock.latency";
    s.runs = runs;
    const SuiteRuns sr = suite_runs(rng, w, runs);
    for (int lock = 0; lock < l.locks; ++lock) {
      Case c;
      c.name = "lock" + std::to_string(lock);
      const double noise = lock == w.noisy_lock ? w.noisy_factor : 1.0;
      for (const auto& [metric, shape] :
           {std::pair{"acquire_latency", acquire_shape()},
            std::pair{"release_latency", release_shape()}, std::pair{"wakeup_latency", Shape{}}}) {
        c.metrics.push_back(latency(s.name, c.name, metric, shape, l.lock_samples, sr, noise));
      }
      // Throughput falls as latency rises: the same host share, divided rather than multiplied.
      const bool tp_hit = change.matches(s.name, c.name, "nonrt_throughput");
      Metric tp = throughput_metric(
          rng, "nonrt_throughput", 1e6 * (tp_hit ? change.throughput_factor : 1), l.throughput_cv,
          Drift{},
          log_scales(rng, w, sr,
                     off.draw(rng, tp_sigma) + w.boot_shift(s.name, c.name, "nonrt_throughput"),
                     noise));
      if (tp_hit && change.zero_run) {
        tp.samples[std::uniform_int_distribution<std::size_t>(0, tp.samples.size() - 1)(rng)] = 0;
      }
      c.metrics.push_back(std::move(tp));
      Metric fair = Metric::count("nonrt_fairness_cv", 10, "%", Metric::Gating::kReported);
      fair.samples.assign(static_cast<std::size_t>(runs), 10.0);
      c.metrics.push_back(std::move(fair));
      c.metrics.push_back(
          count(s.name, c.name, "skipped_periods", "periods", l.skipped_rate, noise));
      s.cases.push_back(std::move(c));
    }
    r.suites.push_back(std::move(s));
  }
  return r;
}

inline RunReport session(std::mt19937_64& rng, const Layout& l, const World& w, int runs,
                         const Change& change) {
  return session(rng, l, w, runs, WorldChange{change});
}

// RFC 3339 (UTC) for `seconds` after 2025-01-01T00:00:00Z.
inline std::string sim_time(std::int64_t seconds) {
  const std::time_t t = 1735689600 + static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// `sessions` sessions of one kernel in time order, an hour apart, each with its own offsets, so a
// history reader can order them. Which boot a session was is left to the caller.
inline std::vector<RunReport> history(std::mt19937_64& rng, const Layout& l, const World& w,
                                      int sessions, int runs) {
  std::vector<RunReport> out;
  for (int i = 0; i < sessions; ++i) {
    RunReport r = session(rng, l, w, runs);
    r.started_at = sim_time(std::int64_t{3600} * i);
    r.finished_at = sim_time(std::int64_t{3600} * i + 600);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace rtgate::gate::sim
