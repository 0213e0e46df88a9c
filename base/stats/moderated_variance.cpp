#include "base/stats/moderated_variance.h"

#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/polygamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>
#include <limits>
#include <vector>

namespace rtgate::stats {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

double trigamma_inverse(double y) {
  if (!(y > 0)) return NAN;
  // Smyth's starting points and iteration: the function 1/trigamma(x) is nearly linear in x.
  if (y > 1e7) return 1 / std::sqrt(y);
  if (y < 1e-6) return 1 / y;
  double x = 0.5 + 1 / y;
  for (int i = 0; i < 50; ++i) {
    const double tri = boost::math::trigamma(x);
    const double step = tri * (1 - tri / y) / boost::math::polygamma(2, x);
    x += step;
    if (-step / x < 1e-8) break;
  }
  return x;
}

VariancePrior fit_prior(std::span<const VarianceEstimate> estimates) {
  // e_g = log s_g^2 - digamma(d_g / 2) + log(d_g / 2) has mean log s0^2 - digamma(d0 / 2) +
  // log(d0 / 2) and variance trigamma(d0 / 2) + trigamma(d_g / 2).
  std::vector<double> e;
  double tri_mean = 0, ss_pooled = 0, df_pooled = 0;
  for (const VarianceEstimate& v : estimates) {
    if (!(v.var > 0) || !(v.df > 0) || !std::isfinite(v.var)) continue;
    e.push_back(std::log(v.var) - boost::math::digamma(v.df / 2) + std::log(v.df / 2));
    tri_mean += boost::math::trigamma(v.df / 2);
    ss_pooled += v.var * v.df;
    df_pooled += v.df;
  }
  VariancePrior prior;
  const double n = static_cast<double>(e.size());
  if (e.size() < 3) return prior;
  tri_mean /= n;
  double mean = 0;
  for (double x : e) mean += x;
  mean /= n;
  double ss = 0;
  for (double x : e) ss += (x - mean) * (x - mean);
  const double excess = ss / (n - 1) - tri_mean;
  if (excess > 0) {
    prior.d0 = 2 * trigamma_inverse(excess);
    prior.s0_sq = std::exp(mean + boost::math::digamma(prior.d0 / 2) - std::log(prior.d0 / 2));
  } else {
    // The pooled variance, the scale's maximum-likelihood estimate when d0 is infinite (limma
    // since 3.27.10 uses mean(var), the same for equal df).
    prior.d0 = kInf;
    prior.s0_sq = ss_pooled / df_pooled;
  }
  return prior;
}

VarianceEstimate moderate(const VarianceEstimate& own, const VariancePrior& prior) {
  if (!prior.usable()) return own;
  if (std::isinf(prior.d0)) return {prior.s0_sq, kInf};
  if (!(own.df > 0) || !std::isfinite(own.var)) return {prior.s0_sq, prior.d0};
  const double df = prior.d0 + own.df;
  return {(prior.d0 * prior.s0_sq + own.df * own.var) / df, df};
}

}  // namespace rtgate::stats
