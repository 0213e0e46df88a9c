#include "results/latency_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace rtgate {
namespace {

// Nearest-rank quantile of a sorted array: the oracle the histogram is checked against.
std::uint64_t oracle(const std::vector<std::uint64_t>& sorted, double q) {
  auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  rank = std::clamp<std::size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

TEST(LatencyHistogram, BucketsTileTheRangeWithoutGapsOrOverlap) {
  EXPECT_EQ(LatencyHistogram::bucket_lower(0), 0u);
  for (std::size_t i = 0; i + 1 < LatencyHistogram::kBuckets; ++i) {
    ASSERT_EQ(LatencyHistogram::bucket_upper(i), LatencyHistogram::bucket_lower(i + 1)) << i;
    ASSERT_LT(LatencyHistogram::bucket_lower(i), LatencyHistogram::bucket_upper(i)) << i;
  }
  EXPECT_EQ(LatencyHistogram::bucket_upper(LatencyHistogram::kBuckets - 1),
            LatencyHistogram::kRangeEnd);
  // At least 10 s of range, as the foundation issue asks.
  EXPECT_GE(LatencyHistogram::kRangeEnd, 10'000'000'000u);
}

TEST(LatencyHistogram, EveryValueLandsInTheBucketThatContainsIt) {
  std::mt19937_64 rng(1);
  std::vector<std::uint64_t> probes = {
      0, 1, 63, 64, 65, 127, 128, 1000, 999'999, 1'000'000, LatencyHistogram::kRangeEnd - 1};
  for (int i = 0; i < 100000; ++i) probes.push_back(rng() % LatencyHistogram::kRangeEnd);
  for (std::uint64_t v : probes) {
    const std::size_t i = LatencyHistogram::bucket_index(v);
    ASSERT_LT(i, LatencyHistogram::kBuckets);
    ASSERT_LE(LatencyHistogram::bucket_lower(i), v);
    ASSERT_GT(LatencyHistogram::bucket_upper(i), v);
    // Relative width bound: the whole point of the log-linear layout.
    const std::uint64_t width =
        LatencyHistogram::bucket_upper(i) - LatencyHistogram::bucket_lower(i);
    ASSERT_LE(width * LatencyHistogram::kSubCount, std::max<std::uint64_t>(v, 64)) << v;
  }
}

TEST(LatencyHistogram, ExactMinMaxCountMeanAndStddev) {
  LatencyHistogram h;
  for (std::int64_t v : {5000, 7000, 12345, 9}) h.record(v);
  EXPECT_EQ(h.count(), 4u);
  EXPECT_EQ(h.min(), 9u);
  EXPECT_EQ(h.max(), 12345u);
  EXPECT_DOUBLE_EQ(h.mean(), (5000 + 7000 + 12345 + 9) / 4.0);
  const double m = h.mean();
  const double var = ((5000 - m) * (5000 - m) + (7000 - m) * (7000 - m) +
                      (12345 - m) * (12345 - m) + (9 - m) * (9 - m)) /
                     4;
  EXPECT_NEAR(h.stddev(), std::sqrt(var), 1e-6);
}

TEST(LatencyHistogram, EmptyHistogramReportsZeros) {
  LatencyHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.quantile(0.99), 0u);
  EXPECT_TRUE(h.buckets().empty());
}

TEST(LatencyHistogram, NegativeValuesCountAsZero) {
  LatencyHistogram h;
  h.record(-5);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.quantile(0.5), 0u);
}

// Against a sorted-array oracle on random latency-like data (log-normal body plus a heavy
// tail): every quantile is >= the true one and above it by at most one bucket, i.e. by at
// most 1/64 of the value (1.6%) or 1 ns in the exact region below 64 ns.
TEST(LatencyHistogram, QuantilesMatchSortedOracleWithinOneBucket) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> body(std::log(20'000.0), 0.6);
  std::exponential_distribution<double> tail(1.0 / 2e6);
  for (int trial = 0; trial < 20; ++trial) {
    LatencyHistogram h;
    std::vector<std::uint64_t> xs;
    const int n = 1000 + trial * 5000;
    for (int i = 0; i < n; ++i) {
      const double v = (rng() % 100 == 0) ? tail(rng) : body(rng);
      xs.push_back(static_cast<std::uint64_t>(v));
      h.record(static_cast<std::int64_t>(v));
    }
    std::sort(xs.begin(), xs.end());
    for (double q : {0.0, 0.01, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0}) {
      const std::uint64_t exact = oracle(xs, q);
      const std::uint64_t est = h.quantile(q);
      ASSERT_GE(est, exact) << "q=" << q << " n=" << n;
      ASSERT_LE(est - exact, std::max<std::uint64_t>(exact / 64, 1)) << "q=" << q << " n=" << n;
    }
    EXPECT_EQ(h.quantile(1.0), xs.back());
    EXPECT_EQ(h.quantile(0.0), xs.front());
  }
}

TEST(LatencyHistogram, OverflowIsCountedAndMaxStaysExact) {
  LatencyHistogram h;
  h.record(1000);
  h.record(static_cast<std::int64_t>(LatencyHistogram::kRangeEnd) + 123);
  h.record(60'000'000'000);  // one minute
  EXPECT_EQ(h.count(), 3u);
  EXPECT_EQ(h.overflow(), 2u);
  EXPECT_EQ(h.max(), 60'000'000'000u);
  // The overflowed samples rank above every bucket.
  EXPECT_EQ(h.quantile(0.9), 60'000'000'000u);
  EXPECT_EQ(h.quantile(0.3), h.quantile(0.0));
  std::uint64_t in_buckets = 0;
  for (const Bucket& b : h.buckets()) in_buckets += b.count;
  EXPECT_EQ(in_buckets, 1u);
}

TEST(LatencyHistogram, MergeEqualsRecordingEverythingInOne) {
  std::mt19937_64 rng(7);
  LatencyHistogram a, b, all;
  for (int i = 0; i < 50000; ++i) {
    const auto v = static_cast<std::int64_t>(rng() % 5'000'000);
    (i % 3 ? a : b).record(v);
    all.record(v);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  EXPECT_DOUBLE_EQ(a.mean(), all.mean());
  EXPECT_DOUBLE_EQ(a.stddev(), all.stddev());
  for (double q : {0.5, 0.99, 0.999}) EXPECT_EQ(a.quantile(q), all.quantile(q));
  const auto ba = a.buckets(), bb = all.buckets();
  ASSERT_EQ(ba.size(), bb.size());
  for (std::size_t i = 0; i < ba.size(); ++i) EXPECT_EQ(ba[i].count, bb[i].count);
}

TEST(LatencyHistogram, RestoreRebuildsTheSameHistogram) {
  std::mt19937_64 rng(3);
  LatencyHistogram h;
  for (int i = 0; i < 10000; ++i) h.record(static_cast<std::int64_t>(rng() % 100'000'000));
  h.record(static_cast<std::int64_t>(LatencyHistogram::kRangeEnd) * 2);
  LatencyHistogram r;
  ASSERT_TRUE(
      r.restore(h.buckets(), h.count(), h.min(), h.max(), h.mean(), h.stddev(), h.overflow()));
  EXPECT_EQ(r.count(), h.count());
  EXPECT_EQ(r.overflow(), h.overflow());
  EXPECT_EQ(r.max(), h.max());
  EXPECT_EQ(r.min(), h.min());
  EXPECT_NEAR(r.mean(), h.mean(), 1e-6 * h.mean());
  EXPECT_NEAR(r.stddev(), h.stddev(), 1e-6 * h.stddev());
  for (double q : {0.5, 0.99, 0.9999, 1.0}) EXPECT_EQ(r.quantile(q), h.quantile(q));
}

TEST(LatencyHistogram, RestoreRejectsForeignLayoutsAndBadCounts) {
  LatencyHistogram r;
  EXPECT_FALSE(r.restore({{100, 200, 1}}, 1, 150, 150, 150, 0, 0));       // not a bucket here
  EXPECT_FALSE(r.restore({{1000, 1008, 2}}, 5, 1000, 1001, 1000, 0, 0));  // counts disagree
  EXPECT_TRUE(r.restore({{1000, 1008, 2}}, 2, 1000, 1001, 1000.5, 0.5, 0));
}

// Exported data is input: what quantile() and the sums rely on is checked.
TEST(LatencyHistogram, RestoreRejectsWhatQuantileCannotHandle) {
  LatencyHistogram r;
  EXPECT_FALSE(r.restore({{1000, 1008, 2}}, 2, 1005, 1001, 1003, 0.5, 0));  // min > max
  EXPECT_FALSE(r.restore({{1000, 1008, 2}}, 2, 2000, 3000, 2500, 0.5, 0));  // bucket below min
  EXPECT_FALSE(r.restore({{1000, 1008, 2}}, 2, 10, 20, 15, 0.5, 0));        // bucket above max
  // Counts that add up only by wrapping around 2^64.
  const std::uint64_t big = std::numeric_limits<std::uint64_t>::max();
  EXPECT_FALSE(r.restore({{1000, 1008, big}, {1008, 1016, 3}}, 2, 1000, 1010, 1005, 1, 0));
  EXPECT_FALSE(r.restore({{1000, 1008, 2}}, 2, 1000, 1001, std::nan(""), 0.5, 0));
  EXPECT_FALSE(r.restore({{1000, 1008, 2}}, 2, 1000, 1001, 1e300, 0.5, 0));   // mean > max
  EXPECT_FALSE(r.restore({{1000, 1008, 2}}, 2, 1000, 1001, 1000.5, -1, 0));   // stddev < 0
  EXPECT_FALSE(r.restore({{1000, 1008, 2}}, 3, 1000, 1001, 1000.5, 0.5, 1));  // overflow < 2^34
  EXPECT_FALSE(r.restore({}, 1, 0, 0, 0, 0, 2));                              // overflow > count
  // An empty histogram ignores min and max, as the writer writes them as 0 anyway.
  ASSERT_TRUE(r.restore({}, 0, 7, 3, 0, 0, 0));
  EXPECT_EQ(r.quantile(0.99), 0u);
  EXPECT_EQ(r.max(), 0u);
}

}  // namespace
}  // namespace rtgate
