#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "framework/stats/rate_test.h"

namespace rtgate::stats {
namespace {

// References from scipy 1.10.1: binomtest(kx, kx + ky, nx / (nx + ny), alternative=...).pvalue,
// and .proportion_ci(0.95, method='exact') (Clopper-Pearson) mapped to the rate ratio as
// p / (1 - p) * ny / nx. R gives the same as poisson.test(c(kx, ky), c(nx, ny), alternative=...).
struct RateCase {
  std::uint64_t kx, nx, ky, ny;
  Alternative alternative;
  double p, low, high;
};
constexpr double kInf = INFINITY;
const RateCase kCases[] = {
    {130, 100000, 100, 100000, Alternative::kGreater, 0.027806788890696196, 1.0361551431799179,
     kInf},
    {130, 100000, 100, 100000, Alternative::kLess, 0.9796437354499516, 0.0, 1.6335860887764362},
    {130, 100000, 100, 100000, Alternative::kTwoSided, 0.05561357778139239, 0.9939622683564097,
     1.7044993024473394},
    {25, 50000, 10, 60000, Alternative::kGreater, 0.0016902208898752244, 1.5506545435222066, kInf},
    {25, 50000, 10, 60000, Alternative::kTwoSided, 0.0032685869359778065, 1.3915427683106723,
     6.999255840402448},
    {3, 1000, 0, 1000, Alternative::kGreater, 0.125, 0.5832884533618781, kInf},
    {3, 1000, 0, 1000, Alternative::kTwoSided, 0.25, 0.413231355030894, kInf},
    {5, 1000, 12, 2000, Alternative::kGreater, 0.7186025543424469, 0.28250811769616674, kInf},
    {5, 1000, 12, 2000, Alternative::kLess, 0.4776651861590103, 0.0, 2.183380081615449},
    {5, 1000, 12, 2000, Alternative::kTwoSided, 1.0, 0.22999129974002583, 2.5411478730881334},
};

TEST(StatsRateTest, MatchesExactBinomialTest) {
  for (const RateCase& c : kCases) {
    SCOPED_TRACE(testing::Message() << c.kx << "/" << c.nx << " vs " << c.ky << "/" << c.ny << " "
                                    << to_string(c.alternative));
    const RateTestResult r = rate_test(c.kx, c.nx, c.ky, c.ny, c.alternative);
    EXPECT_NEAR(r.p_value, c.p, 1e-10);
    EXPECT_NEAR(r.ratio_low, c.low, 1e-8);
    if (std::isinf(c.high)) {
      EXPECT_TRUE(std::isinf(r.ratio_high));
    } else {
      EXPECT_NEAR(r.ratio_high, c.high, 1e-8);
    }
  }
}

TEST(StatsRateTest, Estimates) {
  const RateTestResult r = rate_test(25, 50000, 10, 60000);
  EXPECT_DOUBLE_EQ(r.rate_x, 25.0 / 50000);
  EXPECT_DOUBLE_EQ(r.ratio, (25.0 / 50000) / (10.0 / 60000));
  EXPECT_TRUE(std::isinf(rate_test(3, 1000, 0, 1000).ratio));
  const RateTestResult none = rate_test(0, 1000, 0, 1000);
  EXPECT_EQ(none.p_value, 1.0);
  EXPECT_TRUE(std::isnan(none.ratio));
  EXPECT_THROW(rate_test(1, 0, 0, 10), std::invalid_argument);
  EXPECT_THROW(rate_test(11, 10, 0, 10), std::invalid_argument);
}

}  // namespace
}  // namespace rtgate::stats
