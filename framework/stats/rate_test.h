// Comparison of two event rates: kx events in nx trials against ky in ny, e.g. the samples above a
// latency threshold out of all samples, current against baseline.
//
// Exact conditional test (R: poisson.test(c(kx, ky), c(nx, ny)), equivalently
// binom.test(kx, kx + ky, nx / (nx + ny))): given K = kx + ky events, kx ~ Binomial(K, nx/(nx+ny))
// when both rates are equal. For rare events (a tail beyond a high quantile) this is also the
// conditional test of two binomial proportions, and it needs no normal approximation.
#pragma once

#include <cmath>
#include <cstdint>

#include "framework/stats/alternative.h"

namespace rtgate::stats {

struct RateTestResult {
  double rate_x = NAN;  // kx / nx
  double rate_y = NAN;  // ky / ny
  // rate_x / rate_y; +inf when only ky is 0, NaN when both are 0.
  double ratio = NAN;
  // Exact confidence interval of the ratio (Clopper-Pearson on kx of K, mapped to the ratio as
  // poisson.test does): both ends two-sided, [low, +inf) for kGreater, [0, high] for kLess.
  double ratio_low = NAN, ratio_high = NAN;
  double p_value = NAN;  // 1 when K is 0 (no events: no evidence either way)
};

// Requires nx, ny >= 1 and kx <= nx, ky <= ny (else std::invalid_argument). Two-sided p-values
// sum the probabilities no larger than the observed one, as binom.test does.
RateTestResult rate_test(std::uint64_t kx, std::uint64_t nx, std::uint64_t ky, std::uint64_t ny,
                         Alternative alternative = Alternative::kGreater, double confidence = 0.95);

}  // namespace rtgate::stats
