// Synthetic results at the sizes users gate, fast enough for hundreds of seeded trials.
//
// A latency metric's runs are drawn exactly without drawing every sample: a run of N samples
// from a distribution F has its k-th smallest sample at F^-1(U_(k)), and the uniform order
// statistics are Beta distributed, U_(k) ~ Beta(k, N - k + 1), with U_(j) given U_(k) (j > k)
// equal to U_(k) + (1 - U_(k)) Beta(j - k, N - j + 1). So a run's p99, p99.9 and max (the ranks
// LatencyHistogram::quantile reads, quantised as it reports them) cost three Beta draws. The
// merged histogram of a side (what the gate reads the within-run spread from) is F's expected
// bucket counts at the side's mean scale. Everything else (throughput per run, event counts per
// run) is drawn directly.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "results/report.h"

namespace rtgate::gate::sim {

// A mixture of log-normals: a body, interrupted wakeups, long stalls (the shape of cyclic's
// wakeup latency on a VM; tail_scale multiplies the stalls, which hold p99.9).
struct Shape {
  double body_ns = 4000, body_sigma = 0.2;
  double irq_share = 0.01, irq_ns = 10'000, irq_sigma = 0.3;
  double tail_share = 0.002, tail_ns = 25'000, tail_sigma = 0.3;
  double tail_scale = 1;
};

inline double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

inline double shape_cdf(const Shape& s, double x) {
  if (x <= 0) return 0;
  const double lx = std::log(x);
  auto part = [&](double median, double sigma) {
    return normal_cdf((lx - std::log(median)) / sigma);
  };
  const double body = 1 - s.irq_share - s.tail_share;
  return body * part(s.body_ns, s.body_sigma) + s.irq_share * part(s.irq_ns, s.irq_sigma) +
         s.tail_share * part(s.tail_ns * s.tail_scale, s.tail_sigma);
}

// F^-1(u) by bisection on log x (36 halvings of a 1 ns .. 100 s bracket: 1e-9 relative).
inline double shape_quantile(const Shape& s, double u) {
  double lo = std::log(1.0), hi = std::log(1e11);
  for (int i = 0; i < 36; ++i) {
    const double mid = (lo + hi) / 2;
    (shape_cdf(s, std::exp(mid)) < u ? lo : hi) = mid;
  }
  return std::exp((lo + hi) / 2);
}

inline double beta(std::mt19937_64& rng, double a, double b) {
  const double x = std::gamma_distribution<double>(a, 1)(rng);
  const double y = std::gamma_distribution<double>(b, 1)(rng);
  return x / (x + y);
}

// What LatencyHistogram::quantile reports for a sample of value v: its bucket's last value.
inline std::uint64_t as_reported(double v) {
  const auto x = static_cast<std::uint64_t>(std::llround(std::max(1.0, v)));
  const std::size_t i = LatencyHistogram::bucket_index(x);
  return LatencyHistogram::bucket_upper(i) - 1;
}

// One run's summary: p99, p99.9 and max (the other quantiles are not gated by default and are
// filled with p99's value), drawn through the order statistics. `scale` is the run's drift.
inline LatencySummary draw_run(std::mt19937_64& rng, const Shape& s, std::uint64_t n,
                               double scale) {
  const double dn = static_cast<double>(n);
  const double k99 = std::ceil(0.99 * dn), k999 = std::ceil(0.999 * dn);
  const double u99 = beta(rng, k99, dn - k99 + 1);
  const double u999 = u99 + (1 - u99) * beta(rng, k999 - k99, dn - k999 + 1);
  const double umax = u999 + (1 - u999) * beta(rng, dn - k999, 1);
  LatencySummary r;
  r.count = n;
  r.max = static_cast<std::uint64_t>(std::llround(scale * shape_quantile(s, umax)));
  r.p999 = std::min(r.max, as_reported(scale * shape_quantile(s, u999)));
  r.p99 = std::min(r.p999, as_reported(scale * shape_quantile(s, u99)));
  r.p50 = r.p90 = r.p99;
  r.p9999 = r.p999;
  r.min = 1;
  return r;
}

// F's expected bucket counts for n samples at `scale` (buckets expecting under half a sample are
// left out), cached: most trials share their shapes.
inline const std::vector<Bucket>& expected_buckets(const Shape& s, std::uint64_t n, double scale) {
  using Key = std::tuple<double, double, double, double, double, double, double, double, double,
                         double, std::uint64_t, double>;
  thread_local std::map<Key, std::vector<Bucket>> cache;
  // To the percent: the gate reads log spacings from it, which scaling does not change.
  scale = std::exp(std::round(std::log(scale) * 100) / 100);
  const Key key{s.body_ns, s.body_sigma, s.irq_share,  s.irq_ns, s.irq_sigma, s.tail_share,
                s.tail_ns, s.tail_sigma, s.tail_scale, 0.0,      n,           scale};
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  if (cache.size() > 4096) cache.clear();
  std::vector<Bucket> buckets;
  const double dn = static_cast<double>(n);
  double prev = 0;
  for (std::size_t i = LatencyHistogram::bucket_index(64); i < LatencyHistogram::kBuckets; ++i) {
    const std::uint64_t lo = LatencyHistogram::bucket_lower(i),
                        hi = LatencyHistogram::bucket_upper(i);
    const double cdf_hi = shape_cdf(s, static_cast<double>(hi) / scale);
    const auto count = static_cast<std::uint64_t>(std::llround(dn * (cdf_hi - prev)));
    prev = cdf_hi;
    if (count != 0) buckets.push_back({lo, hi, count});
    if (dn * (1 - cdf_hi) < 0.5) break;
  }
  return cache[key] = std::move(buckets);
}

// The merged histogram of `runs` at scale `scale`: F's expected bucket counts, and the runs'
// largest max (whose bucket holds at least one sample).
inline LatencyHistogram expected_histogram(const Shape& s, const std::vector<LatencySummary>& runs,
                                           double scale) {
  std::uint64_t n = 0, max = 0;
  for (const LatencySummary& r : runs) {
    n += r.count;
    max = std::max(max, r.max);
  }
  std::vector<Bucket> buckets;
  std::uint64_t total = 0;
  for (const Bucket& b : expected_buckets(s, n, scale)) {
    if (b.lower_ns > max) break;
    buckets.push_back(b);
    total += b.count;
  }
  LatencyHistogram h;
  const std::size_t mi = LatencyHistogram::bucket_index(max);
  if (buckets.empty() || buckets.back().lower_ns < LatencyHistogram::bucket_lower(mi)) {
    buckets.push_back({LatencyHistogram::bucket_lower(mi), LatencyHistogram::bucket_upper(mi), 1});
    ++total;
  }
  h.restore(buckets, total, 64, max, s.body_ns * scale, s.body_ns * scale * s.body_sigma, 0);
  return h;
}

// Per-run drift: each run's scale is exp(sigma z), z standard normal; `common` of the variance
// shared by every metric of the run (the host's state), the rest the metric's own.
struct Drift {
  double sigma = 0;
  double common = 0.5;
};

// The runs of one suite on one side: the shared part of each run's drift.
inline std::vector<double> run_drift(std::mt19937_64& rng, const Drift& d, int runs) {
  std::normal_distribution<double> z(0, 1);
  std::vector<double> out;
  for (int r = 0; r < runs; ++r) out.push_back(d.sigma * std::sqrt(d.common) * z(rng));
  return out;
}

inline double run_scale(std::mt19937_64& rng, const Drift& d, double shared) {
  std::normal_distribution<double> z(0, 1);
  return std::exp(shared + d.sigma * std::sqrt(1 - d.common) * z(rng));
}

inline Metric latency_metric(std::mt19937_64& rng, const std::string& name, const Shape& s,
                             std::uint64_t n, const Drift& d, const std::vector<double>& shared,
                             double factor = 1) {
  Metric m;
  m.name = name;
  m.kind = MetricKind::kLatency;
  m.unit = "ns";
  m.better = Better::kLower;
  double log_scale = 0;
  for (double sh : shared) {
    const double scale = factor * run_scale(rng, d, sh);
    log_scale += std::log(scale);
    m.runs.push_back(draw_run(rng, s, n, scale));
    m.samples.push_back(static_cast<double>(m.runs.back().max));
  }
  m.histogram =
      expected_histogram(s, m.runs, std::exp(log_scale / static_cast<double>(shared.size())));
  return m;
}

// Re-merges the histogram after runs were edited (a stall added to a run's max).
inline void refresh_max(Metric& m) {
  std::uint64_t max = 0;
  for (const LatencySummary& r : m.runs) max = std::max(max, r.max);
  LatencyHistogram& h = *m.histogram;
  std::vector<Bucket> b = h.buckets();
  const std::size_t mi = LatencyHistogram::bucket_index(max);
  b.push_back({LatencyHistogram::bucket_lower(mi), LatencyHistogram::bucket_upper(mi), 1});
  std::sort(b.begin(), b.end(),
            [](const Bucket& x, const Bucket& y) { return x.lower_ns < y.lower_ns; });
  h.restore(b, h.count() + 1, h.min(), max, h.mean(), h.stddev(), 0);
  m.samples.clear();
  for (const LatencySummary& r : m.runs) m.samples.push_back(static_cast<double>(r.max));
}

inline Metric throughput_metric(std::mt19937_64& rng, const std::string& name, double mean,
                                double cv, const Drift& d, const std::vector<double>& shared) {
  std::normal_distribution<double> noise(0, cv);
  Metric m = Metric::throughput(name, "ops/s", 0);
  m.samples.clear();
  for (double sh : shared) {
    m.samples.push_back(mean * (1 + noise(rng)) / run_scale(rng, d, sh));
  }
  return m;
}

// Poisson events per run, and with probability burst_share a burst of Poisson(burst) more (a VM
// hiccup that swallows several periods at once: counts burstier than Poisson).
inline Metric count_metric(std::mt19937_64& rng, const std::string& name, const std::string& unit,
                           double rate, int runs, double burst_share = 0, double burst = 0) {
  Metric m = Metric::count(name, 0, unit, Metric::gating_of_legacy_unit(unit));
  m.samples.clear();
  std::poisson_distribution<int> p(std::max(rate, 1e-12)), b(std::max(burst, 1e-12));
  std::bernoulli_distribution hit(burst_share);
  for (int r = 0; r < runs; ++r) {
    double v = rate > 0 ? p(rng) : 0;
    if (burst_share > 0 && hit(rng)) v += b(rng);
    m.samples.push_back(v);
  }
  return m;
}

inline Environment environment() {
  Environment e;
  e.kernel_release = "6.1.0-rt";
  e.preempt_model = "rt";
  e.cmdline = "root=/dev/sda1";
  e.cpu_model = "Test CPU";
  e.online_cpus = 2;
  return e;
}

// What one trial changes on the current side.
struct Change {
  std::string suite, case_name, metric;  // "" = nothing changes (A/A)
  double latency_factor = 1;             // scales every sample of the metric's runs (p99 x1.5)
  double tail_scale = 1;                 // scales the stalls (p99.9 doubled)
  double throughput_factor = 1;          // throughput x0.9
  double event_rate = -1;                // >= 0: the event count's rate per run
  double stall_ns = 0;        // > 0: each run's max is at least this (a stall once per run)
  double outlier_factor = 1;  // one run's max multiplied (an outlier run)
  bool matches(const std::string& s, const std::string& c, const std::string& m) const {
    return s == suite && c == case_name && m == metric;
  }
};

// The gates the acceptance names: cyclic on 2 CPUs, and cyclic plus lock.latency over 16 locks
// (66 latency and throughput metrics, 86 with the event counts).
struct Layout {
  int cpus = 2;
  int locks = 0;
  std::uint64_t cyclic_samples = 20'000;  // per run: 100k a side at 5 runs
  Shape cyclic_shape{};                   // the distribution of a cyclic wakeup
  std::uint64_t lock_samples = 5'000;
  double throughput_cv = 0.03;
  double missed_rate = 0.5, overrun_rate = 0.2, skipped_rate = 0.2;
  double burst_share = 0, burst = 0;  // bursts of missed and skipped periods
};

inline Shape acquire_shape() {
  return {.body_ns = 2000,
          .body_sigma = 0.5,
          .irq_share = 0.02,
          .irq_ns = 20'000,
          .irq_sigma = 0.5,
          .tail_share = 0.005,
          .tail_ns = 100'000,
          .tail_sigma = 0.5};
}
inline Shape release_shape() {
  return {.body_ns = 500,
          .body_sigma = 0.3,
          .irq_share = 0.01,
          .irq_ns = 5'000,
          .irq_sigma = 0.4,
          .tail_share = 0.002,
          .tail_ns = 20'000,
          .tail_sigma = 0.4};
}

// Builds one side's suites, with `change` applied where it matches (the draws from `rng` in a
// fixed order, so that a seed gives the same side).
struct SideBuilder {
  std::mt19937_64& rng;
  const Layout& l;
  int runs;
  const Drift& d;
  const Change& change;

  void edit(Metric& m, const std::string& suite, const std::string& c) {
    if (!change.matches(suite, c, m.name)) return;
    if (change.stall_ns > 0) {
      for (LatencySummary& run : m.runs) {
        run.max = std::max<std::uint64_t>(run.max, static_cast<std::uint64_t>(change.stall_ns));
      }
      refresh_max(m);
    }
    if (change.outlier_factor != 1) {
      LatencySummary& run =
          m.runs[std::uniform_int_distribution<std::size_t>(0, m.runs.size() - 1)(rng)];
      run.max = static_cast<std::uint64_t>(static_cast<double>(run.max) * change.outlier_factor);
      refresh_max(m);
    }
  }
  double factor(const std::string& s, const std::string& c, const std::string& m) const {
    return change.matches(s, c, m) ? change.latency_factor : 1.0;
  }
  Shape shape(Shape s, const std::string& su, const std::string& c, const std::string& m) const {
    if (change.matches(su, c, m)) s.tail_scale = change.tail_scale;
    return s;
  }
  double rate(double base, const std::string& s, const std::string& c, const std::string& m) const {
    return change.matches(s, c, m) && change.event_rate >= 0 ? change.event_rate : base;
  }

  SuiteResult cyclic() {
    SuiteResult s;
    s.name = "cyclic";
    s.runs = runs;
    const std::vector<double> shared = run_drift(rng, d, runs);
    for (int cpu = 0; cpu < l.cpus; ++cpu) {
      Case c;
      c.name = "cpu" + std::to_string(cpu);
      Metric w =
          latency_metric(rng, "wakeup_latency", shape({}, "cyclic", c.name, "wakeup_latency"),
                         l.cyclic_samples, d, shared, factor("cyclic", c.name, "wakeup_latency"));
      edit(w, "cyclic", c.name);
      c.metrics.push_back(std::move(w));
      c.metrics.push_back(count_metric(rng, "overruns", "wakeups",
                                       rate(l.overrun_rate, "cyclic", c.name, "overruns"), runs));
      c.metrics.push_back(count_metric(rng, "missed_periods", "periods",
                                       rate(l.missed_rate, "cyclic", c.name, "missed_periods"),
                                       runs, l.burst_share, l.burst));
      s.cases.push_back(std::move(c));
    }
    return s;
  }

  Case lock_case(const std::string& suite, const std::string& n,
                 const std::vector<double>& shared) {
    Case c;
    c.name = n;
    for (const auto& [metric, base_shape] :
         {std::pair{"acquire_latency", acquire_shape()},
          std::pair{"release_latency", release_shape()}, std::pair{"wakeup_latency", Shape{}}}) {
      Metric m = latency_metric(rng, metric, shape(base_shape, suite, n, metric), l.lock_samples, d,
                                shared, factor(suite, n, metric));
      edit(m, suite, n);
      c.metrics.push_back(std::move(m));
    }
    const double tf = change.matches(suite, n, "nonrt_throughput") ? change.throughput_factor : 1;
    c.metrics.push_back(
        throughput_metric(rng, "nonrt_throughput", 1e6 * tf, l.throughput_cv, d, shared));
    Metric fair = Metric::count("nonrt_fairness_cv", 10, "%", Metric::Gating::kReported);
    fair.samples.assign(static_cast<std::size_t>(runs), 10.0);
    c.metrics.push_back(std::move(fair));
    c.metrics.push_back(count_metric(rng, "skipped_periods", "periods",
                                     rate(l.skipped_rate, suite, n, "skipped_periods"), runs,
                                     l.burst_share, l.burst));
    return c;
  }

  SuiteResult lock_latency() {
    SuiteResult s;
    s.name = "lock.latency";
    s.runs = runs;
    const std::vector<double> shared = run_drift(rng, d, runs);
    for (int lock = 0; lock < l.locks; ++lock) {
      s.cases.push_back(lock_case(s.name, "lock" + std::to_string(lock), shared));
    }
    return s;
  }
};

// One side of a gate: `runs` runs of every suite of the layout.
inline RunReport side(std::mt19937_64& rng, const Layout& l, int runs, const Drift& d,
                      const Change& change = {}) {
  RunReport r;
  r.environment = environment();
  SideBuilder b{rng, l, runs, d, change};
  r.suites.push_back(b.cyclic());
  if (l.locks > 0) r.suites.push_back(b.lock_latency());
  return r;
}

}  // namespace rtgate::gate::sim
