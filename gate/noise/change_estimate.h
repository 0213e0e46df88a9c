// The change of one per-run statistic between two sides, the run being the unit of replication.
//
// Each side is a list of per-run values on a log scale (a run's p99, p99.9 or max, a run's
// throughput), so the effect is a log ratio. Each side's per-run variance is its sample variance,
// moderated by a prior when one is known (empirical Bayes across the metrics of one kind, or this
// host's calibration; stats/moderated_variance.h), and then floored at what the run itself proves
// it must be at least: the sampling variance of a quantile estimated from that run's own samples
// (order statistics, within_run_var) plus the histogram's quantisation. The floor is a random-
// effects model's lower bound: per-run variance = between-run drift + within-run sampling error,
// so when runs agree the test keeps the power of the pooled samples, and when they drift the
// between-run spread takes over. The difference of means is referred to a t distribution with
// Welch-Satterthwaite degrees of freedom from each side's (moderated) df.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "base/stats/moderated_variance.h"
#include "gate/noise/session_noise.h"
#include "results/latency_histogram.h"

namespace rtgate::gate {

struct SideValues {
  std::vector<double> values;  // per-run values, log scale
  double within_var = 0;       // variance one run's value has at least (sampling, quantisation)
  // The session of each value (parallel to values; empty: all one session). Sessions are the
  // side's replicates: each contributes tau^2 once, whatever its number of runs.
  std::vector<int> session;
};

struct ChangeEstimate {
  double effect = NAN;                   // mean(current) - mean(baseline)
  double se = NAN;                       // its standard error
  double df = NAN;                       // of the t reference; +inf for a normal reference
  double p_up = NAN;                     // one-sided p-value: current larger than baseline
  double p_down = NAN;                   // one-sided p-value: current smaller
  double var_base = NAN, var_cur = NAN;  // the per-run variances used
  double session_var = 0;                // tau^2 (1/k_base + 1/k_cur): the sessions' share of se^2
  std::size_t n_base = 0, n_cur = 0;
  int k_base = 1, k_cur = 1;  // sessions a side
  bool ok() const { return std::isfinite(effect) && std::isfinite(se); }
  // The one-sided confidence bounds of the effect at level 1 - alpha.
  double lower(double alpha) const;
  double upper(double alpha) const;
  // The smallest true effect that a one-sided test at `alpha` detects with probability `power`.
  double detectable(double alpha, double power = 0.9) const;
};

// The change with its standard error
//   se^2 = tau^2 (1/k_b + 1/k_c) + W_b + W_c,  W = (1/k^2) sum_j var / n_j
// over a side's k sessions of n_j runs, var the side's per-run variance (pooled within its
// sessions, moderated by `prior`, floored at within_var), and Welch-Satterthwaite degrees of
// freedom over the three parts (tau^2 with noise.tau_df). Needs two runs in a session of each side
// unless the prior is usable, or the history's sessions were single runs (then tau^2 holds the run
// spread and a side's own runs add only their within-run floor); else the estimate is not ok().
// A default-constructed noise (tau 0) is the run-replicate model.
ChangeEstimate estimate_change(const SideValues& base, const SideValues& cur,
                               const stats::VariancePrior& prior, const SessionNoise& noise = {});

// Upper-tail critical value of t(df) (normal for infinite df): P(T > t) = alpha.
double t_critical(double alpha, double df);
// P(T > t) for T ~ t(df) (normal for infinite df).
double upper_tail(double t, double df);

// The sampling variance of the log of one run's q-quantile, for a run of n samples drawn from the
// distribution that `pooled` estimates: the rank of the run's quantile is Binomial(n, q), so the
// estimate spans pooled quantiles q -/+ sqrt(q (1 - q) / n) at one standard deviation. 0 when the
// pooled histogram is empty.
double within_run_log_var(const LatencyHistogram& pooled, double q, double n);

// The variance a histogram quantile has from its 1/64 bucket width alone (uniform on a bucket).
double quantisation_log_var();

}  // namespace rtgate::gate
