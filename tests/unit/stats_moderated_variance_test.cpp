#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "base/stats/moderated_variance.h"

namespace rtgate::stats {
namespace {

// Reference values from R 4.2.2 with limma 3.54.1 (Debian r-bioc-limma):
//   v <- c(0.5, 1.2, 0.8, 2.0, 0.3, 1.1, 0.9, 4.0); d <- c(4, 4, 8, 8, 4, 6, 8, 4)
//   fitFDist(v, d)          -> scale 1.16538521194655, df2 14.7438196288919
//   squeezeVar(v, d)$var.post
TEST(StatsModeratedVariance, MatchesLimma) {
  const std::vector<double> v{0.5, 1.2, 0.8, 2.0, 0.3, 1.1, 0.9, 4.0};
  const std::vector<double> d{4, 4, 8, 8, 4, 6, 8, 4};
  std::vector<VarianceEstimate> est;
  for (std::size_t i = 0; i < v.size(); ++i) est.push_back({v[i], d[i]});
  const VariancePrior p = fit_prior(est);
  EXPECT_NEAR(p.s0_sq, 1.16538521194655, 1e-9);
  EXPECT_NEAR(p.d0, 14.7438196288919, 1e-7);
  const std::vector<double> post{1.02338956215468, 1.17277213494065,  1.03686318955682,
                                 1.45895587920359, 0.980708827072974, 1.14647301165279,
                                 1.07203758036072, 1.77030242608452};
  for (std::size_t i = 0; i < v.size(); ++i) {
    const VarianceEstimate m = moderate(est[i], p);
    EXPECT_NEAR(m.var, post[i], 1e-9) << i;
    EXPECT_NEAR(m.df, d[i] + p.d0, 1e-7);
  }
}

// fitFDist(c(1.0, 1.1, 0.9, 1.05, 0.95), rep(4, 5)) -> scale 1, df2 Inf: the spread is smaller
// than chi-square sampling alone gives, so the prior is taken as known.
TEST(StatsModeratedVariance, TightSpreadGivesInfiniteDf) {
  std::vector<VarianceEstimate> est;
  for (double v : {1.0, 1.1, 0.9, 1.05, 0.95}) est.push_back({v, 4});
  const VariancePrior p = fit_prior(est);
  EXPECT_TRUE(std::isinf(p.d0));
  EXPECT_NEAR(p.s0_sq, 1.0, 1e-12);
  const VarianceEstimate m = moderate({3.0, 4}, p);
  EXPECT_DOUBLE_EQ(m.var, 1.0);
  EXPECT_TRUE(std::isinf(m.df));
}

// limma: trigammaInverse(0.5) 2.45995294835231, trigammaInverse(3) 0.67547810528137.
TEST(StatsModeratedVariance, TrigammaInverseMatchesLimma) {
  EXPECT_NEAR(trigamma_inverse(0.5), 2.45995294835231, 1e-9);
  EXPECT_NEAR(trigamma_inverse(3), 0.67547810528137, 1e-9);
}

TEST(StatsModeratedVariance, TooFewEstimatesGiveNoPrior) {
  const std::vector<VarianceEstimate> est{{1.0, 4}, {2.0, 4}};
  EXPECT_FALSE(fit_prior(est).usable());
  const VarianceEstimate own{2.5, 4};
  EXPECT_DOUBLE_EQ(moderate(own, fit_prior(est)).var, 2.5);
}

// Under the model itself (variances drawn from the scaled inverse chi-square prior), the fitted
// d0 and s0^2 land near the truth: 400 metrics, d0 = 10, s0^2 = 2, 4 df each.
TEST(StatsModeratedVariance, RecoversThePriorItWasDrawnFrom) {
  std::mt19937_64 rng(7);
  std::chi_squared_distribution<double> prior_chi(10), sample_chi(4);
  std::vector<VarianceEstimate> est;
  for (int i = 0; i < 400; ++i) {
    const double sigma2 = 10 * 2.0 / prior_chi(rng);
    est.push_back({sigma2 * sample_chi(rng) / 4, 4});
  }
  const VariancePrior p = fit_prior(est);
  EXPECT_NEAR(p.d0, 10, 5);
  EXPECT_NEAR(p.s0_sq, 2, 0.4);
}

}  // namespace
}  // namespace rtgate::stats
