#include "gate/noise/count_estimate.h"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <map>

namespace rtgate::gate {
namespace {

double sum_of(const std::vector<double>& xs) {
  double s = 0;
  for (double x : xs) s += std::max(0.0, x);
  return s;
}

using Fast = boost::math::policies::policy<boost::math::policies::promote_double<false>>;

// Chi-square of the runs around their session's mean (Pearson, for a Poisson mean), its df, and
// sum over sessions of n_j^2 (for the session term).
struct Spread {
  double chi2 = 0, df = 0, n_sq = 0;
};

void add_spread(const SideCounts& side, Spread& out) {
  std::map<int, std::vector<double>> by;
  for (std::size_t i = 0; i < side.values.size(); ++i) {
    by[side.session.empty() ? 0 : side.session[i]].push_back(std::max(0.0, side.values[i]));
  }
  for (const auto& [id, xs] : by) {
    const auto n = static_cast<double>(xs.size());
    out.n_sq += n * n;
    const double mean = sum_of(xs) / n;
    if (mean <= 0) continue;
    for (double x : xs) out.chi2 += (x - mean) * (x - mean) / mean;
    out.df += n - 1;
  }
}

// The within-session dispersion: pooled chi-square / df, moderated towards the history's.
double dispersion(const Spread& spread, const SessionNoise& noise) {
  const double d0 = noise.run_df > 0 ? noise.run_df : 0;
  return dispersion_bound(spread.chi2, spread.df, d0, d0 > 0 ? noise.run_var : 1);
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

double dispersion_bound(double chi2, double df, double prior_df, double prior_phi) {
  const double d0 = prior_df > 0 ? prior_df : 0;
  const double all_df = d0 + std::max(0.0, df);
  if (!(all_df > 0)) return 1;
  const double phi = (d0 * (d0 > 0 ? prior_phi : 1) + chi2) / all_df;
  const double lower_q =
      boost::math::quantile(boost::math::chi_squared_distribution<double, Fast>(all_df), 0.25);
  return std::max(1.0, phi * all_df / lower_q);
}

RateTest exact_rate_test(double k_base, double k_cur, double exposure_base, double exposure_cur,
                         double phi) {
  RateTest t;
  if (!(exposure_base > 0) || !(exposure_cur > 0)) return t;
  const double sbase = std::max(0.0, k_base) / phi, scur = std::max(0.0, k_cur) / phi;
  const double share = exposure_cur / (exposure_base + exposure_cur);
  // P(X >= scur) and P(X <= scur) for X ~ Binomial(sbase + scur, share), continuous in the counts.
  t.p_up = scur <= 0 ? 1.0 : boost::math::ibeta(scur, sbase + 1, share, Fast());
  t.p_down = sbase <= 0 ? 1.0 : boost::math::ibeta(sbase, scur + 1, 1 - share, Fast());
  return t;
}

namespace {

// The session variance the count test takes as known: a stated prior as it is; a history's, at the
// upper 75% bound of the session-mean variance it came from (its df), less the part the
// sessions' runs explain, and never clipped to an exact 0. A short history that varied little by
// chance must not make the exact test exact about the sessions.
double session_variance(const SessionNoise& noise) {
  if (noise.source != NoiseSource::kHistory || std::isinf(noise.tau_df) || !(noise.tau_df > 0) ||
      !(noise.session_mean_var > 0)) {
    return std::max(0.0, noise.tau_sq);
  }
  const double q = boost::math::quantile(
      boost::math::chi_squared_distribution<double, Fast>(noise.tau_df), 0.25);
  const double explained = noise.session_mean_var - noise.tau_sq;
  return std::max(0.0, noise.session_mean_var * noise.tau_df / q - explained);
}

}  // namespace

CountEstimate estimate_counts(const SideCounts& base, const SideCounts& cur,
                              const SessionNoise& noise) {
  CountEstimate e;
  e.n_base = base.values.size();
  e.n_cur = cur.values.size();
  if (!e.ok()) return e;
  const double nb = static_cast<double>(e.n_base), nc = static_cast<double>(e.n_cur);
  const double kb = sum_of(base.values), kc = sum_of(cur.values);
  e.rate_base = kb / nb;
  e.rate_cur = kc / nc;
  e.effect = e.rate_cur - e.rate_base;
  Spread spread, sb, sc;
  add_spread(base, sb);
  add_spread(cur, sc);
  spread = {sb.chi2 + sc.chi2, sb.df + sc.df, 0};
  const double within = dispersion(spread, noise);
  // The session term at the pooled rate: what equal rates would show.
  const double rate = (kb + kc) / (nb + nc);
  const double tau_sq = session_variance(noise);
  const double session_b = tau_sq * rate * sb.n_sq / nb;
  const double session_c = tau_sq * rate * sc.n_sq / nc;
  e.phi = within + std::max(session_b, session_c);
  const RateTest t = exact_rate_test(kb, kc, nb, nc, e.phi);
  e.p_up = t.p_up;
  e.p_down = t.p_down;
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
