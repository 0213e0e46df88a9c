#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "framework/stats/histogram_ranks.h"
#include "framework/stats/quantile_ci.h"

namespace rtgate::stats {
namespace {

// Ranks l = qbinom((1-c)/2, n, q), u = qbinom((1+c)/2, n, q) + 1 and coverage
// pbinom(u-1, n, q) - pbinom(l-1, n, q), computed with scipy 1.10.1 (binom.ppf, binom.cdf; same
// definitions as R's qbinom/pbinom). The n = 10 median row is also the textbook table entry
// (Conover, Practical Nonparametric Statistics, table A3 / Hollander & Wolfe): (X(2), X(9)) with
// confidence 1 - 2 * 11/1024 = 0.978515625.
struct RankCase {
  std::uint64_t n;
  double q, confidence;
  std::uint64_t lower, upper;
  double coverage;
};
const RankCase kRankCases[] = {
    {10, 0.5, 0.95, 2, 9, 0.978515625},
    {100, 0.5, 0.95, 40, 61, 0.9647997997822952},
    {20, 0.9, 0.95, 15, 21, 0.988746865835491},  // 21 = n + 1: no upper bound
    {1000, 0.999, 0.95, 997, 1001, 0.9810731665496395},
    {5000, 0.999, 0.9875, 4989, 5001, 0.9945716126181947},
    {100000, 0.99, 0.95, 98938, 99062, 0.9512338612967913},
    {100000, 0.999, 0.95, 99880, 99920, 0.9547890568019047},
};

TEST(StatsQuantileCi, RanksMatchBinomialQuantiles) {
  for (const RankCase& c : kRankCases) {
    SCOPED_TRACE(testing::Message() << "n=" << c.n << " q=" << c.q);
    const RankInterval r = quantile_ci_ranks(c.n, c.q, c.confidence);
    EXPECT_EQ(r.lower, c.lower);
    EXPECT_EQ(r.upper, c.upper);
    EXPECT_NEAR(r.coverage, c.coverage, 1e-9);
    EXPECT_GE(r.coverage, c.confidence);
  }
  EXPECT_EQ(binomial_quantile(0.025, 100, 0.5), 40u);  // qbinom(0.025, 100, 0.5) = 40
  EXPECT_THROW(quantile_ci_ranks(0, 0.5, 0.95), std::invalid_argument);
  EXPECT_THROW(quantile_ci_ranks(10, 1.0, 0.95), std::invalid_argument);
}

TEST(StatsQuantileCi, OnSortedSamples) {
  std::vector<double> xs;
  for (int i = 1; i <= 10; ++i) xs.push_back(10.0 * i);
  const QuantileCi ci = quantile_ci(xs, 0.5, 0.95);
  EXPECT_EQ(ci.estimate, 50);                          // nearest rank ceil(5) = 5
  EXPECT_EQ(ci.low, 20);                               // X(2)
  EXPECT_EQ(ci.high, 90);                              // X(9)
  const QuantileCi tail = quantile_ci(xs, 0.9, 0.95);  // too few samples for an upper bound
  EXPECT_TRUE(std::isinf(tail.high));
  EXPECT_TRUE(std::isnan(quantile_ci(std::vector<double>{}, 0.5, 0.95).low));
}

// Distribution-free: the interval covers the true quantile of an exponential distribution at
// least as often as promised (2000 seeded trials; 3 standard errors of slack).
TEST(StatsQuantileCi, CoverageOnExponentialSamples) {
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> expo(1.0);
  const double q = 0.9, truth = -std::log(1 - q);
  int covered = 0;
  constexpr int kTrials = 2000;
  std::vector<double> xs(200);
  for (int t = 0; t < kTrials; ++t) {
    for (double& x : xs) x = expo(rng);
    std::sort(xs.begin(), xs.end());
    const QuantileCi ci = quantile_ci(xs, q, 0.95);
    covered += ci.low <= truth && truth <= ci.high;
  }
  EXPECT_GE(covered, static_cast<int>(kTrials * (0.95 - 3 * std::sqrt(0.95 * 0.05 / kTrials))));
}

// Samples below 64 ns have one bucket per value: the histogram interval equals the samples'.
// Above, the histogram interval contains the samples' (bucket edges only widen it).
TEST(StatsQuantileCi, HistogramMatchesSamplesWhereExactAndContainsThemElsewhere) {
  std::mt19937_64 rng(3);
  for (const std::uint64_t top : {63u, 100000u}) {
    std::uniform_int_distribution<std::int64_t> dist(0, static_cast<std::int64_t>(top));
    LatencyHistogram h;
    std::vector<double> xs;
    for (int i = 0; i < 5000; ++i) {
      const std::int64_t v = dist(rng);
      h.record(v);
      xs.push_back(static_cast<double>(v));
    }
    std::sort(xs.begin(), xs.end());
    for (const double q : {0.5, 0.9, 0.99, 0.999}) {
      SCOPED_TRACE(testing::Message() << "top=" << top << " q=" << q);
      const QuantileCi hs = quantile_ci(h, q, 0.95);
      const QuantileCi ss = quantile_ci(xs, q, 0.95);
      EXPECT_EQ(hs.ranks.lower, ss.ranks.lower);
      if (top < 64) {
        EXPECT_EQ(hs.low, ss.low);
        EXPECT_EQ(hs.high, ss.high);
        EXPECT_EQ(hs.estimate, ss.estimate);
      } else {
        EXPECT_LE(hs.low, ss.low);
        EXPECT_GE(hs.high, ss.high);
        EXPECT_LE(hs.high, ss.high * (1 + 1.0 / 64) + 1);
      }
    }
  }
}

// Buckets by hand: 1000 and 1003 share [1000, 1008) (width 8 between 512 and 1024), 1010 is in
// [1008, 1016); min 100 and max 5000 are exact.
LatencyHistogram small_histogram() {
  LatencyHistogram h;
  for (const std::int64_t v : {100, 1000, 1003, 1010, 5000}) h.record(v);
  return h;
}

TEST(StatsHistogramRanks, ValueAtRank) {
  const LatencyHistogram h = small_histogram();
  EXPECT_EQ(value_at_rank(h, 1).low, 100u);
  EXPECT_EQ(value_at_rank(h, 1).high, 100u);
  EXPECT_EQ(value_at_rank(h, 2).low, 1000u);
  EXPECT_EQ(value_at_rank(h, 2).high, 1007u);
  EXPECT_EQ(value_at_rank(h, 3).high, 1007u);
  EXPECT_EQ(value_at_rank(h, 4).low, 1008u);
  EXPECT_EQ(value_at_rank(h, 4).high, 1015u);
  EXPECT_EQ(value_at_rank(h, 5).low, 5000u);
  EXPECT_EQ(value_at_rank(h, 5).high, 5000u);
  EXPECT_THROW(value_at_rank(h, 0), std::out_of_range);
  EXPECT_THROW(value_at_rank(h, 6), std::out_of_range);
}

TEST(StatsHistogramRanks, CountAbove) {
  const LatencyHistogram h = small_histogram();
  auto check = [&](std::uint64_t threshold, std::uint64_t low, std::uint64_t high) {
    SCOPED_TRACE(threshold);
    const CountRange c = count_above(h, threshold);
    EXPECT_EQ(c.low, low);
    EXPECT_EQ(c.high, high);
  };
  check(1007, 2, 2);  // 1008 is a bucket edge: exact (1010, 5000)
  check(1001, 2, 4);  // straddles [1000, 1008): the truth, 3, is inside
  check(99, 5, 5);
  check(100, 4, 4);
  check(5000, 0, 0);
  check(4999, 1, 1);  // only the exact max
  // The threshold the gate uses, a quantile() value, is always a bucket edge minus one.
  const std::uint64_t p50 = h.quantile(0.5);
  EXPECT_EQ(count_above(h, p50).low, count_above(h, p50).high);
}

TEST(StatsHistogramRanks, Overflow) {
  LatencyHistogram h;
  h.record(10);
  h.record(20);
  h.record(static_cast<std::int64_t>(LatencyHistogram::kRangeEnd) * 2);
  EXPECT_EQ(value_at_rank(h, 3).low, LatencyHistogram::kRangeEnd * 2);  // the exact max
  EXPECT_EQ(count_above(h, 20).low, 1u);
  EXPECT_EQ(count_above(h, LatencyHistogram::kRangeEnd + 5).low, 1u);  // below the exact max
  h.record(static_cast<std::int64_t>(LatencyHistogram::kRangeEnd) + 1);
  const ValueRange r = value_at_rank(h, 3);  // an overflowed sample that is not the max
  EXPECT_EQ(r.low, LatencyHistogram::kRangeEnd);
  EXPECT_EQ(r.high, LatencyHistogram::kRangeEnd * 2);
  const CountRange c = count_above(h, LatencyHistogram::kRangeEnd + 5);
  EXPECT_EQ(c.low, 1u);
  EXPECT_EQ(c.high, 2u);
}

}  // namespace
}  // namespace rtgate::stats
