#include "framework/gate/count_estimate.h"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/special_functions/beta.hpp>

namespace rtgate::gate {
namespace {

double sum_of(const std::vector<double>& xs) {
  double s = 0;
  for (double x : xs) s += std::max(0.0, x);
  return s;
}

using Fast = boost::math::policies::policy<boost::math::policies::promote_double<false>>;

// Pearson chi-square / df of one side's per-run counts around their mean, when Pearson's
// dispersion test rejects Poisson at 5%; else 1. With 4 df, phi's own noise would otherwise cut
// the information of Poisson counts in half much of the time.
double dispersion(const std::vector<double>& xs) {
  if (xs.size() < 2) return 1;
  const double mean = sum_of(xs) / static_cast<double>(xs.size());
  if (mean <= 0) return 1;
  double chi2 = 0;
  for (double x : xs) chi2 += (x - mean) * (x - mean) / mean;
  const double df = static_cast<double>(xs.size() - 1);
  const double p = boost::math::cdf(
      boost::math::complement(boost::math::chi_squared_distribution<double, Fast>(df), chi2));
  return p < 0.05 ? std::max(1.0, chi2 / df) : 1.0;
}

double z_quantile(double p) {
  return boost::math::quantile(boost::math::normal_distribution<double, Fast>(), p);
}

// Bounds of a Poisson mean from k (scaled, possibly non-integer) events, one-sided level a.
double poisson_upper(double k, double a) {
  return boost::math::quantile(
      boost::math::complement(boost::math::gamma_distribution<double, Fast>(k + 1), a));
}
double poisson_lower(double k, double a) {
  return k <= 0 ? 0.0 : boost::math::quantile(boost::math::gamma_distribution<double, Fast>(k), a);
}

}  // namespace

CountEstimate estimate_counts(const std::vector<double>& base, const std::vector<double>& cur) {
  CountEstimate e;
  e.n_base = base.size();
  e.n_cur = cur.size();
  if (!e.ok()) return e;
  const double nb = static_cast<double>(e.n_base), nc = static_cast<double>(e.n_cur);
  const double kb = sum_of(base), kc = sum_of(cur);
  e.rate_base = kb / nb;
  e.rate_cur = kc / nc;
  e.effect = e.rate_cur - e.rate_base;
  // Overdispersion, per side (Pearson chi-square / df, used only when that side's dispersion test
  // rejects Poisson at 5%), and the larger of the two: a burst pattern on one side and a quiet
  // other side must not average out into "nearly Poisson".
  e.phi = std::max(dispersion(base), dispersion(cur));
  const double sb = kb / e.phi, sc = kc / e.phi;
  const double share = nc / (nb + nc);
  // P(X >= sc) and P(X <= sc) for X ~ Binomial(sb + sc, share), continuous in the counts.
  e.p_up = sc <= 0 ? 1.0 : boost::math::ibeta(sc, sb + 1, share, Fast());
  e.p_down = sb <= 0 ? 1.0 : boost::math::ibeta(sb, sc + 1, 1 - share, Fast());
  return e;
}

double CountEstimate::upper(double alpha) const {
  const double nb = static_cast<double>(n_base), nc = static_cast<double>(n_cur);
  const double hi = poisson_upper(rate_cur * nc / phi, alpha / 2) * phi / nc;
  const double lo = poisson_lower(rate_base * nb / phi, alpha / 2) * phi / nb;
  return hi - lo;
}

double CountEstimate::lower(double alpha) const {
  const double nb = static_cast<double>(n_base), nc = static_cast<double>(n_cur);
  const double lo = poisson_lower(rate_cur * nc / phi, alpha / 2) * phi / nc;
  const double hi = poisson_upper(rate_base * nb / phi, alpha / 2) * phi / nb;
  return lo - hi;
}

double CountEstimate::detectable(double alpha, double power) const {
  const double nb = static_cast<double>(n_base), nc = static_cast<double>(n_cur);
  const double pooled = std::max((rate_base * nb + rate_cur * nc) / (nb + nc), 1 / (nb + nc));
  const double se = std::sqrt(phi * pooled * (1 / nb + 1 / nc));
  return (z_quantile(1 - alpha) + z_quantile(power)) * se;
}

}  // namespace rtgate::gate
