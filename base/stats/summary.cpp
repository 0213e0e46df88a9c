#include "base/stats/summary.h"

#include <cmath>

namespace rtgate::stats {

double amean(std::span<const double> xs) {
  if (xs.empty()) return 0;
  double sum = 0;
  for (double x : xs) sum += x;
  return sum / static_cast<double>(xs.size());
}

double hmean(std::span<const double> xs) {
  if (xs.empty()) return 0;
  double inv = 0;
  for (double x : xs) {
    if (x <= 0) return 0;
    inv += 1.0 / x;
  }
  return static_cast<double>(xs.size()) / inv;
}

double stddev(std::span<const double> xs) {
  if (xs.size() < 2) return 0;
  const double m = amean(xs);
  double ss = 0;
  for (double x : xs) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(xs.size() - 1));
}

double coeff_var(std::span<const double> xs) {
  const double m = amean(xs);
  return m == 0 ? 0 : 100.0 * stddev(xs) / m;
}

}  // namespace rtgate::stats
