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
// The verdicts (gate/README.md has their promises):
//   regressed     the policy's budget is exceeded by current's exact max; or a run of current's
//                 throughput made no progress (0) where no baseline run did; or Holm rejects
//                 "not worse" for the metric and the rejecting statistic's change is beyond its
//                 floor.
//   improved      the same in the better direction, and not regressed.
//   unchanged     every statistic's (1 - 2 alpha_eq) interval lies inside its floor (two one-sided
//                 tests per statistic; all must hold, an intersection-union test at alpha_eq),
//                 and current's exact max is within the max floor of the baseline's worst
//                 session's max: the worst case must not have grown.
//   inconclusive  anything else; the reason names the widest interval, the detectable change and
//                 the runs a side that would detect the floor, and the statistics a side does not
//                 have (an imported summary-only metric's quantiles: run_values.h's
//                 statistic_unknown), which are never judged and never "unchanged".
#pragma once

#include <functional>
#include <string>

#include "base/stats/moderated_variance.h"
#include "gate/model/policy.h"
#include "gate/model/verdict.h"
#include "gate/noise/statistic_evidence.h"

namespace rtgate::gate {

// The variance prior for one statistic of this metric (calibrated or empirical Bayes).
using PriorOf = std::function<stats::VariancePrior(const std::string& statistic)>;
// The session noise of one statistic of this metric (session_noise.h).
using NoiseOf = std::function<SessionNoise(const std::string& statistic)>;

// `base` holds the metric in each of the baseline's sessions (nullptr where one lacks it; the
// first is not null).
void judge_metric(const std::vector<const Metric*>& base, const Metric& cur,
                  const MetricPolicy& policy, const Levels& levels, const PriorOf& prior,
                  const NoiseOf& noise, MetricVerdict& out);

void decide_metric(MetricVerdict& v, bool worse_rejected, bool better_rejected);

}  // namespace rtgate::gate
