// Mann-Whitney U (Wilcoxon rank-sum) test of two independent samples
// (R: wilcox.test(x, y, exact = NULL, correct = TRUE)).
#pragma once

#include <cmath>
#include <cstddef>
#include <span>

#include "base/stats/alternative.h"

namespace rtgate::stats {

// Both samples below this size and no ties: the exact null distribution (R's rule).
inline constexpr std::size_t kMannWhitneyExactLimit = 50;

enum class MannWhitneyMethod {
  kAuto,    // exact when both sizes < kMannWhitneyExactLimit and no value is tied, else normal
  kExact,   // exact null distribution; ties make the test throw std::invalid_argument
  kNormal,  // normal approximation with tie and continuity correction
};

struct MannWhitneyResult {
  // U of x: the pairs (x_i, y_j) with x_i > y_j, plus half the tied pairs. R calls it W.
  double u = NAN;
  double p_value = NAN;
  bool exact = false;  // which method produced p_value
  double z = NAN;      // normal approximation only: the continuity-corrected z score
  // u / (nx ny): P(X > Y) + P(X = Y) / 2 estimated; 0.5 when neither side tends to be larger.
  double effect = NAN;
};

// An empty side gives all NaN. When every value is tied the normal approximation has no spread
// and p is 1 (R gives NaN).
MannWhitneyResult mann_whitney_u(std::span<const double> x, std::span<const double> y,
                                 Alternative alternative = Alternative::kTwoSided,
                                 MannWhitneyMethod method = MannWhitneyMethod::kAuto);

// The exact null distribution without ties: P(U <= u) for samples of sizes m and n (R: pwilcox).
// Computed by dynamic programming over the number of orderings, O(m n (m n)) time.
double mann_whitney_exact_cdf(std::size_t m, std::size_t n, double u);

}  // namespace rtgate::stats
