// The verdict for a latency metric: merged histograms (ns) and per-block maxima (`samples`).
//
// Four lines of evidence, each recorded as Evidence:
//  1. budget: the policy's absolute budget is a hard limit on the current exact max; over it is
//     regressed whatever else holds.
//  2. quantile_ci: for each gated quantile q, distribution-free order-statistic CIs on both
//     histograms (bucket edges taken conservatively). Regressed when current's lower bound is
//     above baseline's upper bound and the quantile grew by more than latency_noise_floor_pct;
//     improved symmetrically.
//  3. exceedance_rate: samples above the baseline's value at the highest gated quantile, current
//     against baseline, by the exact conditional binomial test (stats::rate_test); counts are
//     taken at the conservative end for each direction. Fires when significant and the rate
//     ratio moved by more than the noise floor.
//  4. block_maxima: Mann-Whitney U (two-sided) on the per-block maxima, when each side has at
//     least 2; fires when significant and the median block maximum moved beyond the floor.
// Tests 2-4 each run at alpha / k, k = the number of quantiles + 2 (Bonferroni), so the metric's
// false-regression rate stays under alpha. Any of them firing "worse" makes the metric regressed;
// else any firing "better" makes it improved; else unchanged. Inconclusive only without samples
// on a side or without a gated quantile (test 3 can always be evaluated; tests 2 and 4 record
// "inconclusive" evidence when there are too few samples or blocks).
// The raw max is compared only against a budget, never against the baseline's raw max: a single
// outlier moves a quantile CI by at most one order statistic, an exceedance count by one, and one
// block maximum, so the median block maximum (test 4's effect size) by at most one rank.
// Tests 2-4 treat the merged samples (and blocks) as independent. They are not, across runs:
// the machine's state drifts between runs (steal time, other jobs, cache and frequency state)
// by more than the pooled samples' sampling error, and two back-to-back runs on an idle VM gated
// as regressed on them. So when both sides have at least policy.latency_min_runs runs (default
// 3), the run is the unit of replication:
//  R. run_quantile: for each gated quantile that runs keep (p50, p90, p99, p99.9, p99.99), each
//     run's own value, compared by Welch's t-test on log values with the histogram's 1/64
//     resolution as a variance floor, at alpha / (number of such quantiles). Regressed when
//     significant and the geometric-mean ratio moved beyond the noise floor.
// Then R decides, and tests 2-4 on the pooled samples are still computed and shown as supporting
// evidence (Evidence::deciding false); the reason says when they differ within the between-run
// spread. The budget (1) decides in both modes. Results written before per-run summaries existed
// are judged on the pooled tests.
#pragma once

#include "framework/gate/policy.h"
#include "framework/gate/verdict.h"

namespace rtgate::gate {

// Fills out's figures, verdict, reason and evidence; the identity fields are the caller's.
// The headline statistic is the highest gated quantile, or "max" when a budget decided.
void judge_latency(const Metric& base, const Metric& cur, const MetricPolicy& policy,
                   MetricVerdict& out);

}  // namespace rtgate::gate
