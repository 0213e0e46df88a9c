#include "gate/calibration/calibration.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cctype>
#include <cstdio>
#include <limits>
#include <sstream>

#include "gate/noise/change_estimate.h"
#include "gate/noise/count_estimate.h"
#include "gate/noise/run_values.h"

namespace rtgate::gate {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Rounding up a value computed in floating point: 12.0000000001 stays 12.
double ceil_to(double v, double step) { return std::ceil(v / step - 1e-9) * step; }

// The t reference of a difference of two means of n runs each with a known-form variance.
double runs_df(int n) { return 2.0 * n - 2; }

// A one-sided test at level a detects, with power 0.9, a shift of (t(a) + t(0.1)) standard
// errors; the SE of a difference of two n-run means is sd * sqrt(2 / n).
double detectable_ratio(double sd, double a, int n) {
  const double df = runs_df(n);
  return std::exp((t_critical(a, df) + t_critical(0.10, df)) * sd * std::sqrt(2.0 / n));
}

// With no change, both ends of the (1 - 2 alpha) interval lie inside +-floor when the estimate is
// within floor - t(alpha) SE of 0 on both sides; that has probability p when this margin is
// t((1 - p) / 2) SE.
double supported_floor_pct(double sd, double alpha, int n, double p) {
  const double df = runs_df(n);
  const double r =
      std::exp((t_critical(alpha, df) + t_critical((1 - p) / 2, df)) * sd * std::sqrt(2.0 / n));
  return ceil_to(100 * (r - 1), 1);
}

// The probability that a statistic of per-run SD `sd` is judged unchanged at `floor_pct` with n
// runs a side when nothing changed: the inverse of supported_floor_pct.
double unchanged_probability(double sd, double alpha, int n, double floor_pct) {
  const double df = runs_df(n);
  const double se = sd * std::sqrt(2.0 / n);
  const double margin = std::log1p(floor_pct / 100) - t_critical(alpha, df) * se;
  if (!(margin > 0)) return 0;
  if (!(se > 0)) return 1;
  boost::math::students_t t(df);
  return 1 - 2 * boost::math::cdf(t, -margin / se);
}

// The SE of a difference of two n-run rates (quasi-Poisson, at least one event per 2n runs so
// that a host that never misses a period still has a finite figure).
double rate_se(double rate, double phi, int n) {
  return std::sqrt(phi * std::max(rate, 1.0 / (2.0 * n)) * 2.0 / n);
}

double z(double upper_tail) { return t_critical(upper_tail, kInf); }

bool sample_var(const std::vector<double>& xs, double& var) {
  if (xs.size() < 2) return false;
  double mean = 0;
  for (double x : xs) mean += x;
  mean /= static_cast<double>(xs.size());
  double ss = 0;
  for (double x : xs) ss += (x - mean) * (x - mean);
  var = ss / static_cast<double>(xs.size() - 1);
  return true;
}

// The gate's own interval of a rate difference (count_estimate.h: each side's exact Poisson bound
// of its phi-scaled events) when nothing changed and the two sides' totals fall at the lower and
// upper quantile q of their spread: its larger end is the floor an A/A gate needs with
// probability about 1 - 2 (1 - q).
double count_floor(double rate, double phi, int n, double alpha, double q) {
  const double events = std::max(rate, 1.0 / (2.0 * n)) * n / phi;  // scaled events a side
  const double spread = z(1 - q) * std::sqrt(events);
  CountEstimate e;
  e.n_base = e.n_cur = static_cast<std::size_t>(n);
  e.phi = phi;
  e.rate_base = std::max(0.0, events - spread) * phi / n;
  e.rate_cur = (events + spread) * phi / n;
  e.effect = e.rate_cur - e.rate_base;
  return std::max(e.upper(alpha), -e.lower(alpha));
}

void measure_counts(const Metric& m, const CalibrationOptions& o, MetricNoise& out) {
  std::vector<double> counts;
  for (double v : m.samples) {
    if (std::isfinite(v)) counts.push_back(std::max(0.0, v));
  }
  if (counts.size() < 2) return;
  const double n = static_cast<double>(counts.size());
  double sum = 0;
  for (double c : counts) sum += c;
  out.rate_per_run = sum / n;
  double chi2 = 0;
  if (out.rate_per_run > 0) {
    for (double c : counts) chi2 += (c - out.rate_per_run) * (c - out.rate_per_run);
    chi2 /= out.rate_per_run;
  }
  out.phi = std::max(1.0, chi2 / (n - 1));
  // The gate tests a count as the metric's one statistic.
  const double a = o.alpha / o.family;
  StatisticNoise s{.statistic = "rate", .df = n - 1};
  for (std::size_t i = 0; i < kDetectRuns.size(); ++i) {
    s.detectable[i] = (z(a) + z(0.10)) * rate_se(out.rate_per_run, out.phi, kDetectRuns[i]);
  }
  s.supported_floor_pct =
      ceil_to(count_floor(out.rate_per_run, out.phi, o.plan_runs, o.alpha, o.unchanged_each), 0.1);
  out.stats.push_back(s);
}

void measure_log_statistics(const Metric& m, const MetricPolicy& mp, const CalibrationOptions& o,
                            MetricNoise& out) {
  const std::vector<std::string> names = run_statistics(m, mp);
  const double a = o.alpha / o.family / static_cast<double>(std::max<std::size_t>(1, names.size()));
  for (const std::string& name : names) {
    const SideValues v = side_values(m, name);
    double var = 0;
    if (!sample_var(v.values, var)) continue;
    // The within-run floor is 0 for per-run values and the quantisation for the max, so taking
    // it for every statistic only keeps the SD positive where the gate's variance would be.
    StatisticNoise s{.statistic = name,
                     .sd = std::sqrt(std::max(var, v.within_var)),
                     .df = static_cast<double>(v.values.size() - 1)};
    for (std::size_t i = 0; i < kDetectRuns.size(); ++i) {
      s.detectable[i] = detectable_ratio(s.sd, a, kDetectRuns[i]);
    }
    s.supported_floor_pct = supported_floor_pct(s.sd, o.alpha, o.plan_runs, o.unchanged_each);
    out.stats.push_back(s);
  }
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// A plain YAML key when it is one, else a double-quoted one (case names are free-form).
std::string yaml_key(const std::string& k) {
  const bool plain = !k.empty() && std::isalnum(static_cast<unsigned char>(k.front())) &&
                     std::all_of(k.begin(), k.end(), [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
                              c == '/' || c == '-';
                     });
  if (plain) return k;
  std::string out = "\"";
  for (char c : k) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// The floors one metric's entry sets: the largest supported floor of the statistics each floor
// covers, never below the default.
void write_floors(std::ostringstream& y, const MetricNoise& m, const Policy& d) {
  double quantile = -1, max = -1, value = -1;
  for (const StatisticNoise& s : m.stats) {
    double& slot = s.statistic == "max" ? max : s.statistic == "value" ? value : quantile;
    slot = std::max(slot, s.supported_floor_pct);
  }
  if (m.event_count) {
    if (!m.stats.empty()) {
      y << "    count_floor_per_run: "
        << num(std::max(d.count_floor_per_run, m.stats.front().supported_floor_pct)) << "\n";
    }
    return;
  }
  if (quantile >= 0) {
    y << "    latency_noise_floor_pct: " << num(std::max(d.latency_noise_floor_pct, quantile))
      << "\n";
  }
  if (max >= 0) {
    y << "    max_noise_floor_pct: " << num(std::max(d.max_noise_floor_pct, max)) << "\n";
  }
  if (value >= 0) {
    y << "    noise_floor_pct: " << num(std::max(d.noise_floor_pct, value)) << "\n";
  }
}

}  // namespace

std::vector<MetricNoise> measure_noise(const RunReport& report, const Policy& policy,
                                       CalibrationOptions o) {
  // Exit 0 needs every statistic unchanged at once: each gets 0.9^(1/S) so the whole A/A gate
  // is unchanged about 9 times in 10 (the statistics are close to independent across metrics).
  if (o.unchanged_each <= 0) {
    int statistics = 0;
    for (const MetricNoise& m :
         measure_noise(report, policy, {o.alpha, o.family, o.plan_runs, 0.9})) {
      statistics += static_cast<int>(m.stats.size());
    }
    o.unchanged_each = std::pow(o.unchanged_whole, 1.0 / std::max(1, statistics));
  }
  std::vector<MetricNoise> out;
  for (const SuiteResult& s : report.suites) {
    if (s.status != SuiteStatus::kPassed) continue;
    for (const Case& c : s.cases) {
      for (const Metric& m : c.metrics) {
        const MetricPolicy mp = resolve(policy, s.name, c.name, m.name, m.gated_by_default());
        if (!mp.gated) continue;
        MetricNoise n{.suite = s.name,
                      .case_name = c.name,
                      .metric = m.name,
                      .unit = m.unit,
                      .kind = m.kind,
                      .event_count = m.is_event_rate()};
        if (n.event_count) {
          measure_counts(m, o, n);
        } else {
          measure_log_statistics(m, mp, o, n);
        }
        if (!n.stats.empty()) out.push_back(std::move(n));
      }
    }
  }
  return out;
}

double predicted_aa_unchanged(const std::vector<MetricNoise>& noise, const Policy& d,
                              const CalibrationOptions& o) {
  double p = 1;
  for (const MetricNoise& m : noise) {
    for (const StatisticNoise& s : m.stats) {
      if (m.event_count) {
        const double floor = std::max(d.count_floor_per_run, s.supported_floor_pct);
        // The A/A interval's larger end is below `floor` with the probability whose quantile
        // count_floor puts there: found by bisection on q.
        double lo = 0.5, hi = 1 - 1e-9;
        for (int i = 0; i < 60; ++i) {
          const double mid = (lo + hi) / 2;
          (count_floor(m.rate_per_run, m.phi, o.plan_runs, o.alpha, mid) < floor ? lo : hi) = mid;
        }
        p *= std::max(0.0, 1 - 2 * (1 - lo));
        continue;
      }
      const double floor =
          s.statistic == "max"     ? std::max(d.max_noise_floor_pct, s.supported_floor_pct)
          : s.statistic == "value" ? std::max(d.noise_floor_pct, s.supported_floor_pct)
                                   : std::max(d.latency_noise_floor_pct, s.supported_floor_pct);
      p *= unchanged_probability(s.sd, o.alpha, o.plan_runs, floor);
    }
  }
  return p;
}

std::string calibrated_policy_yaml(const std::vector<MetricNoise>& noise, const Policy& defaults,
                                   const CalibrationOptions& o, const std::string& header_comment) {
  std::ostringstream y;
  std::istringstream header(header_comment);
  for (std::string line; std::getline(header, line);) {
    y << (line.empty() ? "#" : "# " + line) << "\n";
  }
  y << "#\n"
    << "# prior: this host's per-run SD of each statistic's log value (df = runs - 1), which the\n"
    << "# gate uses as the prior of its per-run variance. The floors are the smallest with which\n"
    << "# this host's whole A/A gate is unchanged (exit 0) about 9 times in 10 at " << o.plan_runs
    << " runs a side\n"
    << "# in one session (never below the defaults); between sessions (boots) it is less, by the\n"
    << "# session spread (rtgate calibrate --sessions). alpha and family_size are those they\n"
    << "# were computed at.\n"
    << "alpha: " << num(o.alpha) << "\n"
    << "family_size: " << o.family << "\n";
  if (noise.empty()) return y.str();
  y << "metrics:\n";
  for (const MetricNoise& m : noise) {
    y << "  " << yaml_key(m.key()) << ":\n";
    std::string prior;
    double df = kInf;  // one df for the prior: the fewest runs any of its statistics had
    for (const StatisticNoise& s : m.stats) {
      // parse_policy takes SDs in (0, 100]; a statistic that never moved has no prior to give.
      if (!(s.sd > 0 && s.sd <= 100)) continue;
      prior += ", " + s.statistic + ": " + num(s.sd);
      df = std::min(df, s.df);
    }
    if (!prior.empty()) y << "    prior: {df: " << num(std::max(1.0, df)) << prior << "}\n";
    write_floors(y, m, defaults);
  }
  return y.str();
}

}  // namespace rtgate::gate
