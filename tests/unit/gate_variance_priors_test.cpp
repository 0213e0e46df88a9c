// excess_r2 without visiting the pairs (O(G n^2) instead of O(G^2 n)) against the
// pairwise definition it replaces, on seeded residuals of the sizes a gate sees.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "gate/noise/variance_priors.h"

namespace rtgate::gate {
namespace {

double pairwise_excess_r2(const std::vector<std::vector<double>>& res, double residual_df) {
  double sum = 0;
  int pairs = 0;
  for (std::size_t i = 0; i < res.size(); ++i) {
    for (std::size_t j = i + 1; j < res.size(); ++j) {
      double ii = 0, jj = 0, ij = 0;
      for (std::size_t k = 0; k < res[i].size(); ++k) {
        ii += res[i][k] * res[i][k];
        jj += res[j][k] * res[j][k];
        ij += res[i][k] * res[j][k];
      }
      const double den = std::sqrt(ii * jj);
      const double r = den > 0 ? ij / den : 0;
      sum += r * r;
      ++pairs;
    }
  }
  if (pairs == 0) return 1;
  return std::clamp(sum / pairs - 1 / residual_df, 0.0, 1.0);
}

// G members of n residuals: a shared drift with weight `shared` plus each member's own noise;
// every `zero_every`-th member has all-zero residuals (a constant metric).
std::vector<std::vector<double>> residuals(std::mt19937_64& rng, std::size_t g, std::size_t n,
                                           double shared, std::size_t zero_every) {
  std::normal_distribution<double> z;
  std::vector<double> common(n);
  for (double& c : common) c = z(rng);
  std::vector<std::vector<double>> out(g, std::vector<double>(n));
  for (std::size_t i = 0; i < g; ++i) {
    if (zero_every != 0 && i % zero_every == 0) continue;
    for (std::size_t k = 0; k < n; ++k) out[i][k] = shared * common[k] + z(rng);
  }
  return out;
}

TEST(ExcessR2, EqualsThePairwiseDefinition) {
  std::mt19937_64 rng(16);
  for (std::size_t g : {2, 5, 16, 200}) {
    for (std::size_t n : {4, 10, 40}) {
      for (double shared : {0.0, 0.5, 3.0}) {
        const auto res = residuals(rng, g, n, shared, g > 5 ? 7 : 0);
        const double df = static_cast<double>(n) - 2;
        EXPECT_NEAR(excess_r2(res, df), pairwise_excess_r2(res, df), 1e-9)
            << "G=" << g << " n=" << n << " shared=" << shared;
      }
    }
  }
}

TEST(ExcessR2, SharedDriftRaisesItAndIndependentResidualsDoNot) {
  std::mt19937_64 rng(7);
  // 10 residuals (5 runs a side): chance alone gives r^2 about 1/8 per pair, which is removed.
  EXPECT_LT(excess_r2(residuals(rng, 500, 10, 0.0, 0), 8), 0.05);
  EXPECT_GT(excess_r2(residuals(rng, 500, 10, 3.0, 0), 8), 0.5);
}

TEST(ExcessR2, MisalignedOrTooFewMembersAreFullyDependent) {
  EXPECT_EQ(excess_r2({{1, 2, 3}}, 1), 1);
  EXPECT_EQ(excess_r2({{1, 2, 3}, {1, 2}}, 1), 1);
  EXPECT_EQ(excess_r2({}, 1), 1);
}

}  // namespace
}  // namespace rtgate::gate
