// Percentile-bootstrap confidence interval of a ratio of means, mean(x) / mean(y): the gate uses
// it to say "current is 0.88x to 0.93x of baseline". Seeded and reproducible: the same inputs and
// seed give the same interval on every platform (std::mt19937_64 is fully specified, and indices
// are drawn by a multiply-shift, not by std::uniform_int_distribution, whose algorithm is not).
#pragma once

#include <cmath>
#include <cstdint>
#include <span>

namespace rtgate::stats {

enum class MeanKind { kArithmetic, kHarmonic };

struct BootstrapOptions {
  double confidence = 0.95;
  int resamples = 2000;  // B
  std::uint64_t seed = 1;
  MeanKind mean = MeanKind::kArithmetic;  // kHarmonic for rates (mmtests' Hmean)
};

struct RatioInterval {
  double estimate = NAN;  // mean(x) / mean(y) of the samples themselves
  double low = NAN;       // percentiles (1 - confidence) / 2 and (1 + confidence) / 2 of the B
  double high = NAN;      // resampled ratios (linear interpolation between order statistics)
};

// x and y are resampled independently, with replacement, each to its own size. All NaN when a
// side is empty, when a y is <= 0 (a resampled denominator could be 0), or for kHarmonic when an
// x is negative. For kHarmonic an x of 0 makes that resample's Hmean, and its ratio, 0.
RatioInterval bootstrap_ratio_ci(std::span<const double> x, std::span<const double> y,
                                 const BootstrapOptions& options = {});

}  // namespace rtgate::stats
