#include "framework/measure/latency_histogram.h"

#include <algorithm>
#include <cmath>

namespace rtgate {

void LatencyHistogram::merge(const LatencyHistogram& other) noexcept {
  for (std::size_t i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  overflow_ += other.overflow_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
  sum_sq_ += other.sum_sq_;
}

void LatencyHistogram::reset() noexcept { *this = LatencyHistogram{}; }

double LatencyHistogram::mean() const noexcept {
  return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0;
}

double LatencyHistogram::stddev() const noexcept {
  if (count_ < 2) return 0.0;
  // Exact integer arithmetic until the final division: n*sum_sq - sum^2 >= 0.
  const long double n = static_cast<long double>(count_);
  const long double s = static_cast<long double>(sum_);
  const long double ss = static_cast<long double>(sum_sq_);
  const long double var = (ss - s * s / n) / n;
  return var > 0 ? static_cast<double>(std::sqrt(var)) : 0.0;
}

std::uint64_t LatencyHistogram::quantile(double q) const noexcept {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_)));
  rank = std::clamp<std::uint64_t>(rank, 1, count_);
  // The extremes are known exactly; no need to round them to a bucket edge.
  if (rank == 1) return min();
  if (rank == count_) return max_;
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      // The upper edge is exclusive; the largest value in the bucket is upper - 1.
      return std::clamp(bucket_upper(i) - 1, min(), max_);
    }
  }
  return max_;  // the rank lies among the overflowed samples
}

std::vector<Bucket> LatencyHistogram::buckets() const {
  std::vector<Bucket> out;
  for (std::size_t i = 0; i < kBuckets; ++i) {
    if (counts_[i] != 0) out.push_back({bucket_lower(i), bucket_upper(i), counts_[i]});
  }
  return out;
}

bool LatencyHistogram::restore(const std::vector<Bucket>& buckets, std::uint64_t count,
                               std::uint64_t min, std::uint64_t max, double mean, double stddev,
                               std::uint64_t overflow) {
  reset();
  // Exported data is input: everything quantile() and the sums rely on is checked here, so
  // that min <= max holds for its clamp and no count or sum wraps.
  if (count == 0) {
    min = 0;
    max = 0;
  }
  if (min > max || overflow > count || !std::isfinite(mean) || !std::isfinite(stddev) ||
      stddev < 0) {
    return false;
  }
  if (overflow > 0 && max < kRangeEnd) return false;  // an overflowed sample is >= kRangeEnd
  // The mean lies in [min, max], up to the rounding of a double.
  const long double lo = static_cast<long double>(min) * (1 - 1e-9L) - 1;
  const long double hi = static_cast<long double>(max) * (1 + 1e-9L) + 1;
  if (count > 0 && (mean < lo || mean > hi)) return false;
  std::uint64_t in_buckets = 0;
  for (const Bucket& b : buckets) {
    if (b.lower_ns >= kRangeEnd) return false;
    const std::size_t i = bucket_index(b.lower_ns);
    if (bucket_lower(i) != b.lower_ns || bucket_upper(i) != b.upper_ns) return false;
    if (b.count == 0) continue;
    // A sample in the bucket is in [lower, upper - 1]; it must also be in [min, max].
    if (b.upper_ns - 1 < min || b.lower_ns > max) return false;
    if (b.count > count - in_buckets) return false;  // more samples than count (and no wrap)
    counts_[i] += b.count;
    in_buckets += b.count;
  }
  if (in_buckets != count - overflow) return false;
  count_ = count;
  overflow_ = overflow;
  min_ = count ? min : std::numeric_limits<std::uint64_t>::max();
  max_ = max;
  constexpr long double kUint128End = 0x1p128L;
  const long double n = static_cast<long double>(count);
  const long double s = std::max(0.0L, std::roundl(static_cast<long double>(mean) * n));
  const long double var = static_cast<long double>(stddev) * stddev;
  const long double ss = (var + static_cast<long double>(mean) * mean) * n;
  if (!(s < kUint128End) || !(ss < kUint128End)) return reset(), false;
  sum_ = static_cast<Uint128>(s);
  sum_sq_ = static_cast<Uint128>(ss);
  return true;
}

}  // namespace rtgate
