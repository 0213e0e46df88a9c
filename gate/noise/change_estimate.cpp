#include "gate/noise/change_estimate.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <limits>
#include <map>
#include <unordered_map>

namespace rtgate::gate {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Double precision throughout: the default promotes to long double, five times slower, for
// digits no verdict reads.
using Fast = boost::math::policies::policy<boost::math::policies::promote_double<false>>;
using StudentsT = boost::math::students_t_distribution<double, Fast>;
using Normal = boost::math::normal_distribution<double, Fast>;

double mean_of(const std::vector<double>& xs) {
  double s = 0;
  for (double x : xs) s += x;
  return s / static_cast<double>(xs.size());
}

}  // namespace

double upper_tail(double t, double df) {
  if (std::isinf(t)) return t > 0 ? 0.0 : 1.0;
  if (std::isinf(df)) return boost::math::cdf(boost::math::complement(Normal(), t));
  return boost::math::cdf(boost::math::complement(StudentsT(df), t));
}

double t_critical(double alpha, double df) {
  if (!(alpha > 0 && alpha < 1)) return NAN;
  if (std::isinf(df)) return boost::math::quantile(boost::math::complement(Normal(), alpha));
  // Remembered per (alpha, df): a gate of 10,000 cases asks for a handful of distinct pairs tens
  // of thousands of times, and Boost's Student t quantile is iterative.
  struct Key {
    double alpha, df;
    bool operator==(const Key&) const = default;
  };
  struct Hash {
    std::size_t operator()(const Key& k) const noexcept {
      return std::hash<double>()(k.alpha) * 31 + std::hash<double>()(k.df);
    }
  };
  thread_local std::unordered_map<Key, double, Hash> known;
  if (const auto it = known.find({alpha, df}); it != known.end()) return it->second;
  if (known.size() > 4096) known.clear();
  const double t = boost::math::quantile(boost::math::complement(StudentsT(df), alpha));
  known.emplace(Key{alpha, df}, t);
  return t;
}

double ChangeEstimate::lower(double alpha) const { return effect - t_critical(alpha, df) * se; }
double ChangeEstimate::upper(double alpha) const { return effect + t_critical(alpha, df) * se; }
double ChangeEstimate::detectable(double alpha, double power) const {
  return (t_critical(alpha, df) + t_critical(1 - power, df)) * se;
}

double quantisation_log_var() {
  const double step = std::log1p(1.0 / static_cast<double>(LatencyHistogram::kSubCount));
  return step * step / 12;
}

double within_run_log_var(const LatencyHistogram& pooled, double q, double n) {
  if (pooled.count() == 0 || !(n >= 1)) return 0;
  const double h = std::sqrt(q * (1 - q) / n);
  const double lo = static_cast<double>(pooled.quantile(std::max(0.0, q - h)));
  const double hi = static_cast<double>(pooled.quantile(std::min(1.0, q + h)));
  if (!(lo > 0) || !(hi > 0)) return 0;
  const double half = (std::log(hi) - std::log(lo)) / 2;
  return half * half;
}

namespace {

// A side's sessions: the mean of each, its run count, and the pooled within-session variance.
struct SessionSplit {
  std::vector<double> means, runs;
  stats::VarianceEstimate within{NAN, 0};
};

SessionSplit split(const SideValues& s) {
  std::map<int, std::vector<double>> by;
  for (std::size_t i = 0; i < s.values.size(); ++i) {
    by[s.session.empty() ? 0 : s.session[i]].push_back(s.values[i]);
  }
  SessionSplit out;
  double ss = 0, df = 0;
  for (const auto& [id, xs] : by) {
    const double m = mean_of(xs);
    out.means.push_back(m);
    out.runs.push_back(static_cast<double>(xs.size()));
    for (double x : xs) ss += (x - m) * (x - m);
    df += static_cast<double>(xs.size() - 1);
  }
  if (df > 0) out.within = {ss / df, df};
  return out;
}

}  // namespace

ChangeEstimate estimate_change(const SideValues& base, const SideValues& cur,
                               const stats::VariancePrior& prior, const SessionNoise& noise) {
  ChangeEstimate e;
  e.n_base = base.values.size();
  e.n_cur = cur.values.size();
  if (e.n_base == 0 || e.n_cur == 0) return e;
  const SessionSplit sb = split(base), sc = split(cur);
  e.k_base = static_cast<int>(sb.means.size());
  e.k_cur = static_cast<int>(sc.means.size());
  stats::VarianceEstimate vb = stats::moderate(sb.within, prior);
  stats::VarianceEstimate vc = stats::moderate(sc.within, prior);
  // Single-run sessions in the history: tau^2 already holds the run spread.
  const bool tau_holds_runs = noise.source == NoiseSource::kHistory && !(noise.run_df > 0);
  if (tau_holds_runs) {
    if (!(vb.df > 0)) vb = {0, kInf};
    if (!(vc.df > 0)) vc = {0, kInf};
  }
  if (!(vb.df > 0) || !(vc.df > 0)) return e;
  e.var_base = std::max(vb.var, base.within_var);
  e.var_cur = std::max(vc.var, cur.within_var);
  auto side_var = [](const SessionSplit& s, double var) {
    double w = 0;
    for (double n : s.runs) w += var / n;
    const auto k = static_cast<double>(s.runs.size());
    return w / (k * k);
  };
  const double ub = side_var(sb, e.var_base), uc = side_var(sc, e.var_cur);
  const double c = 1.0 / e.k_base + 1.0 / e.k_cur;
  e.session_var = noise.tau_sq * c;
  // A history whose session means varied less than their runs explain gives tau_sq < 0: the
  // total still holds, but never below the larger side's own run part.
  const double total = std::max(ub + uc + e.session_var, std::max(ub, uc));
  e.effect = mean_of(sc.means) - mean_of(sb.means);
  e.se = std::sqrt(total);
  // Welch-Satterthwaite; a part known exactly (infinite df) adds nothing to the denominator. The
  // session part's uncertainty is that of the history's session-mean variance it came from.
  auto part = [](double u, double df) { return std::isinf(df) || u == 0 ? 0.0 : u * u / df; };
  const double session_scale =
      noise.session_mean_var > 0 ? noise.session_mean_var * c : std::max(0.0, e.session_var);
  const double denom = part(ub, vb.df) + part(uc, vc.df) + part(session_scale, noise.tau_df);
  e.df = denom > 0 ? total * total / denom : kInf;
  if (e.se == 0) {
    e.p_up = e.effect > 0 ? 0.0 : 1.0;
    e.p_down = e.effect < 0 ? 0.0 : 1.0;
    return e;
  }
  e.p_up = upper_tail(e.effect / e.se, e.df);
  e.p_down = upper_tail(-e.effect / e.se, e.df);
  return e;
}

}  // namespace rtgate::gate
