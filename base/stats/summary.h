// Descriptive statistics over per-run samples (mmtests' Amean/Hmean/Stddev/CoeffVar).
#pragma once

#include <span>

namespace rtgate::stats {

double amean(std::span<const double> xs);
// Harmonic mean; 0 when any sample is <= 0 (the Hmean of rates is undefined there).
double hmean(std::span<const double> xs);
// Sample standard deviation (n - 1); 0 for fewer than two samples.
double stddev(std::span<const double> xs);
// Coefficient of variation in percent: 100 * stddev / amean; 0 when amean is 0.
double coeff_var(std::span<const double> xs);

}  // namespace rtgate::stats
