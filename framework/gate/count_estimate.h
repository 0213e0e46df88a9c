// The change of an event count (missed periods, overruns) between two sides, per run.
//
// Events are compared as rates per run by the exact conditional test (given the total, current's
// share of the events is Binomial(K, n_cur / (n_base + n_cur)) when the rates are equal), made
// quasi-Poisson: real event counts are burstier than Poisson (one VM hiccup swallows several
// periods), so the counts are divided by the overdispersion phi before the test (which the
// regularized incomplete beta function evaluates for non-integer counts): the larger of the two
// sides' Pearson chi-square / df, each used only when that side's dispersion test rejects Poisson
// at 5%. The larger, not the pooled: bursts on one side and a quiet other side must not average
// out into "nearly Poisson". The interval of the difference in
// events per run takes each side's exact (gamma) Poisson bound at half the level, so it covers at
// least the nominal level even with no events on a side (0 events in 5 runs: current's rate is
// below 0.6 per run at 95%).
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace rtgate::gate {

struct CountEstimate {
  double rate_base = NAN, rate_cur = NAN;  // mean events per run
  double effect = NAN;                     // rate_cur - rate_base
  double phi = 1;                          // overdispersion used
  double p_up = NAN, p_down = NAN;         // one-sided exact p-values
  std::size_t n_base = 0, n_cur = 0;
  bool ok() const { return n_base > 0 && n_cur > 0; }
  // Bounds of the difference per run, each at one-sided level alpha.
  double lower(double alpha) const;
  double upper(double alpha) const;
  // The rise in events per run that a one-sided test at `alpha` detects with `power` (normal
  // approximation around the pooled rate, at least one event per side's runs).
  double detectable(double alpha, double power = 0.9) const;
};

// Per-run counts (>= 0) of each side.
CountEstimate estimate_counts(const std::vector<double>& base, const std::vector<double>& cur);

}  // namespace rtgate::gate
