#include "framework/stats/rate_test.h"

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <limits>
#include <stdexcept>

namespace rtgate::stats {
namespace {

using boost::math::binomial;
constexpr double kInf = std::numeric_limits<double>::infinity();

double cdf_at(const binomial& d, double k) { return k < 0 ? 0.0 : boost::math::cdf(d, k); }
double sf_at(const binomial& d, double k) {  // P(X > k)
  return k < 0 ? 1.0 : boost::math::cdf(boost::math::complement(d, k));
}

// binom.test's two-sided p: the total probability of outcomes no more likely than the observed
// one. The pmf is unimodal, so the far tail's cut point is found by bisection.
double two_sided_p(const binomial& d, double k, double n, double p) {
  constexpr double kRelErr = 1 + 1e-7;
  const double m = n * p;
  if (k == m) return 1.0;
  const double dk = boost::math::pdf(d, k) * kRelErr;
  if (k < m) {
    // Smallest i in [ceil(m), n] with pdf(i) <= dk (pdf decreasing there); none: n + 1.
    double lo = std::ceil(m), hi = n + 1;
    while (lo < hi) {
      const double mid = std::floor((lo + hi) / 2);
      if (boost::math::pdf(d, mid) <= dk)
        hi = mid;
      else
        lo = mid + 1;
    }
    return std::min(1.0, cdf_at(d, k) + sf_at(d, lo - 1));
  }
  // Largest i in [0, floor(m)] with pdf(i) <= dk (pdf increasing there); none: -1.
  double lo = -1, hi = std::floor(m);
  while (lo < hi) {
    const double mid = std::ceil((lo + hi) / 2);
    if (boost::math::pdf(d, mid) <= dk)
      lo = mid;
    else
      hi = mid - 1;
  }
  return std::min(1.0, cdf_at(d, lo) + sf_at(d, k - 1));
}

}  // namespace

RateTestResult rate_test(std::uint64_t kx, std::uint64_t nx, std::uint64_t ky, std::uint64_t ny,
                         Alternative alternative, double confidence) {
  if (nx == 0 || ny == 0 || kx > nx || ky > ny || !(confidence > 0 && confidence < 1)) {
    throw std::invalid_argument("rate_test: needs 1 <= n, k <= n and 0 < confidence < 1");
  }
  RateTestResult r;
  const double dkx = static_cast<double>(kx), dky = static_cast<double>(ky);
  const double dnx = static_cast<double>(nx), dny = static_cast<double>(ny);
  r.rate_x = dkx / dnx;
  r.rate_y = dky / dny;
  if (ky != 0)
    r.ratio = r.rate_x / r.rate_y;
  else if (kx != 0)
    r.ratio = kInf;

  const double total = dkx + dky;
  if (total == 0) {
    r.p_value = 1.0;
    r.ratio_low = 0;
    r.ratio_high = kInf;
    return r;
  }
  const double share = dnx / (dnx + dny);
  const binomial d(total, share);
  switch (alternative) {
    case Alternative::kGreater:
      r.p_value = sf_at(d, dkx - 1);
      break;
    case Alternative::kLess:
      r.p_value = cdf_at(d, dkx);
      break;
    case Alternative::kTwoSided:
      r.p_value = two_sided_p(d, dkx, total, share);
      break;
  }

  // Clopper-Pearson bounds on kx's share of the events, mapped to the rate ratio.
  const double tail = alternative == Alternative::kTwoSided ? (1 - confidence) / 2 : 1 - confidence;
  double p_low = 0, p_high = 1;
  if (alternative != Alternative::kLess && kx != 0) {
    p_low = binomial::find_lower_bound_on_p(total, dkx, tail);
  }
  if (alternative != Alternative::kGreater && kx != static_cast<std::uint64_t>(total)) {
    p_high = binomial::find_upper_bound_on_p(total, dkx, tail);
  }
  const double scale = dny / dnx;
  auto to_ratio = [&](double p) { return p >= 1 ? kInf : p / (1 - p) * scale; };
  r.ratio_low = to_ratio(p_low);
  r.ratio_high = to_ratio(p_high);
  return r;
}

}  // namespace rtgate::stats
