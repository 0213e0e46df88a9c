#include "results/latency_histogram.h"

#include <algorithm>
#include <cmath>

namespace rtgate {

void LatencyHistogram::make_dense() {
  counts_.assign(kBuckets, 0);
  for (const Sparse& s : sparse_) counts_[s.index] = s.count;
  sparse_.clear();
  sparse_.shrink_to_fit();
}

void LatencyHistogram::compact() {
  if (counts_.empty()) return;
  std::size_t n = 0;
  for (std::uint64_t c : counts_) n += c != 0;
  sparse_.clear();
  sparse_.reserve(n);
  for (std::size_t i = 0; i < kBuckets; ++i) {
    if (counts_[i] != 0) sparse_.push_back({counts_[i], static_cast<std::uint32_t>(i)});
  }
  counts_.clear();
  counts_.shrink_to_fit();
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  if (counts_.empty() && other.counts_.empty()) {
    std::vector<Sparse> merged;
    merged.reserve(sparse_.size() + other.sparse_.size());
    auto a = sparse_.cbegin();
    auto b = other.sparse_.cbegin();
    while (a != sparse_.cend() || b != other.sparse_.cend()) {
      if (b == other.sparse_.cend() || (a != sparse_.cend() && a->index < b->index)) {
        merged.push_back(*a++);
      } else if (a == sparse_.cend() || b->index < a->index) {
        merged.push_back(*b++);
      } else {
        merged.push_back({a->count + b->count, a->index});
        ++a, ++b;
      }
    }
    sparse_ = std::move(merged);
  } else {
    if (counts_.empty()) make_dense();
    other.for_each_bucket([&](std::size_t i, std::uint64_t c) { counts_[i] += c; });
  }
  count_ += other.count_;
  overflow_ += other.overflow_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
  sum_sq_ += other.sum_sq_;
}

void LatencyHistogram::reset() { *this = LatencyHistogram{}; }

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
  // The upper edge is exclusive; the largest value in the bucket is upper - 1.
  const auto edge = [&](std::size_t i) { return std::clamp(bucket_upper(i) - 1, min(), max_); };
  if (counts_.empty()) {
    for (const Sparse& s : sparse_) {
      seen += s.count;
      if (seen >= rank) return edge(s.index);
    }
  } else {
    for (std::size_t i = 0; i < kBuckets; ++i) {
      seen += counts_[i];
      if (seen >= rank) return edge(i);
    }
  }
  return max_;  // the rank lies among the overflowed samples
}

std::vector<Bucket> LatencyHistogram::buckets() const {
  std::vector<Bucket> out;
  for_each_bucket([&](std::size_t i, std::uint64_t c) {
    out.push_back({bucket_lower(i), bucket_upper(i), c});
  });
  return out;
}

bool LatencyHistogram::restore(const std::vector<Bucket>& buckets, std::uint64_t count,
                               std::uint64_t min, std::uint64_t max, double mean, double stddev,
                               std::uint64_t overflow) {
  std::vector<std::pair<std::uint32_t, std::uint64_t>> indexed;
  indexed.reserve(buckets.size());
  for (const Bucket& b : buckets) {
    const std::optional<std::size_t> i = index_of(b.lower_ns, b.upper_ns);
    if (!i) return reset(), false;
    indexed.emplace_back(static_cast<std::uint32_t>(*i), b.count);
  }
  return restore_indexed(std::move(indexed), count, min, max, mean, stddev, overflow);
}

bool LatencyHistogram::restore_indexed(std::vector<std::pair<std::uint32_t, std::uint64_t>> buckets,
                                       std::uint64_t count, std::uint64_t min, std::uint64_t max,
                                       double mean, double stddev, std::uint64_t overflow) {
  // Exported data is input: everything quantile() and the sums rely on is checked here, so
  // that min <= max holds for its clamp and no count or sum wraps.
  if (count == 0) {
    min = 0;
    max = 0;
  }
  if (min > max || overflow > count || !std::isfinite(mean) || !std::isfinite(stddev) ||
      stddev < 0) {
    return reset(), false;
  }
  if (overflow > 0 && max < kRangeEnd)
    return reset(), false;  // an overflowed sample is >= kRangeEnd
  // The mean lies in [min, max], up to the rounding of a double.
  const long double lo = static_cast<long double>(min) * (1 - 1e-9L) - 1;
  const long double hi = static_cast<long double>(max) * (1 + 1e-9L) + 1;
  if (count > 0 && (mean < lo || mean > hi)) return reset(), false;
  std::sort(buckets.begin(), buckets.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Sparse> sparse;
  sparse.reserve(buckets.size());
  std::uint64_t in_buckets = 0;
  for (const auto& [i, c] : buckets) {
    if (i >= kBuckets) return reset(), false;
    if (c == 0) continue;
    // A sample in the bucket is in [lower, upper - 1]; it must also be in [min, max].
    if (bucket_upper(i) - 1 < min || bucket_lower(i) > max) return reset(), false;
    if (c > count - in_buckets) return reset(), false;  // more samples than count (and no wrap)
    in_buckets += c;
    if (!sparse.empty() && sparse.back().index == i) {
      sparse.back().count += c;
    } else {
      sparse.push_back({c, i});
    }
  }
  if (in_buckets != count - overflow) return reset(), false;
  constexpr long double kUint128End = 0x1p128L;
  const long double n = static_cast<long double>(count);
  const long double s = std::max(0.0L, std::roundl(static_cast<long double>(mean) * n));
  const long double var = static_cast<long double>(stddev) * stddev;
  const long double ss = (var + static_cast<long double>(mean) * mean) * n;
  if (!(s < kUint128End) || !(ss < kUint128End)) return reset(), false;
  counts_.clear();
  counts_.shrink_to_fit();
  sparse_ = std::move(sparse);
  count_ = count;
  overflow_ = overflow;
  min_ = count ? min : std::numeric_limits<std::uint64_t>::max();
  max_ = max;
  sum_ = static_cast<Uint128>(s);
  sum_sq_ = static_cast<Uint128>(ss);
  return true;
}

}  // namespace rtgate
