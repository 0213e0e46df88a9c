// Distribution-free confidence intervals for a quantile, from order statistics.
//
// For n independent samples and the q-quantile xi, the number B of samples <= xi is
// Binomial(n, q), so P(X_(l) <= xi <= X_(u)) >= P(l <= B < u). The interval takes
// l = qbinom((1 - c) / 2, n, q) and u = qbinom((1 + c) / 2, n, q) + 1 (binomial quantiles from
// Boost.Math), which covers xi with probability >= c whatever the distribution. No lower bound
// exists when l = 0 and no upper bound when u = n + 1 (too few samples for that quantile).
#pragma once

#include <cmath>
#include <cstdint>
#include <span>

#include "framework/measure/latency_histogram.h"

namespace rtgate::stats {

struct RankInterval {
  std::uint64_t lower = 0;  // 1-based rank of the lower bound; 0: no lower bound
  std::uint64_t upper = 0;  // 1-based rank of the upper bound; n + 1: no upper bound
  double coverage = NAN;    // exact P(lower <= B < upper), B ~ Binomial(n, q); >= confidence
};

// Requires n >= 1, 0 < q < 1, 0 < confidence < 1 (else std::invalid_argument).
RankInterval quantile_ci_ranks(std::uint64_t n, double q, double confidence);

// The smallest k with P(B <= k) >= p for B ~ Binomial(n, q) (R: qbinom(p, n, q)).
std::uint64_t binomial_quantile(double p, std::uint64_t n, double q);

struct QuantileCi {
  double estimate = NAN;  // nearest-rank estimate: the sample of rank ceil(n q)
  double low = NAN;       // -inf when there is no lower bound
  double high = NAN;      // +inf when there is no upper bound
  RankInterval ranks;
};

// On samples sorted ascending. All NaN when empty.
QuantileCi quantile_ci(std::span<const double> sorted, double q, double confidence);

// On a (merged) histogram: the ranks mapped to values conservatively, the lower bound to the
// lower edge of its bucket and the upper bound to the upper edge (value_at_rank), so the interval
// only widens. The estimate is h.quantile(q). All NaN when empty.
QuantileCi quantile_ci(const LatencyHistogram& h, double q, double confidence);

}  // namespace rtgate::stats
