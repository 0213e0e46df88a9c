// Order statistics and threshold counts read from a LatencyHistogram. A bucket only says that a
// sample lies in [lower, upper); these helpers return both ends of what the histogram allows, so
// the caller picks the conservative one (min, max and overflow are exact and narrow the ends).
#pragma once

#include <cstdint>
#include <span>

#include "framework/measure/latency_histogram.h"

namespace rtgate::stats {

// The rank-th smallest sample (1-based) lies in [low, high] (both inclusive, ns).
struct ValueRange {
  std::uint64_t low = 0;
  std::uint64_t high = 0;
};

// Rank 1 and rank count() are the exact min and max. A rank among the overflowed samples gives
// [2^34 ns, max]. Throws std::out_of_range unless 1 <= rank <= h.count().
ValueRange value_at_rank(const LatencyHistogram& h, std::uint64_t rank);
// The same over h.buckets() computed once (for several ranks of one histogram).
ValueRange value_at_rank(const LatencyHistogram& h, std::span<const Bucket> buckets,
                         std::uint64_t rank);

// The number of samples strictly above threshold_ns lies in [low, high]. Both are equal when
// threshold_ns + 1 is a bucket edge, which every value LatencyHistogram::quantile() returns is
// (the upper edge of its bucket minus one), unless clamped to the exact max.
struct CountRange {
  std::uint64_t low = 0;
  std::uint64_t high = 0;
};
CountRange count_above(const LatencyHistogram& h, std::uint64_t threshold_ns);

}  // namespace rtgate::stats
