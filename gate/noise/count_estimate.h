// The change of an event count (missed periods, overruns) between two sides, per run.
//
// Events are compared as rates per run by the exact conditional test (given the total, current's
// share of the events is Binomial(K, n_cur / (n_base + n_cur)) when the rates are equal), made
// quasi-Poisson: the counts are divided by a dispersion phi before the test (the regularized
// incomplete beta function evaluates it for non-integer counts). phi has two parts:
//  - within sessions: real event counts are burstier than Poisson (one VM hiccup swallows several
//    periods). The Pearson chi-square / df of the runs around their session's mean, pooled over
//    both sides, is always applied (a pretest would let moderately overdispersed counts through
//    as Poisson), moderated towards the history's dispersion when there is one, and taken at its
//    upper 75% bound: a dispersion from 8 df is itself uncertain, and the test treats it as known.
//  - between sessions: a session's rate carries its offset (log SD tau), which adds
//    tau^2 rate sum(n_j^2) / N to a side's variance-to-mean ratio (the larger side's is used).
// The interval of the difference in events per run takes each side's exact (gamma) Poisson bound
// of the scaled counts at half the level, so it covers at least the nominal level even with no
// events on a side (0 events in 5 runs: current's rate is below 0.6 per run at 95%).
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "gate/noise/session_noise.h"

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

// Per-run counts (>= 0) of one side, and the session of each (empty: one session).
struct SideCounts {
  std::vector<double> values;
  std::vector<int> session;
};

// The exact conditional test itself, for counts with exposures (runs, samples): given the total,
// current's share of the scaled counts k / phi is Binomial(K, e_cur / (e_base + e_cur)) when the
// rates are equal. One-sided p-values, up (current's rate higher) and down.
struct RateTest {
  double p_up = 1, p_down = 1;
};
RateTest exact_rate_test(double k_base, double k_cur, double exposure_base, double exposure_cur,
                         double phi);

// A dispersion from a Pearson chi-square on df degrees of freedom (with a prior of prior_df at
// prior_phi, 0: none), taken at its upper 75% bound; at least 1.
double dispersion_bound(double chi2, double df, double prior_df = 0, double prior_phi = 1);

CountEstimate estimate_counts(const SideCounts& base, const SideCounts& cur,
                              const SessionNoise& noise = {});

}  // namespace rtgate::gate
