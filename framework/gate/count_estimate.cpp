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

// Pearson chi-square of per-run counts around their mean, and its degrees of freedom.
void pearson(const std::vector<double>& xs, double& chi2, double& df) {
  if (xs.size() < 2) return;
  const double mean = sum_of(xs) / static_cast<double>(xs.size());
  df += static_cast<double>(xs.size() - 1);
  if (mean <= 0) return;
  for (double x : xs) chi2 += (x - mean) * (x - mean) / mean;
}

using Fast = boost::math::policies::policy<boost::math::policies::promote_double<false>>;

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
  double chi2 = 0, df = 0;
  pearson(base, chi2, df);
  pearson(cur, chi2, df);
  // Overdispersion is used only when the counts show it (Pearson's dispersion test at 5%): with
  // 8 df, phi's own noise would otherwise halve the information of Poisson counts half the time.
  const bool overdispersed =
      df > 0 && boost::math::cdf(boost::math::complement(
                    boost::math::chi_squared_distribution<double, Fast>(df), chi2)) < 0.05;
  e.phi = overdispersed ? chi2 / df : 1.0;
  const double sb = kb / e.phi, sc = kc / e.phi;
  const double share = nc / (nb + nc);
  // P(X >= sc) and P(X <= sc) for X ~ Binomial(sb + sc, share), continuous in the counts.
  e.p_up = sc <= 0 ? 1.0 : boost::math::ibeta(sc, sb + 1, share, Fast());
  e.p_down = sb <= 0 ? 1.0 : boost::math::ibeta(sb, sc + 1, 1 - share, Fast());
  return e;
}

CountEstimate estimate_counts_without_extreme(const std::vector<double>& base,
                                              const std::vector<double>& cur, bool drop_largest) {
  if (cur.size() < 3) return estimate_counts(base, cur);
  std::vector<double> fewer = cur;
  fewer.erase(drop_largest ? std::max_element(fewer.begin(), fewer.end())
                           : std::min_element(fewer.begin(), fewer.end()));
  return estimate_counts(base, fewer);
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
