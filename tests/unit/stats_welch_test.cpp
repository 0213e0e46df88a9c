#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "framework/stats/welch_t_test.h"

namespace rtgate::stats {
namespace {

// R's sleep data (Cushny & Peebles), the ?t.test example. R 4.x prints for
// t.test(extra ~ group, data = sleep): t = -1.8608, df = 17.776, p-value = 0.07939,
// 95 percent confidence interval -3.3654832 0.2054832. Full precision from scipy 1.10.1:
// scipy.stats.ttest_ind(g1, g2, equal_var=False) -> t -1.8608134674868526, p 0.07939414018735823;
// df by the Welch-Satterthwaite formula in numpy 17.776473516178495; interval from
// scipy.stats.t.ppf(0.975, df).
const std::vector<double> kSleep1{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
const std::vector<double> kSleep2{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};

TEST(StatsWelch, SleepDataMatchesR) {
  const WelchResult r = welch_t_test(kSleep1, kSleep2);
  EXPECT_NEAR(r.t, -1.8608134674868526, 1e-12);
  EXPECT_NEAR(r.df, 17.776473516178495, 1e-10);
  EXPECT_NEAR(r.p_value, 0.07939414018735823, 1e-10);
  EXPECT_NEAR(r.mean_diff, 0.75 - 2.33, 1e-12);  // R: mean in group 1 0.75, group 2 2.33
  EXPECT_NEAR(r.ci_low, -3.365483230711636, 1e-9);
  EXPECT_NEAR(r.ci_high, 0.20548323071163632, 1e-9);
}

// Unequal sizes, one-sided. scipy 1.10.1:
// ttest_ind(x, y, equal_var=False, alternative='greater') -> t 4.550593481899902,
// p 0.0021295052110482373; 'less' -> 0.9978704947889517; 'two-sided' -> 0.004259010422096475.
// df 5.786209980479313; 90% one-sided lower bound mean_diff - t.ppf(0.90, df) * se =
// 3.172097054639617. (R: t.test(x, y, alternative = "greater", conf.level = 0.9).)
TEST(StatsWelch, OneSidedUnequalSizes) {
  const std::vector<double> x{102.1, 98.7, 101.5, 99.9, 100.8};
  const std::vector<double> y{95.2, 97.9, 94.1, 96.6};
  const WelchResult g = welch_t_test(x, y, Alternative::kGreater, 0.90);
  EXPECT_NEAR(g.t, 4.550593481899902, 1e-12);
  EXPECT_NEAR(g.df, 5.786209980479313, 1e-10);
  EXPECT_NEAR(g.p_value, 0.0021295052110482373, 1e-12);
  EXPECT_NEAR(g.ci_low, 3.172097054639617, 1e-9);
  EXPECT_TRUE(std::isinf(g.ci_high));
  EXPECT_NEAR(welch_t_test(x, y, Alternative::kLess).p_value, 0.9978704947889517, 1e-12);
  EXPECT_NEAR(welch_t_test(x, y).p_value, 0.004259010422096475, 1e-12);
  // Swapping the samples mirrors the one-sided tests.
  EXPECT_NEAR(welch_t_test(y, x, Alternative::kLess).p_value, g.p_value, 1e-15);
}

TEST(StatsWelch, DegenerateInputs) {
  const std::vector<double> one{1.0};
  const std::vector<double> two{1.0, 2.0};
  EXPECT_TRUE(std::isnan(welch_t_test(one, two).p_value));
  const std::vector<double> a{5, 5, 5}, b{5, 5}, c{6, 6, 6};
  EXPECT_EQ(welch_t_test(a, b).p_value, 1.0);
  EXPECT_EQ(welch_t_test(a, c).p_value, 0.0);
  EXPECT_EQ(welch_t_test(a, c).ci_low, -1.0);
}

}  // namespace
}  // namespace rtgate::stats
