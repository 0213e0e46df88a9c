// PeriodicRecorder: the bookkeeping of one periodic RT thread, between two absolute-time sleeps.
//
// Given the deadline it slept to and the time it woke, it records the latency, counts overruns
// (a wakeup a whole period late or more) and the periods they swallowed, keeps per-block maxima
// for the gate, publishes live figures, and returns the next deadline. When a wakeup is late by
// k periods, the k deadlines that already passed are skipped (sleeping to them would return at
// once and record k bogus near-zero latencies; cyclictest skips them too) and counted as missed
// (which cyclictest does not report).
//
// Everything is allocated in the constructor; on_wakeup() neither allocates nor locks. Build it
// on the thread that records (its CPU's NUMA node by first touch).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "framework/measure/live_stats.h"
#include "results/latency_histogram.h"

namespace rtgate {

// Cache-line aligned: a thread's recorder never shares a line with another thread's data.
class alignas(64) PeriodicRecorder {
 public:
  // `max_blocks`: how many per-block maxima to keep (duration / block + 2 is enough).
  PeriodicRecorder(std::int64_t interval_ns, std::int64_t block_ns, std::size_t max_blocks,
                   LiveStats& live)
      : interval_ns_(interval_ns), block_ns_(std::max(block_ns, interval_ns)), live_(live) {
    block_max_.reserve(max_blocks);
  }

  void start(std::int64_t start_ns) { block_end_ = start_ns + block_ns_; }

  // Returns the next deadline. Only deadlines up to `end_ns` (the loop's last) count as missed:
  // a late last wakeup does not add periods the run never had.
  std::int64_t on_wakeup(std::int64_t deadline_ns, std::int64_t now_ns,
                         std::int64_t end_ns = std::numeric_limits<std::int64_t>::max()) noexcept {
    const std::int64_t lat = now_ns - deadline_ns;
    hist_.record(lat);
    ++samples_;
    max_ = std::max(max_, lat);
    block_max_now_ = std::max(block_max_now_, lat);
    std::int64_t next = deadline_ns + interval_ns_;
    if (lat >= interval_ns_) [[unlikely]] {
      ++overruns_;
      const std::int64_t skipped = lat / interval_ns_;
      if (next <= end_ns) {
        missed_ +=
            static_cast<std::uint64_t>(std::min(skipped, (end_ns - next) / interval_ns_ + 1));
      }
      next += skipped * interval_ns_;
    }
    ++block_samples_;
    if (next >= block_end_) close_block(next);
    live_.publish(samples_, max_);
    return next;
  }

  // After per-period work (lock.latency's critical section): when the work ran past `next`, the
  // schedule is re-anchored to the first deadline still ahead, and the periods the work used up
  // are counted as work overruns, not as the next wakeup's latency or missed periods (the
  // control metric must not carry the thing under test). Returns the next deadline.
  // Only deadlines up to `end_ns` (the loop's last) count as skipped.
  std::int64_t reanchor(std::int64_t next, std::int64_t now_ns,
                        std::int64_t end_ns = std::numeric_limits<std::int64_t>::max()) noexcept {
    if (now_ns < next) return next;
    ++work_overruns_;
    const std::int64_t k = (now_ns - next) / interval_ns_ + 1;
    if (next <= end_ns) {
      work_skipped_ += static_cast<std::uint64_t>(std::min(k, (end_ns - next) / interval_ns_ + 1));
    }
    next += k * interval_ns_;
    if (next >= block_end_) close_block(next);
    return next;
  }

  // The loop ended: keeps the open block's maximum (a short run, a stop request, SIGINT).
  void finish() noexcept {
    if (block_samples_ > 0) close_block(block_end_);
  }

  LatencyHistogram& histogram() { return hist_; }
  std::vector<double>& block_maxima() { return block_max_; }
  std::uint64_t overruns() const { return overruns_; }
  std::uint64_t missed_periods() const { return missed_; }
  std::uint64_t samples() const { return samples_; }
  std::uint64_t work_overruns() const { return work_overruns_; }  // periods whose work overran
  std::uint64_t work_skipped() const { return work_skipped_; }    // deadlines the work used up

 private:
  void close_block(std::int64_t next) noexcept {
    if (block_samples_ > 0 && block_max_.size() < block_max_.capacity()) {
      block_max_.push_back(static_cast<double>(block_max_now_));
    }
    block_max_now_ = 0;
    block_samples_ = 0;
    while (block_end_ <= next) block_end_ += block_ns_;
  }

  std::int64_t interval_ns_;
  std::int64_t block_ns_;
  LiveStats& live_;
  LatencyHistogram hist_;
  std::vector<double> block_max_;
  std::int64_t block_end_ = 0;
  std::int64_t block_max_now_ = 0;
  std::int64_t max_ = 0;
  std::uint64_t samples_ = 0;
  std::uint64_t overruns_ = 0;
  std::uint64_t missed_ = 0;
  std::uint64_t block_samples_ = 0;
  std::uint64_t work_overruns_ = 0;
  std::uint64_t work_skipped_ = 0;
};

}  // namespace rtgate
