// The verdict for one metric present on both sides, in two steps:
//
//   judge_metric()  compares each statistic the metric is judged on (run_values.h: per-run
//                   quantiles and max for latency, per-run values for throughput and duration;
//                   count_estimate.h for event counts) and records one Evidence per statistic:
//                   the change with its (1 - 2 alpha_eq) interval, one-sided p-values, the noise
//                   floor, and the change detectable with 90% power. It sets the metric's
//                   p_worse / p_better (Bonferroni over its statistics, counting only statistics
//                   whose change is beyond the floor and consistent across runs) and a
//                   provisional verdict.
//   decide_metric() sets the verdict once the gate's multiplicity step (compare.cpp, Holm) has
//                   said whether p_worse / p_better were rejected.
//
// The verdicts (framework/gate/README.md has their promises):
//   regressed     the policy's budget is exceeded by current's exact max; or Holm rejects "not
//                 worse" for the metric and the rejecting statistic's change is beyond its floor.
//   improved      the same in the better direction, and not regressed.
//   unchanged     every statistic's (1 - 2 alpha_eq) interval lies inside its floor (two one-sided
//                 tests per statistic; all must hold, an intersection-union test at alpha_eq).
//   inconclusive  anything else; the reason names the widest interval, the detectable change and
//                 the runs a side that would detect the floor.
#pragma once

#include <functional>
#include <string>

#include "framework/gate/policy.h"
#include "framework/gate/verdict.h"
#include "framework/stats/moderated_variance.h"

namespace rtgate::gate {

struct Levels {
  // One-sided level of the metric's regression (and improvement) test before Holm's step-down,
  // i.e. the Bonferroni level alpha / looks / family; split again over the metric's statistics.
  double test = 0.05;
  // One-sided level of each equivalence bound: alpha / looks (no multiplicity: "unchanged" claims
  // an intersection, which holds at the level of each part).
  double eq = 0.05;
  // The level at which a change must be consistent across runs (one-sided Mann-Whitney U on the
  // per-run values): alpha, a filter that only removes rejections (not split by looks, or the
  // early looks of a run-until-decided plan could never reject).
  double robust = 0.05;
};

// The variance prior for one statistic of this metric (calibrated or empirical Bayes).
using PriorOf = std::function<stats::VariancePrior(const std::string& statistic)>;

void judge_metric(const Metric& base, const Metric& cur, const MetricPolicy& policy,
                  const Levels& levels, const PriorOf& prior, MetricVerdict& out);

void decide_metric(MetricVerdict& v, bool worse_rejected, bool better_rejected);

}  // namespace rtgate::gate
