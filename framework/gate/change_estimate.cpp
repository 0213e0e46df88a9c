#include "framework/gate/change_estimate.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <limits>
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

stats::VarianceEstimate sample_var(const std::vector<double>& xs) {
  if (xs.size() < 2) return {NAN, 0};
  const double m = mean_of(xs);
  double ss = 0;
  for (double x : xs) ss += (x - m) * (x - m);
  const double df = static_cast<double>(xs.size() - 1);
  return {ss / df, df};
}

// P(T > t) for T ~ t(df), or the normal when df is infinite.
double upper_tail(double t, double df) {
  if (std::isinf(t)) return t > 0 ? 0.0 : 1.0;
  if (std::isinf(df)) return boost::math::cdf(boost::math::complement(Normal(), t));
  return boost::math::cdf(boost::math::complement(StudentsT(df), t));
}

}  // namespace

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

ChangeEstimate estimate_change(const SideValues& base, const SideValues& cur,
                               const stats::VariancePrior& prior) {
  ChangeEstimate e;
  e.n_base = base.values.size();
  e.n_cur = cur.values.size();
  if (e.n_base == 0 || e.n_cur == 0) return e;
  const stats::VarianceEstimate vb = stats::moderate(sample_var(base.values), prior);
  const stats::VarianceEstimate vc = stats::moderate(sample_var(cur.values), prior);
  if (!(vb.df > 0) || !(vc.df > 0)) return e;
  e.var_base = std::max(vb.var, base.within_var);
  e.var_cur = std::max(vc.var, cur.within_var);
  const double ub = e.var_base / static_cast<double>(e.n_base);
  const double uc = e.var_cur / static_cast<double>(e.n_cur);
  e.effect = mean_of(cur.values) - mean_of(base.values);
  e.se = std::sqrt(ub + uc);
  // Welch-Satterthwaite; a side known exactly (infinite df) adds nothing to the denominator.
  const double denom =
      (std::isinf(vb.df) ? 0 : ub * ub / vb.df) + (std::isinf(vc.df) ? 0 : uc * uc / vc.df);
  e.df = denom > 0 ? (ub + uc) * (ub + uc) / denom : kInf;
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
