// Holm's step-down procedure: which of m hypotheses to reject with the family-wise error rate at
// most alpha (the smallest p-value against alpha / m, the next against alpha / (m - 1), ...,
// stopping at the first that fails).
#pragma once

#include <vector>

namespace rtgate::stats {

std::vector<bool> holm_reject(const std::vector<double>& p_values, double alpha);

}  // namespace rtgate::stats
