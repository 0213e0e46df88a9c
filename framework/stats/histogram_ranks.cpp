#include "framework/stats/histogram_ranks.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace rtgate::stats {

ValueRange value_at_rank(const LatencyHistogram& h, std::uint64_t rank) {
  const std::vector<Bucket> buckets = h.buckets();
  return value_at_rank(h, buckets, rank);
}

ValueRange value_at_rank(const LatencyHistogram& h, std::span<const Bucket> buckets,
                         std::uint64_t rank) {
  if (rank < 1 || rank > h.count()) {
    throw std::out_of_range("value_at_rank: rank " + std::to_string(rank) + " of " +
                            std::to_string(h.count()) + " samples");
  }
  if (rank == 1) return {h.min(), h.min()};
  if (rank == h.count()) return {h.max(), h.max()};
  std::uint64_t seen = 0;
  for (const Bucket& b : buckets) {
    seen += b.count;
    if (seen >= rank) {
      return {std::clamp(b.lower_ns, h.min(), h.max()),
              std::clamp(b.upper_ns - 1, h.min(), h.max())};
    }
  }
  // Beyond the buckets: an overflowed sample, at least the end of the range.
  return {std::clamp(LatencyHistogram::kRangeEnd, h.min(), h.max()), h.max()};
}

CountRange count_above(const LatencyHistogram& h, std::uint64_t threshold_ns) {
  if (h.count() == 0 || threshold_ns >= h.max()) return {0, 0};
  if (threshold_ns < h.min()) return {h.count(), h.count()};
  CountRange r;
  for (const Bucket& b : h.buckets()) {
    if (b.lower_ns > threshold_ns) {
      r.low += b.count;  // every value in the bucket is above
    } else if (b.upper_ns - 1 > threshold_ns) {
      r.high += b.count;  // the bucket straddles the threshold: some may be above
    }
  }
  if (h.overflow() != 0) {
    if (LatencyHistogram::kRangeEnd > threshold_ns) {
      r.low += h.overflow();
    } else {
      r.high += h.overflow();
    }
  }
  r.high += r.low;
  // The exact extremes: the max sample is above the threshold, the min sample is not.
  r.low = std::max<std::uint64_t>(r.low, 1);
  r.high = std::min(r.high, h.count() - 1);
  return r;
}

}  // namespace rtgate::stats
