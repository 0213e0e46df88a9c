#include "framework/stats/quantile_ci.h"

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <limits>
#include <stdexcept>
#include <vector>

#include "framework/stats/histogram_ranks.h"

namespace rtgate::stats {
namespace {

using Binomial = boost::math::binomial_distribution<
    double, boost::math::policies::policy<
                boost::math::policies::discrete_quantile<boost::math::policies::integer_round_up>>>;

double binomial_cdf(const Binomial& d, std::uint64_t k) {
  return boost::math::cdf(d, static_cast<double>(k));
}

constexpr double kInf = std::numeric_limits<double>::infinity();

std::uint64_t nearest_rank(std::uint64_t n, double q) {
  const auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(n)));
  return std::clamp<std::uint64_t>(rank, 1, n);
}

}  // namespace

std::uint64_t binomial_quantile(double p, std::uint64_t n, double q) {
  const Binomial d(static_cast<double>(n), q);
  // Boost's rounding policy gets within one step; settle the exact qbinom definition with the cdf.
  auto k = static_cast<std::uint64_t>(std::max(0.0, boost::math::quantile(d, p)));
  k = std::min(k, n);
  while (k > 0 && binomial_cdf(d, k - 1) >= p) --k;
  while (k < n && binomial_cdf(d, k) < p) ++k;
  return k;
}

RankInterval quantile_ci_ranks(std::uint64_t n, double q, double confidence) {
  if (n < 1 || !(q > 0 && q < 1) || !(confidence > 0 && confidence < 1)) {
    throw std::invalid_argument("quantile_ci_ranks: needs n >= 1, 0 < q < 1, 0 < confidence < 1");
  }
  const double tail = (1 - confidence) / 2;
  RankInterval r;
  r.lower = binomial_quantile(tail, n, q);
  r.upper = binomial_quantile(1 - tail, n, q) + 1;
  const Binomial d(static_cast<double>(n), q);
  const double below = r.lower == 0 ? 0.0 : binomial_cdf(d, r.lower - 1);
  r.coverage = binomial_cdf(d, r.upper - 1) - below;
  return r;
}

QuantileCi quantile_ci(std::span<const double> sorted, double q, double confidence) {
  QuantileCi ci;
  if (sorted.empty()) return ci;
  const std::uint64_t n = sorted.size();
  ci.ranks = quantile_ci_ranks(n, q, confidence);
  ci.estimate = sorted[nearest_rank(n, q) - 1];
  ci.low = ci.ranks.lower == 0 ? -kInf : sorted[ci.ranks.lower - 1];
  ci.high = ci.ranks.upper > n ? kInf : sorted[ci.ranks.upper - 1];
  return ci;
}

QuantileCi quantile_ci(const LatencyHistogram& h, double q, double confidence) {
  QuantileCi ci;
  const std::uint64_t n = h.count();
  if (n == 0) return ci;
  ci.ranks = quantile_ci_ranks(n, q, confidence);
  ci.estimate = static_cast<double>(h.quantile(q));
  const std::vector<Bucket> buckets = h.buckets();
  ci.low = ci.ranks.lower == 0 ? -kInf
                               : static_cast<double>(value_at_rank(h, buckets, ci.ranks.lower).low);
  ci.high = ci.ranks.upper > n
                ? kInf
                : static_cast<double>(value_at_rank(h, buckets, ci.ranks.upper).high);
  return ci;
}

}  // namespace rtgate::stats
