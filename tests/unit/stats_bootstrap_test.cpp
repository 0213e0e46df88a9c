#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "framework/stats/bootstrap.h"

namespace rtgate::stats {
namespace {

// Reference by enumeration: with x = {3} and y = {1, 2}, a resample of y has mean 1 (p 1/4),
// 1.5 (p 1/2) or 2 (p 1/4), so the ratio is 3, 2 or 1.5 with those probabilities. The 2.5% and
// 97.5% percentiles of that distribution are 1.5 and 3; B = 4000 resamples put well over 2.5% of
// their mass on each end (binomial sd of the count at an end is about 27), so the interpolated
// percentiles land exactly on them.
TEST(StatsBootstrap, EnumeratedTinyCase) {
  const std::vector<double> x{3}, y{1, 2};
  const RatioInterval r = bootstrap_ratio_ci(x, y, {.resamples = 4000});
  EXPECT_DOUBLE_EQ(r.estimate, 2.0);
  EXPECT_DOUBLE_EQ(r.low, 1.5);
  EXPECT_DOUBLE_EQ(r.high, 3.0);
}

TEST(StatsBootstrap, ReproducibleForASeed) {
  const std::vector<double> cur{90.1, 88.7, 91.5, 89.2, 90.8};
  const std::vector<double> base{100.2, 99.1, 101.4, 98.8, 100.9};
  const RatioInterval a = bootstrap_ratio_ci(cur, base, {.seed = 42});
  const RatioInterval b = bootstrap_ratio_ci(cur, base, {.seed = 42});
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  const RatioInterval c = bootstrap_ratio_ci(cur, base, {.seed = 43});
  EXPECT_NE(a.low, c.low);
  // About 0.9x: the interval holds the estimate and excludes 1.
  EXPECT_LT(a.low, a.estimate);
  EXPECT_GT(a.high, a.estimate);
  EXPECT_LT(a.high, 1.0);
  EXPECT_GT(a.low, 0.85);
  const RatioInterval h = bootstrap_ratio_ci(cur, base, {.mean = MeanKind::kHarmonic});
  EXPECT_NEAR(h.estimate, 0.8995, 0.001);
}

TEST(StatsBootstrap, ConstantSamplesGiveAPoint) {
  const std::vector<double> x{2, 2, 2}, y{4, 4};
  const RatioInterval r = bootstrap_ratio_ci(x, y);
  EXPECT_EQ(r.low, 0.5);
  EXPECT_EQ(r.high, 0.5);
}

TEST(StatsBootstrap, UndefinedRatios) {
  const std::vector<double> x{1, 2}, zero{0, 1}, empty;
  EXPECT_TRUE(std::isnan(bootstrap_ratio_ci(x, zero).estimate));
  EXPECT_TRUE(std::isnan(bootstrap_ratio_ci(empty, x).estimate));
  EXPECT_EQ(bootstrap_ratio_ci(zero, x, {.mean = MeanKind::kHarmonic}).estimate, 0.0);
}

}  // namespace
}  // namespace rtgate::stats
