#include "framework/stats/bootstrap.h"

#include <algorithm>
#include <random>
#include <vector>

#include "framework/stats/summary.h"

namespace rtgate::stats {
namespace {

double mean_of(std::span<const double> xs, MeanKind kind) {
  return kind == MeanKind::kHarmonic ? hmean(xs) : amean(xs);
}

// Type-7 quantile (R's default) of sorted values.
double interpolated_quantile(const std::vector<double>& sorted, double p) {
  const double h = (static_cast<double>(sorted.size()) - 1) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

void resample(std::span<const double> from, std::vector<double>& to, std::mt19937_64& rng) {
  __extension__ using U128 = unsigned __int128;
  const U128 n = from.size();
  for (double& v : to) v = from[static_cast<std::size_t>((static_cast<U128>(rng()) * n) >> 64)];
}

}  // namespace

RatioInterval bootstrap_ratio_ci(std::span<const double> x, std::span<const double> y,
                                 const BootstrapOptions& options) {
  RatioInterval r;
  if (x.empty() || y.empty() || options.resamples < 1) return r;
  // A resampled denominator must never be 0: y positive. Hmean needs x >= 0 as well.
  if (std::any_of(y.begin(), y.end(), [](double v) { return !(v > 0); })) return r;
  if (options.mean == MeanKind::kHarmonic &&
      std::any_of(x.begin(), x.end(), [](double v) { return !(v >= 0); })) {
    return r;
  }
  const double my = mean_of(y, options.mean);
  r.estimate = mean_of(x, options.mean) / my;

  std::mt19937_64 rng(options.seed);
  std::vector<double> bx(x.size()), by(y.size());
  std::vector<double> ratios;
  ratios.reserve(static_cast<std::size_t>(options.resamples));
  for (int b = 0; b < options.resamples; ++b) {
    resample(x, bx, rng);
    resample(y, by, rng);
    ratios.push_back(mean_of(bx, options.mean) / mean_of(by, options.mean));
  }
  std::sort(ratios.begin(), ratios.end());
  r.low = interpolated_quantile(ratios, (1 - options.confidence) / 2);
  r.high = interpolated_quantile(ratios, (1 + options.confidence) / 2);
  return r;
}

}  // namespace rtgate::stats
