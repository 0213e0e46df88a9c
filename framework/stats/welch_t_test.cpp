#include "framework/stats/welch_t_test.h"

#include <boost/math/distributions/students_t.hpp>
#include <algorithm>
#include <limits>

#include "framework/stats/summary.h"

namespace rtgate::stats {

WelchResult welch_t_test(std::span<const double> x, std::span<const double> y,
                         Alternative alternative, double confidence, double variance_floor) {
  WelchResult r;
  if (x.size() < 2 || y.size() < 2) return r;
  const double nx = static_cast<double>(x.size());
  const double ny = static_cast<double>(y.size());
  const double sx = stddev(x), sy = stddev(y);
  const double vx = std::max(sx * sx, variance_floor) / nx;
  const double vy = std::max(sy * sy, variance_floor) / ny;
  r.mean_diff = amean(x) - amean(y);
  r.std_err = std::sqrt(vx + vy);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (r.std_err == 0) {
    r.p_value = r.mean_diff == 0 ? 1.0 : 0.0;
    r.t = r.mean_diff == 0 ? NAN : std::copysign(kInf, r.mean_diff);
    r.ci_low = alternative == Alternative::kLess ? -kInf : r.mean_diff;
    r.ci_high = alternative == Alternative::kGreater ? kInf : r.mean_diff;
    return r;
  }
  r.t = r.mean_diff / r.std_err;
  r.df = (vx + vy) * (vx + vy) / (vx * vx / (nx - 1) + vy * vy / (ny - 1));
  const boost::math::students_t dist(r.df);
  switch (alternative) {
    case Alternative::kTwoSided: {
      r.p_value = 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(r.t)));
      const double h = boost::math::quantile(dist, 0.5 + confidence / 2) * r.std_err;
      r.ci_low = r.mean_diff - h;
      r.ci_high = r.mean_diff + h;
      break;
    }
    case Alternative::kGreater:
      r.p_value = boost::math::cdf(boost::math::complement(dist, r.t));
      r.ci_low = r.mean_diff - boost::math::quantile(dist, confidence) * r.std_err;
      r.ci_high = kInf;
      break;
    case Alternative::kLess:
      r.p_value = boost::math::cdf(dist, r.t);
      r.ci_low = -kInf;
      r.ci_high = r.mean_diff + boost::math::quantile(dist, confidence) * r.std_err;
      break;
  }
  return r;
}

}  // namespace rtgate::stats
