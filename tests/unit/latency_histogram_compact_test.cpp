// The compact form of LatencyHistogram: a restored or compact()ed histogram holds only
// its non-empty buckets and answers every question as the dense one does; merging and recording
// work across the two forms.
#include <gtest/gtest.h>

#include <random>

#include "results/latency_histogram.h"

namespace rtgate {
namespace {

LatencyHistogram recorded(std::uint64_t seed, int n, double sigma = 0.8) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(std::log(20'000.0), sigma);
  LatencyHistogram h;
  for (int i = 0; i < n; ++i) h.record(static_cast<std::int64_t>(d(rng)));
  return h;
}

void expect_same(const LatencyHistogram& a, const LatencyHistogram& b) {
  EXPECT_EQ(a.count(), b.count());
  EXPECT_EQ(a.min(), b.min());
  EXPECT_EQ(a.max(), b.max());
  EXPECT_EQ(a.overflow(), b.overflow());
  EXPECT_DOUBLE_EQ(a.mean(), b.mean());
  EXPECT_DOUBLE_EQ(a.stddev(), b.stddev());
  for (double q : {0.0, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0}) {
    EXPECT_EQ(a.quantile(q), b.quantile(q)) << q;
  }
  const auto ba = a.buckets(), bb = b.buckets();
  ASSERT_EQ(ba.size(), bb.size());
  for (std::size_t i = 0; i < ba.size(); ++i) {
    EXPECT_EQ(ba[i].lower_ns, bb[i].lower_ns);
    EXPECT_EQ(ba[i].count, bb[i].count);
  }
}

TEST(LatencyHistogramCompact, CompactAnswersAsDense) {
  const LatencyHistogram dense = recorded(1, 100'000);
  LatencyHistogram c = dense;
  c.compact();
  EXPECT_TRUE(c.is_compact());
  EXPECT_FALSE(dense.is_compact());
  expect_same(c, dense);
}

TEST(LatencyHistogramCompact, MergesInEveryCombinationEqualOneRecording) {
  const LatencyHistogram a = recorded(2, 30'000), b = recorded(3, 50'000);
  LatencyHistogram all = a;
  all.merge(b);
  for (int form = 0; form < 4; ++form) {
    LatencyHistogram x = a, y = b;
    if (form & 1) x.compact();
    if (form & 2) y.compact();
    x.merge(y);
    EXPECT_EQ(x.is_compact(), form == 3) << form;  // two compact ones stay compact
    expect_same(x, all);
  }
}

TEST(LatencyHistogramCompact, RecordingIntoACompactHistogramMakesItDenseAgain) {
  LatencyHistogram h = recorded(4, 1000);
  LatencyHistogram expected = h;
  h.compact();
  h.record(123'456);
  expected.record(123'456);
  EXPECT_FALSE(h.is_compact());
  expect_same(h, expected);
}

TEST(LatencyHistogramCompact, RestoreIndexedIsCompactAndTakesAnyOrderAndRepeats) {
  const LatencyHistogram h = recorded(5, 20'000);
  std::vector<std::pair<std::uint32_t, std::uint64_t>> pairs;
  for (const Bucket& b : h.buckets()) {
    const auto i = static_cast<std::uint32_t>(LatencyHistogram::bucket_index(b.lower_ns));
    // Split each count in two entries, listed backwards: the reader must sum and sort.
    pairs.emplace_back(i, b.count / 2);
    pairs.emplace_back(i, b.count - b.count / 2);
  }
  std::reverse(pairs.begin(), pairs.end());
  LatencyHistogram r;
  ASSERT_TRUE(r.restore_indexed(pairs, h.count(), h.min(), h.max(), h.mean(), h.stddev(), 0));
  EXPECT_TRUE(r.is_compact());
  EXPECT_EQ(r.buckets().size(), h.buckets().size());
  for (double q : {0.5, 0.99, 0.9999}) EXPECT_EQ(r.quantile(q), h.quantile(q));
}

TEST(LatencyHistogramCompact, RestoreIndexedRefusesAnIndexPastTheLayout) {
  LatencyHistogram r;
  EXPECT_FALSE(r.restore_indexed({{static_cast<std::uint32_t>(LatencyHistogram::kBuckets), 1}}, 1,
                                 1, 1, 1, 0, 0));
  EXPECT_FALSE(r.is_compact());  // a refused restore leaves an empty dense histogram
  EXPECT_EQ(r.count(), 0u);
}

TEST(LatencyHistogramCompact, ACompactHistogramIsAFractionOfTheDenseOne) {
  // What makes a 10,000-case result fit in memory: a wakeup histogram (here about two octaves
  // wide, as on an RT kernel) has a hundred or two non-empty buckets of 16 bytes, the dense one
  // kBuckets of 8.
  LatencyHistogram h = recorded(6, 100'000, 0.25);
  std::size_t nonempty = h.buckets().size();
  h.compact();
  EXPECT_LT(nonempty * 16 * 3, LatencyHistogram::kBuckets * 8) << nonempty;
}

}  // namespace
}  // namespace rtgate
