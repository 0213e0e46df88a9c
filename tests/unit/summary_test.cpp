#include "base/stats/summary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace rtgate::stats {
namespace {

// Reference values computed by hand (and with `awk`) for {2, 4, 4, 4, 5, 5, 7, 9}:
// mean 5, sample variance 32/7, Hmean 8 / (1/2+3/4+2/5+1/7+1/9).
TEST(Summary, KnownValues) {
  const std::vector<double> xs{2, 4, 4, 4, 5, 5, 7, 9};
  EXPECT_DOUBLE_EQ(amean(xs), 5.0);
  EXPECT_NEAR(stddev(xs), std::sqrt(32.0 / 7.0), 1e-12);
  EXPECT_NEAR(hmean(xs), 8.0 / (0.5 + 0.75 + 0.4 + 1.0 / 7 + 1.0 / 9), 1e-12);
  EXPECT_NEAR(coeff_var(xs), 100 * std::sqrt(32.0 / 7.0) / 5.0, 1e-12);
}

TEST(Summary, EdgeCases) {
  EXPECT_EQ(amean({}), 0);
  EXPECT_EQ(stddev(std::vector<double>{3}), 0);
  EXPECT_EQ(hmean(std::vector<double>{1, 0}), 0);  // undefined for a zero rate
  EXPECT_EQ(coeff_var(std::vector<double>{0, 0}), 0);
}

}  // namespace
}  // namespace rtgate::stats
