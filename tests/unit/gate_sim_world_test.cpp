// The synthetic world of gate_sim_world.h does what it says, checked by seeded simulation: the
// calibration that uses it is only as good as these properties.
#include "tests/unit/gate_sim_world.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace rtgate::gate::sim {
namespace {

const Metric& metric(const RunReport& r, const std::string& suite, const std::string& c,
                     const std::string& name) {
  const Case* cs = r.find(suite)->find(c);
  for (const Metric& m : cs->metrics) {
    if (m.name == name) return m;
  }
  ADD_FAILURE() << "no " << suite << "/" << c << "/" << name;
  static const Metric none;
  return none;
}

std::vector<double> log_p99(const Metric& m) {
  std::vector<double> out;
  for (const LatencySummary& r : m.runs) out.push_back(std::log(static_cast<double>(r.p99)));
  return out;
}

std::vector<double> logs(const std::vector<double>& v) {
  std::vector<double> out;
  for (double x : v) out.push_back(std::log(x));
  return out;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double var(const std::vector<double>& v) {
  const double m = mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / static_cast<double>(v.size() - 1);
}

double corr(const std::vector<double>& a, const std::vector<double>& b) {
  const double ma = mean(a), mb = mean(b);
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += (a[i] - ma) * (b[i] - mb);
  return s / static_cast<double>(a.size() - 1) / std::sqrt(var(a) * var(b));
}

// Session means of cyclic/cpu0's log p99, and the pooled within-session variance of a run's.
struct Split {
  double between_sd = 0, within_var = 0;
};

Split split(std::uint64_t seed, const World& w, int sessions, int runs) {
  std::mt19937_64 rng(seed);
  std::vector<double> means;
  double within = 0;
  for (int i = 0; i < sessions; ++i) {
    const std::vector<double> v =
        log_p99(metric(session(rng, {.cpus = 1}, w, runs), "cyclic", "cpu0", "wakeup_latency"));
    means.push_back(mean(v));
    within += var(v) / sessions;
  }
  return {std::sqrt(var(means)), within};
}

TEST(GateSimWorld, SessionOffsetAddsItsVarianceBetweenSessions) {
  // The SD of a session's mean log p99 is sqrt(session^2 + (drift^2 + sampling)/runs), the
  // within-session part read from the same sessions (1600 df: exact to 4%). 400 session means
  // give the SD to 3.5% at one standard error; 15% is four of them. Without the offset the
  // between-session SD is half as large (0.052 against 0.11), so the check discriminates.
  for (const double session_sigma : {0.0, 0.10}) {
    const Split s = split(11, {.session_sigma = session_sigma}, 400, 5);
    const double expected = std::sqrt(session_sigma * session_sigma + s.within_var / 5);
    std::printf("session %.2f: between-session SD %.4f, expected %.4f, within SD %.4f\n",
                session_sigma, s.between_sd, expected, std::sqrt(s.within_var));
    EXPECT_NEAR(s.between_sd / expected, 1, 0.15) << session_sigma;
    // The within-session spread is the drift's 0.10 and p99's sampling (about 0.03 at 20k).
    EXPECT_GT(std::sqrt(s.within_var), 0.09);
    EXPECT_LT(std::sqrt(s.within_var), 0.13);
  }
}

TEST(GateSimWorld, SessionOffsetsShareTheHostAndThroughputHasItsOwnSigma) {
  // No run drift and no throughput noise: log throughput is minus the session offset exactly,
  // so across 400 sessions its SD is the throughput sigma (3.5% SE) and two locks' offsets
  // correlate by session_shared (SE (1 - 0.25) / 20 = 0.04; bound three of them).
  std::mt19937_64 rng(12);
  const Layout l{.cpus = 1, .locks = 2, .throughput_cv = 1e-9};
  const World w{.session_sigma = 0.10,
                .throughput_session_sigma = 0.20,
                .session_shared = 0.5,
                .drift = {.sigma = 0}};
  std::vector<double> tp0, tp1, wake;
  for (int i = 0; i < 400; ++i) {
    const RunReport r = session(rng, l, w, 3);
    tp0.push_back(mean(logs(metric(r, "lock.latency", "lock0", "nonrt_throughput").samples)));
    tp1.push_back(mean(logs(metric(r, "lock.latency", "lock1", "nonrt_throughput").samples)));
    wake.push_back(mean(log_p99(metric(r, "cyclic", "cpu0", "wakeup_latency"))));
  }
  const double sd = std::sqrt(var(tp0)), shared = corr(tp0, tp1), cross = corr(tp0, wake);
  std::printf("throughput SD %.4f, lock0/lock1 corr %.3f, throughput/latency corr %.3f\n", sd,
              shared, cross);
  EXPECT_NEAR(sd, 0.20, 0.02);
  EXPECT_NEAR(shared, 0.5, 0.12);
  // Throughput falls when the host's share raises latency: -0.5 diluted by p99's sampling
  // (0.03 / sqrt(3) against 0.10): about -0.48, SE 0.04.
  EXPECT_LT(cross, -0.3);
}

TEST(GateSimWorld, CountsHaveTheirDispersion) {
  // 8000 counts at rate 4 a run: the variance/mean ratio to about 5% (NB kurtosis included);
  // 20% is four standard errors. Poisson (1) is the control.
  for (const double dispersion : {1.0, 3.0}) {
    std::mt19937_64 rng(13);
    const Layout l{.cpus = 2, .missed_rate = 4, .overrun_rate = 4};
    std::vector<double> counts;
    for (int i = 0; i < 400; ++i) {
      const RunReport r = session(rng, l, {.count_dispersion = dispersion}, 5);
      for (const char* c : {"cpu0", "cpu1"}) {
        for (const char* m : {"overruns", "missed_periods"}) {
          const auto& s = metric(r, "cyclic", c, m).samples;
          counts.insert(counts.end(), s.begin(), s.end());
        }
      }
    }
    const double ratio = var(counts) / mean(counts);
    std::printf("dispersion %.1f: mean %.3f, variance/mean %.3f\n", dispersion, mean(counts),
                ratio);
    EXPECT_NEAR(mean(counts), 4, 0.15);
    EXPECT_NEAR(ratio / dispersion, 1, 0.20);
  }
}

// Per-run log p99 of lock<k>'s acquire_latency and log throughput, over 400 sessions of 5 runs.
struct LockRuns {
  std::vector<std::vector<double>> tp, p99;
};

LockRuns lock_runs(std::uint64_t seed, int locks, const World& w) {
  std::mt19937_64 rng(seed);
  const Layout l{.cpus = 0, .locks = locks, .throughput_cv = 1e-9};
  LockRuns out{std::vector<std::vector<double>>(static_cast<std::size_t>(locks)),
               std::vector<std::vector<double>>(static_cast<std::size_t>(locks))};
  for (int i = 0; i < 400; ++i) {
    const RunReport r = session(rng, l, w, 5);
    for (std::size_t k = 0; k < out.tp.size(); ++k) {
      const std::string c = "lock" + std::to_string(k);
      for (double x : logs(metric(r, "lock.latency", c, "nonrt_throughput").samples)) {
        out.tp[k].push_back(x);
      }
      for (double x : log_p99(metric(r, "lock.latency", c, "acquire_latency"))) {
        out.p99[k].push_back(x);
      }
    }
  }
  return out;
}

TEST(GateSimWorld, NoisyLockIsNoisierByItsFactor) {
  // Session offset and run drift (0.05 each: variance 0.005) both x3 on lock2. Its log
  // throughput has nothing else, so its SD over 2000 runs is 3x its peers' (each SD to about 3%;
  // 10% on the ratio). A latency quantile adds sampling noise that is not scaled: the p99 ratio
  // is sqrt((9 v + s^2) / (v + s^2)) with s^2 measured without drift (another seed; 12%).
  const World w{
      .session_sigma = 0.05, .drift = {.sigma = 0.05}, .noisy_lock = 2, .noisy_factor = 3};
  const LockRuns r = lock_runs(14, 4, w);
  const double quiet_tp = std::sqrt((var(r.tp[0]) + var(r.tp[1]) + var(r.tp[3])) / 3);
  const double quiet_p99 = std::sqrt((var(r.p99[0]) + var(r.p99[1]) + var(r.p99[3])) / 3);
  const double tp_ratio = std::sqrt(var(r.tp[2])) / quiet_tp;
  const double p99_ratio = std::sqrt(var(r.p99[2])) / quiet_p99;
  const double s2 = var(lock_runs(24, 1, {.drift = {.sigma = 0}}).p99[0]);
  const double v = 0.05 * 0.05 * 2;
  const double predicted = std::sqrt((9 * v + s2) / (v + s2));
  std::printf(
      "noisy/quiet SD: throughput %.3f, acquire p99 %.3f (predicted %.3f, sampling SD "
      "%.3f)\n",
      tp_ratio, p99_ratio, predicted, std::sqrt(s2));
  EXPECT_NEAR(tp_ratio, 3, 0.3);
  EXPECT_NEAR(p99_ratio / predicted, 1, 0.12);
}

// SD of a run's log p99 or p99.9 over 2000 runs with no drift: sampling alone.
double sampling_sd(std::uint64_t seed, std::uint64_t n, double rho, bool p999) {
  std::mt19937_64 rng(seed);
  const World w{.drift = {.sigma = 0}, .autocorrelation = rho};
  std::vector<double> v;
  for (int i = 0; i < 400; ++i) {
    const RunReport report = session(rng, {.cpus = 1, .cyclic_samples = n}, w, 5);
    const Metric& m = metric(report, "cyclic", "cpu0", "wakeup_latency");
    for (const LatencySummary& r : m.runs) {
      EXPECT_EQ(r.count, n);
      v.push_back(std::log(static_cast<double>(p999 ? r.p999 : r.p99)));
    }
  }
  return std::sqrt(var(v));
}

TEST(GateSimWorld, AutocorrelationShrinksTheEffectiveSampleCount) {
  // rho 0.5 at 9000 samples is 3000 independent ones: the spread of p99 and p99.9 is that of
  // 3000 samples (seeds differ: each SD to about 3% over 2000 runs; 12% bound), and wider than
  // 9000 independent samples give (sqrt(3) for a quantile of a smooth density; bound 1.3).
  for (const bool p999 : {false, true}) {
    const double correlated = sampling_sd(15, 9000, 0.5, p999);
    const double as_3000 = sampling_sd(25, 3000, 0, p999);
    const double as_9000 = sampling_sd(35, 9000, 0, p999);
    std::printf("%s SD: rho 0.5 at 9000 %.4f, 3000 independent %.4f, 9000 independent %.4f\n",
                p999 ? "p99.9" : "p99", correlated, as_3000, as_9000);
    EXPECT_NEAR(correlated / as_3000, 1, 0.12);
    EXPECT_GT(correlated / as_9000, 1.3);
  }
}

TEST(GateSimWorld, SlowModeMakesRunsBimodalAcrossTheSuite) {
  // 20% of runs at half throughput, the drift small enough (0.01) not to blur the modes: the
  // slow share over 2000 runs is 0.2 to 0.009 (bound four SEs), and a slow run is slow for every
  // lock of it.
  std::mt19937_64 rng(16);
  const Layout l{.cpus = 0, .locks = 2, .throughput_cv = 1e-9};
  const World w{.drift = {.sigma = 0.01}, .slow_share = 0.2, .slow_factor = 2};
  int slow = 0, runs = 0, disagree = 0;
  for (int i = 0; i < 400; ++i) {
    const RunReport r = session(rng, l, w, 5);
    const auto& a = metric(r, "lock.latency", "lock0", "nonrt_throughput").samples;
    const auto& b = metric(r, "lock.latency", "lock1", "nonrt_throughput").samples;
    for (std::size_t k = 0; k < a.size(); ++k) {
      const bool sa = a[k] < 1e6 / std::sqrt(2.0), sb = b[k] < 1e6 / std::sqrt(2.0);
      slow += sa;
      disagree += sa != sb;
      ++runs;
    }
  }
  std::printf("slow share %.3f\n", static_cast<double>(slow) / runs);
  EXPECT_NEAR(static_cast<double>(slow) / runs, 0.2, 0.036);
  EXPECT_EQ(disagree, 0);
}

TEST(GateSimWorld, StudentDriftKeepsItsSdAndHasHeavierTails) {
  // Drift 0.1 all in the run's shared part, t with 5 df scaled to unit variance: over 4000 runs
  // the SD is 0.1 (t5's kurtosis 9: SE about 2.2%; bound 10%), and |z| > 3 is 1.2% of runs
  // against the normal's 0.27% (about 47 against 11 of 4000: split at 26, Poisson-safe).
  for (const double df : {0.0, 5.0}) {
    std::mt19937_64 rng(17);
    const Layout l{.cpus = 0, .locks = 1, .throughput_cv = 1e-9};
    const World w{.drift = {.sigma = 0.1, .common = 1}, .drift_t_df = df};
    std::vector<double> v;
    for (int i = 0; i < 800; ++i) {
      for (double x :
           logs(metric(session(rng, l, w, 5), "lock.latency", "lock0", "nonrt_throughput")
                    .samples)) {
        v.push_back(x - std::log(1e6));
      }
    }
    const double sd = std::sqrt(var(v));
    const auto beyond = std::count_if(v.begin(), v.end(), [](double x) { return x * x > 0.09; });
    std::printf("df %.0f: SD %.4f, beyond 3 SD %ld of %zu\n", df, sd, static_cast<long>(beyond),
                v.size());
    EXPECT_NEAR(sd, 0.1, 0.01);
    if (df > 0) {
      EXPECT_GT(beyond, 26);
    } else {
      EXPECT_LT(beyond, 26);
    }
  }
}

TEST(GateSimWorld, ChangesEditOnlyWhatTheyName) {
  // The same seed with and without a change: the draws before the edit are the same, so the
  // edit is the only difference.
  const Layout l{.cpus = 2, .locks = 3};
  const World w{.session_sigma = 0.1};
  std::mt19937_64 a(18), b(18);
  const RunReport base = session(a, l, w, 5);
  WorldChange zero;
  zero.suite = "lock.latency";
  zero.case_name = "lock1";
  zero.metric = "nonrt_throughput";
  zero.zero_run = true;
  const RunReport zeroed = session(b, l, w, 5, zero);
  const auto& before = metric(base, "lock.latency", "lock1", "nonrt_throughput").samples;
  const auto& after = metric(zeroed, "lock.latency", "lock1", "nonrt_throughput").samples;
  ASSERT_EQ(after.size(), 5u);
  int zeros = 0;
  for (std::size_t k = 0; k < after.size(); ++k) {
    if (after[k] == 0) {
      ++zeros;
    } else {
      EXPECT_EQ(after[k], before[k]);
    }
  }
  EXPECT_EQ(zeros, 1);
  for (const char* c : {"lock0", "lock2"}) {
    for (double x : metric(zeroed, "lock.latency", c, "nonrt_throughput").samples) {
      EXPECT_GT(x, 0) << c;
    }
  }

  // An outlier run: one run's max x10, the rest and the quantiles as drawn.
  std::mt19937_64 c(19), d(19);
  const RunReport plain = session(c, l, w, 5);
  const Metric& m0 = metric(plain, "cyclic", "cpu0", "wakeup_latency");
  const RunReport outlier = session(d, l, w, 5,
                                    Change{.suite = "cyclic",
                                           .case_name = "cpu0",
                                           .metric = "wakeup_latency",
                                           .outlier_factor = 10});
  const Metric& m1 = metric(outlier, "cyclic", "cpu0", "wakeup_latency");
  int edited = 0;
  for (std::size_t k = 0; k < m1.runs.size(); ++k) {
    EXPECT_EQ(m1.runs[k].p999, m0.runs[k].p999);
    if (m1.runs[k].max != m0.runs[k].max) {
      ++edited;
      EXPECT_NEAR(static_cast<double>(m1.runs[k].max) / static_cast<double>(m0.runs[k].max), 10,
                  1e-3);
    }
  }
  EXPECT_EQ(edited, 1);
  EXPECT_EQ(m1.histogram->max(), *std::max_element(m1.samples.begin(), m1.samples.end()));
}

TEST(GateSimWorld, LatencyFactorScalesEveryRun) {
  // The kernel effect adds to the log scale before the draws: each run's p99 is x1.5 up to the
  // histogram's bucket width (1/64).
  const Layout l{.cpus = 1};
  std::mt19937_64 a(20), b(20);
  const RunReport base = session(a, l, {.session_sigma = 0.1}, 5);
  const RunReport slower = session(b, l, {.session_sigma = 0.1}, 5,
                                   Change{.suite = "cyclic",
                                          .case_name = "cpu0",
                                          .metric = "wakeup_latency",
                                          .latency_factor = 1.5});
  const Metric& m0 = metric(base, "cyclic", "cpu0", "wakeup_latency");
  const Metric& m1 = metric(slower, "cyclic", "cpu0", "wakeup_latency");
  for (std::size_t k = 0; k < m0.runs.size(); ++k) {
    EXPECT_NEAR(static_cast<double>(m1.runs[k].p99) / static_cast<double>(m0.runs[k].p99), 1.5,
                1.5 / 32);
  }
}

TEST(GateSimWorld, SmallRunsReportTheirSamplesAndTheMaxAsP999) {
  // 300 samples a run: p99.9's rank is the 300th, which LatencyHistogram::quantile reports as the
  // max; with rho 0.5 the order statistics come from 100 independent samples.
  std::mt19937_64 rng(21);
  const Layout l{.cpus = 2, .locks = 2, .cyclic_samples = 300, .lock_samples = 300};
  for (const double rho : {0.0, 0.5}) {
    const RunReport r = session(rng, l, {.session_sigma = 0.1, .autocorrelation = rho}, 5);
    for (const SuiteResult& s : r.suites) {
      for (const Case& c : s.cases) {
        for (const Metric& m : c.metrics) {
          if (m.kind != MetricKind::kLatency) continue;
          ASSERT_EQ(m.runs.size(), 5u);
          for (const LatencySummary& run : m.runs) {
            EXPECT_EQ(run.count, 300u);
            EXPECT_LE(run.p99, run.p999);
            EXPECT_EQ(run.p999, run.max);
            EXPECT_GT(run.p99, 0u);
          }
          ASSERT_TRUE(m.histogram.has_value());
          EXPECT_EQ(m.histogram->max(), *std::max_element(m.samples.begin(), m.samples.end()));
        }
      }
    }
  }
}

TEST(GateSimWorld, HistoryIsSessionsInTimeOrder) {
  std::mt19937_64 rng(22);
  const auto h = history(rng, {.cpus = 2, .locks = 1}, {.session_sigma = 0.1}, 6, 3);
  ASSERT_EQ(h.size(), 6u);
  EXPECT_EQ(h[0].started_at, "2025-01-01T00:00:00Z");
  for (std::size_t i = 0; i < h.size(); ++i) {
    EXPECT_EQ(h[i].environment.hostname, "sim");
    EXPECT_EQ(h[i].started_at.size(), 20u);
    EXPECT_LT(h[i].started_at, h[i].finished_at);
    ASSERT_EQ(h[i].suites.size(), 2u);
    EXPECT_EQ(h[i].suites[0].runs, 3);
    EXPECT_EQ(metric(h[i], "lock.latency", "lock0", "acquire_latency").runs.size(), 3u);
    if (i > 0) {
      EXPECT_LT(h[i - 1].started_at, h[i].started_at);
    }
  }
  // Each session draws its own offsets: no two sessions' first runs alike.
  EXPECT_NE(metric(h[0], "cyclic", "cpu0", "wakeup_latency").runs[0].max,
            metric(h[1], "cyclic", "cpu0", "wakeup_latency").runs[0].max);
}

}  // namespace
}  // namespace rtgate::gate::sim
