// Welch's unequal-variance t-test of two independent samples (R: t.test(x, y, var.equal = FALSE)).
#pragma once

#include <cmath>
#include <span>

#include "framework/stats/alternative.h"

namespace rtgate::stats {

struct WelchResult {
  double t = NAN;          // mean_diff / std_err
  double df = NAN;         // Welch–Satterthwaite degrees of freedom
  double p_value = NAN;    // for the requested alternative
  double mean_diff = NAN;  // mean(x) - mean(y)
  double std_err = NAN;    // sqrt(var(x)/nx + var(y)/ny), sample variances
  // Confidence interval of mean_diff at the requested confidence, as R reports it: both ends for
  // a two-sided test, [low, +inf) for kGreater, (-inf, high] for kLess.
  double ci_low = NAN, ci_high = NAN;
};

// Needs at least two samples on each side; otherwise every field is NaN. When both samples are
// constant (std_err 0) the difference is known exactly: p is 1 if the means are equal, else 0 (R
// stops with "data are essentially constant" there), df stays NaN and the interval is the point.
// The p-value comes from boost::math::students_t.
// variance_floor: each side's sample variance is taken as at least this, for values known only to
// a resolution (a quantisation step q contributes q^2 / 12); 0 is the textbook test.
WelchResult welch_t_test(std::span<const double> x, std::span<const double> y,
                         Alternative alternative = Alternative::kTwoSided,
                         double confidence = 0.95, double variance_floor = 0);

}  // namespace rtgate::stats
