#include "gate/history/change_points.h"

#include <gtest/gtest.h>

#include <random>

namespace rtgate::gate {
namespace {

// A series of `n` session values, N(level, sd^2), seeded.
std::vector<double> noise(int n, double level, double sd, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0, 1);
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(level + sd * z(rng));
  return out;
}

std::vector<int> kernels(int n, int per_kernel) {
  std::vector<int> out;
  for (int i = 0; i < n; ++i) out.push_back(i / per_kernel);
  return out;
}

// The levels a 100-metric family tests a statistic at (alpha 0.05 / 100 / 3).
ChangePointTest gate_level() { return {.alpha = 0.05 / 300, .newest_alpha = 0.05 / 300}; }

TEST(ChangePoints, AFlatSeriesHasNone) {
  const auto x = noise(50, 10, 0.05, 1);
  const SeriesFindings f = find_changes(x, kernels(50, 5), gate_level());
  EXPECT_TRUE(f.changes.empty());
  ASSERT_EQ(f.newest.at, 45);
  EXPECT_FALSE(f.newest.found);
  EXPECT_EQ(f.newest.before, 45);
  EXPECT_EQ(f.newest.after, 5);
  // The 90% interval holds the true 0 here, and the size this test detects is a few SDs.
  EXPECT_LT(f.newest.lo, 0);
  EXPECT_GT(f.newest.hi, 0);
  EXPECT_GT(f.newest.detectable, 0.05);
  EXPECT_LT(f.newest.detectable, 0.5);
}

TEST(ChangePoints, AStepIsFoundWhereItIs) {
  auto x = noise(30, 10, 0.05, 2);
  for (int i = 17; i < 30; ++i) x[static_cast<std::size_t>(i)] += 0.5;  // 10 SDs
  const SeriesFindings f = find_changes(x, kernels(30, 1), gate_level());
  ASSERT_EQ(f.changes.size(), 1U);
  EXPECT_EQ(f.changes[0].at, 17);
  EXPECT_NEAR(f.changes[0].size, 0.5, 0.1);
  EXPECT_LT(f.changes[0].lo, 0.5);
  EXPECT_GT(f.changes[0].hi, 0.5);
}

TEST(ChangePoints, TwoStepsAreBothFound) {
  auto x = noise(45, 10, 0.05, 3);
  for (int i = 15; i < 45; ++i) x[static_cast<std::size_t>(i)] += 0.5;
  for (int i = 30; i < 45; ++i) x[static_cast<std::size_t>(i)] -= 1.0;
  const SeriesFindings f = find_changes(x, kernels(45, 1), gate_level());
  ASSERT_EQ(f.changes.size(), 2U);
  EXPECT_EQ(f.changes[0].at, 15);
  EXPECT_EQ(f.changes[1].at, 30);
  EXPECT_GT(f.changes[0].size, 0);
  EXPECT_LT(f.changes[1].size, 0);
}

// One wild session is an outlier, not a change: the Hampel filter bounds it. Without the filter
// the single split beside it would be a change point at this length.
TEST(ChangePoints, OneOutlierSessionIsNoChange) {
  for (int where : {0, 10, 25, 48, 49}) {
    auto x = noise(50, 10, 0.05, 4);
    x[static_cast<std::size_t>(where)] += 5;  // 100 SDs
    const SeriesFindings f = find_changes(x, kernels(50, 1), gate_level());
    EXPECT_TRUE(f.changes.empty()) << "outlier at " << where;
  }
}

TEST(ChangePoints, TheNewestKernelsSessionsAreTestedAgainstTheSegmentBefore) {
  auto x = noise(23, 10, 0.05, 5);
  std::vector<int> k(20, 0);
  k.insert(k.end(), 3, 1);
  for (int i = 20; i < 23; ++i) x[static_cast<std::size_t>(i)] += 0.4;  // 8 SDs, worse
  const SeriesFindings f = find_changes(x, k, gate_level());
  EXPECT_EQ(f.newest.at, 20);
  EXPECT_TRUE(f.newest.found);
  EXPECT_NEAR(f.newest.size, 0.4, 0.1);
  // The same step in the better direction is not a worse segment.
  ChangePointTest lower_is_worse = gate_level();
  lower_is_worse.higher_is_worse = false;
  EXPECT_FALSE(find_changes(x, k, lower_is_worse).newest.found);
}

TEST(ChangePoints, OneSessionOfTheNewestKernelIsAPredictionTest) {
  auto x = noise(21, 10, 0.05, 6);
  std::vector<int> k(20, 0);
  k.push_back(1);
  x[20] += 0.6;  // 12 SDs
  const SeriesFindings f = find_changes(x, k, gate_level());
  EXPECT_EQ(f.newest.after, 1);
  EXPECT_TRUE(f.newest.found);
  x[20] -= 0.55;  // 1 SD
  EXPECT_FALSE(find_changes(x, k, gate_level()).newest.found);
}

TEST(ChangePoints, TooFewSessionsBeforeTheNewestKernelAreNotTested) {
  const auto x = noise(6, 10, 0.05, 7);
  const SeriesFindings f = find_changes(x, {0, 0, 1, 1, 1, 1}, gate_level());
  EXPECT_EQ(f.newest.at, -1);
  EXPECT_FALSE(f.newest.found);
  // One kernel: nothing before it.
  EXPECT_EQ(find_changes(noise(20, 10, 0.05, 8), kernels(20, 20), gate_level()).newest.at, -1);
}

TEST(ChangePoints, ASlowDriftIsMeasuredPerKernel) {
  auto x = noise(24, 10, 0.01, 9);
  const auto k = kernels(24, 3);
  for (int i = 0; i < 24; ++i)
    x[static_cast<std::size_t>(i)] += 0.03 * k[static_cast<std::size_t>(i)];
  const SeriesFindings f = find_changes(x, k, {.alpha = 1e-12, .newest_alpha = 1e-12});
  ASSERT_TRUE(f.changes.empty());
  EXPECT_EQ(f.drift.kernels, 8);
  EXPECT_NEAR(f.drift.per_kernel, 0.03, 0.005);
  EXPECT_GT(f.drift.lo, 0);
}

TEST(ChangePoints, IdenticalSessionsNeitherDivideByZeroNorChange) {
  const std::vector<double> x(30, 10.0);
  const SeriesFindings f = find_changes(x, kernels(30, 3), gate_level());
  EXPECT_TRUE(f.changes.empty());
  EXPECT_FALSE(f.newest.found);
  EXPECT_TRUE(std::isfinite(f.newest.size));
}

TEST(ChangePoints, HampelKeepsAStepAndClipsASpike) {
  std::vector<double> x(20, 1.0);
  for (int i = 10; i < 20; ++i) x[static_cast<std::size_t>(i)] = 2.0;
  x[5] = 50;
  x[3] = 1.01;
  const auto y = hampel_clean(x, 4, 0.01);
  EXPECT_LT(y[5], 1.2);
  EXPECT_DOUBLE_EQ(y[9], 1.0);
  EXPECT_DOUBLE_EQ(y[10], 2.0);
  EXPECT_DOUBLE_EQ(y[19], 2.0);
}

TEST(ChangePoints, EmptyAndShortSeries) {
  EXPECT_TRUE(find_changes({}, {}, gate_level()).changes.empty());
  EXPECT_TRUE(find_changes({1.0}, {0}, gate_level()).changes.empty());
  EXPECT_TRUE(find_changes({1.0, 2.0, 3.0}, {0, 1, 2}, gate_level()).changes.empty());
}

}  // namespace
}  // namespace rtgate::gate
