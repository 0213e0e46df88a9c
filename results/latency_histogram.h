// LatencyHistogram: log-linear histogram of nanosecond latencies, in the HdrHistogram layout.
//
// Layout: values below 2^kSubBits (64 ns) each have their own bucket. Above that, every power of
// two [2^k, 2^(k+1)) is split into 2^kSubBits linear sub-buckets of width 2^(k-kSubBits), so a
// bucket's width is at most 1/64 of its lower bound (relative error <= 1.6%). The top bucket ends
// at 2^kMaxBits ns (~17.2 s). Larger values are counted in overflow_, and min/max/sum stay exact.
//
// record() is O(1), branch-light and allocation-free: the bucket array is allocated once in the
// constructor. A histogram belongs to one thread while recording; merge after the threads join.
//
// Two forms, one behaviour: a histogram records into a dense array of kBuckets counts (14.8 kB);
// one restored from a result, or compact()ed, holds only its non-empty buckets (16 bytes each,
// typically a few hundred), which is what lets a 10,000-case result load in a few hundred MB.
// Every reader works on either form; record() on a compact histogram first makes it dense again
// (an allocation, so never on a measuring thread's histogram: those are dense from birth).
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace rtgate {

// 128-bit sums: a sum of squares of ns values overflows 64 bits after a few samples of seconds.
__extension__ using Uint128 = unsigned __int128;

struct Bucket {
  std::uint64_t lower_ns;  // inclusive
  std::uint64_t upper_ns;  // exclusive
  std::uint64_t count;
};

class LatencyHistogram {
 public:
  static constexpr int kSubBits = 6;
  static constexpr int kMaxBits = 34;  // 2^34 ns = 17.18 s
  static constexpr std::uint64_t kSubCount = std::uint64_t{1} << kSubBits;
  static constexpr std::uint64_t kRangeEnd = std::uint64_t{1} << kMaxBits;
  static constexpr std::size_t kBuckets = (kMaxBits - kSubBits + 1) * kSubCount;

  LatencyHistogram() : counts_(kBuckets, 0) {}
  // An empty histogram in the compact form, for restore_indexed() to fill without allocating
  // the dense array first (a 10,000-case result restores 30,000 of them).
  static LatencyHistogram empty_compact() { return LatencyHistogram(Compact{}); }

  // Negative inputs (a clock that went backwards) are recorded as 0.
  void record(std::int64_t value_ns) noexcept {
    const std::uint64_t v = value_ns < 0 ? 0 : static_cast<std::uint64_t>(value_ns);
    ++count_;
    sum_ += v;
    sum_sq_ += static_cast<Uint128>(v) * v;
    if (v < min_) min_ = v;
    if (v > max_) max_ = v;
    if (v >= kRangeEnd) [[unlikely]] {
      ++overflow_;
      return;
    }
    if (counts_.empty()) [[unlikely]]
      make_dense();
    ++counts_[bucket_index(v)];
  }

  static constexpr std::size_t bucket_index(std::uint64_t v) noexcept {
    if (v < kSubCount) return static_cast<std::size_t>(v);
    const int msb = static_cast<int>(std::bit_width(v)) - 1;
    const int shift = msb - kSubBits;
    return static_cast<std::size_t>((static_cast<std::uint64_t>(shift + 1) << kSubBits) +
                                    ((v >> shift) - kSubCount));
  }
  static constexpr std::uint64_t bucket_lower(std::size_t index) noexcept {
    const std::uint64_t group = index >> kSubBits;
    const std::uint64_t sub = index & (kSubCount - 1);
    if (group == 0) return sub;
    return (kSubCount + sub) << (group - 1);
  }
  static constexpr std::uint64_t bucket_upper(std::size_t index) noexcept {
    const std::uint64_t group = index >> kSubBits;
    return bucket_lower(index) + (group == 0 ? 1 : std::uint64_t{1} << (group - 1));
  }
  // The index of the bucket [lower_ns, upper_ns), or nullopt when no bucket of this layout has
  // those bounds (exported data from another layout, or corrupt).
  static std::optional<std::size_t> index_of(std::uint64_t lower_ns, std::uint64_t upper_ns) {
    if (lower_ns >= kRangeEnd) return std::nullopt;
    const std::size_t i = bucket_index(lower_ns);
    if (bucket_lower(i) != lower_ns || bucket_upper(i) != upper_ns) return std::nullopt;
    return i;
  }

  // Merging two compact histograms stays compact; otherwise the result is dense.
  void merge(const LatencyHistogram& other);
  void reset();
  // Keeps only the non-empty buckets (a result's histograms, once measured).
  void compact();
  bool is_compact() const noexcept { return counts_.empty(); }

  std::uint64_t count() const noexcept { return count_; }
  std::uint64_t overflow() const noexcept { return overflow_; }
  // min() and max() are exact; 0 when empty.
  std::uint64_t min() const noexcept { return count_ ? min_ : 0; }
  std::uint64_t max() const noexcept { return max_; }
  double mean() const noexcept;
  double stddev() const noexcept;  // population standard deviation

  // Nearest-rank quantile (q in [0, 1]): the upper edge of the bucket that holds the sample of
  // rank ceil(q * count), clamped to [min, max]. Never below the true quantile, and above it by
  // less than one bucket width (<= 1/64 of the value, or 1 ns below 64 ns). Samples in overflow
  // rank above every bucket; a quantile that lands there returns the exact max.
  std::uint64_t quantile(double q) const noexcept;

  // The non-empty buckets, in ascending order.
  std::vector<Bucket> buckets() const;
  // Calls f(index, count) for every non-empty bucket, in ascending order, without allocating.
  template <class F>
  void for_each_bucket(F&& f) const {
    if (counts_.empty()) {
      for (const Sparse& s : sparse_) f(static_cast<std::size_t>(s.index), s.count);
    } else {
      for (std::size_t i = 0; i < kBuckets; ++i) {
        if (counts_[i] != 0) f(i, counts_[i]);
      }
    }
  }

  // Rebuilds a histogram from exported data (JSON): buckets plus the exact figures a bucket list
  // cannot carry. Returns false if a bucket does not match this layout, the counts do not add up
  // (or wrap), a non-empty bucket lies outside [min, max], min > max, or mean/stddev are not
  // finite or cannot be the figures of such samples.
  bool restore(const std::vector<Bucket>& buckets, std::uint64_t count, std::uint64_t min,
               std::uint64_t max, double mean, double stddev, std::uint64_t overflow);
  // The same from (bucket index, count) pairs in any order (a result's compact encoding); the
  // result is compact.
  bool restore_indexed(std::vector<std::pair<std::uint32_t, std::uint64_t>> buckets,
                       std::uint64_t count, std::uint64_t min, std::uint64_t max, double mean,
                       double stddev, std::uint64_t overflow);

 private:
  struct Compact {};
  explicit LatencyHistogram(Compact) {}

  struct Sparse {
    std::uint64_t count;
    std::uint32_t index;
  };
  void make_dense();

  // Dense (kBuckets entries) or empty, in which case sparse_ holds the non-empty buckets in
  // ascending index order (a default-constructed histogram is dense).
  std::vector<std::uint64_t> counts_;
  std::vector<Sparse> sparse_;
  std::uint64_t count_ = 0;
  std::uint64_t overflow_ = 0;
  std::uint64_t min_ = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t max_ = 0;
  Uint128 sum_ = 0;
  Uint128 sum_sq_ = 0;
};

}  // namespace rtgate
