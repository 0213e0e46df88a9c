#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "base/stats/mann_whitney.h"

namespace rtgate::stats {
namespace {

// The ?wilcox.test example in R (Hollander & Wolfe 1973, p. 69):
//   x <- c(0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46)
//   y <- c(1.15, 0.88, 0.90, 0.74, 1.21)
//   wilcox.test(x, y, alternative = "g")  ->  W = 35, p-value = 0.1272
// Full precision from scipy 1.10.1, mannwhitneyu(x, y, alternative=..., method='exact'):
// greater 0.1272061272061272, less 0.8967698967698966, two-sided 0.2544122544122544;
// method='asymptotic', use_continuity=True (R: exact = FALSE, correct = TRUE):
// greater 0.12231180256349167, less 0.9007753482039937, two-sided 0.24462360512698333.
const std::vector<double> kX{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
const std::vector<double> kY{1.15, 0.88, 0.90, 0.74, 1.21};

TEST(StatsMannWhitney, RDocumentationExampleExact) {
  const MannWhitneyResult g = mann_whitney_u(kX, kY, Alternative::kGreater);
  EXPECT_TRUE(g.exact);
  EXPECT_EQ(g.u, 35);
  EXPECT_NEAR(g.effect, 35.0 / 50, 1e-15);
  EXPECT_NEAR(g.p_value, 0.1272061272061272, 1e-12);
  EXPECT_NEAR(mann_whitney_u(kX, kY, Alternative::kLess).p_value, 0.8967698967698966, 1e-12);
  EXPECT_NEAR(mann_whitney_u(kX, kY).p_value, 0.2544122544122544, 1e-12);
}

TEST(StatsMannWhitney, RDocumentationExampleNormal) {
  constexpr auto kNormal = MannWhitneyMethod::kNormal;
  const MannWhitneyResult g = mann_whitney_u(kX, kY, Alternative::kGreater, kNormal);
  EXPECT_FALSE(g.exact);
  EXPECT_NEAR(g.p_value, 0.12231180256349167, 1e-12);
  EXPECT_NEAR(mann_whitney_u(kX, kY, Alternative::kLess, kNormal).p_value, 0.9007753482039937,
              1e-12);
  EXPECT_NEAR(mann_whitney_u(kX, kY, Alternative::kTwoSided, kNormal).p_value, 0.24462360512698333,
              1e-12);
}

// Ties force the normal approximation with the tie correction of the variance. scipy 1.10.1,
// mannwhitneyu(xt, yt, alternative=..., method='asymptotic', use_continuity=True):
// U 86.5; greater 0.042340172130362695, less 0.9633104776342409, two-sided 0.08468034426072539.
// (R: wilcox.test(xt, yt, alternative = ..., exact = FALSE, correct = TRUE), W = 86.5.)
TEST(StatsMannWhitney, TiesUseTheCorrectedNormalApproximation) {
  const std::vector<double> xt{3, 5, 5, 7, 8, 8, 8, 10, 12, 12, 13, 15};
  const std::vector<double> yt{1, 2, 3, 3, 5, 6, 8, 9, 9, 11};
  const MannWhitneyResult g = mann_whitney_u(xt, yt, Alternative::kGreater);
  EXPECT_FALSE(g.exact);
  EXPECT_EQ(g.u, 86.5);
  EXPECT_NEAR(g.p_value, 0.042340172130362695, 1e-12);
  EXPECT_NEAR(mann_whitney_u(xt, yt, Alternative::kLess).p_value, 0.9633104776342409, 1e-12);
  EXPECT_NEAR(mann_whitney_u(xt, yt).p_value, 0.08468034426072539, 1e-12);
  EXPECT_THROW(mann_whitney_u(xt, yt, Alternative::kTwoSided, MannWhitneyMethod::kExact),
               std::invalid_argument);
}

// The exact null distribution. m = n = 5 by hand: U = 0, 1, 2 has 1, 1, 2 orderings out of
// C(10, 5) = 252, so P(U <= 2) = 4/252; the distribution is symmetric about 12.5, so
// P(U <= 12) = 0.5. Larger sizes from scipy 1.10.1's exact distribution
// (scipy.stats._mannwhitneyu._mwu_state.cdf(k=u, m=m, n=n), equal to R's pwilcox(u, m, n)).
TEST(StatsMannWhitney, ExactDistribution) {
  EXPECT_NEAR(mann_whitney_exact_cdf(5, 5, 2), 4.0 / 252, 1e-15);
  EXPECT_NEAR(mann_whitney_exact_cdf(5, 5, 12), 0.5, 1e-15);
  EXPECT_NEAR(mann_whitney_exact_cdf(20, 20, 120), 0.015205628019382432, 1e-12);
  EXPECT_NEAR(mann_whitney_exact_cdf(20, 15, 100), 0.04968855982073282, 1e-12);
  EXPECT_NEAR(mann_whitney_exact_cdf(49, 49, 900), 0.016308863525874257, 1e-12);
  EXPECT_NEAR(mann_whitney_exact_cdf(49, 30, 500), 0.008605554904597091, 1e-12);
  EXPECT_EQ(mann_whitney_exact_cdf(3, 4, -1), 0.0);
  EXPECT_EQ(mann_whitney_exact_cdf(3, 4, 12), 1.0);
}

// Five runs against five, completely separated: the smallest two-sided exact p, 2/252.
TEST(StatsMannWhitney, CompleteSeparation) {
  const std::vector<double> a{1, 2, 3, 4, 5}, b{6, 7, 8, 9, 10};
  const MannWhitneyResult r = mann_whitney_u(a, b);
  EXPECT_EQ(r.u, 0);
  EXPECT_NEAR(r.p_value, 2.0 / 252, 1e-15);
  EXPECT_NEAR(mann_whitney_u(b, a, Alternative::kGreater).p_value, 1.0 / 252, 1e-15);
}

TEST(StatsMannWhitney, DegenerateInputs) {
  EXPECT_TRUE(std::isnan(mann_whitney_u({}, kY).p_value));
  const std::vector<double> same{3, 3, 3};
  EXPECT_EQ(mann_whitney_u(same, same).p_value, 1.0);
}

}  // namespace
}  // namespace rtgate::stats
