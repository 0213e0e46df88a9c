// Holm's step-down procedure: which of m hypotheses to reject with the family-wise error rate at
// most alpha (the smallest p-value against alpha / m, the next against alpha / (m - 1), ...,
// stopping at the first that fails).
#pragma once

#include <cstddef>
#include <vector>

namespace rtgate::stats {

struct HolmResult {
  std::vector<bool> rejected;
  // The level each p-value was held against at its rank (alpha / (family - rank)).
  std::vector<double> levels;
};

// `family`: the number of hypotheses the family holds, at least p_values.size() (a gate that
// judged fewer than it promised for); 0 means p_values.size(). A NaN p-value fails and stops the
// procedure, like a large one.
HolmResult holm(const std::vector<double>& p_values, double alpha, std::size_t family = 0);

inline std::vector<bool> holm_reject(const std::vector<double>& p_values, double alpha) {
  return holm(p_values, alpha).rejected;
}

}  // namespace rtgate::stats
