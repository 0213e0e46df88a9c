// One statistic's comparison behind a metric verdict, as an Evidence: a log-scale statistic
// (a latency quantile or max per run, throughput or duration per run; change_estimate.h) or an
// event rate (count_estimate.h), each with the baseline's sessions and the session noise
// (session_noise.h), its interval, p-values in both directions, floor and consistency across runs.
#pragma once

#include <string>
#include <vector>

#include "base/stats/moderated_variance.h"
#include "gate/model/verdict.h"
#include "gate/noise/session_noise.h"

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

// Orientation: for "lower is better" the worse direction is up. A change counts in a direction
// only beyond the floor and only when it is consistent across runs.
struct Oriented {
  double p_worse = 1, p_better = 1;
  bool beyond_worse = false, beyond_better = false;
  bool robust_worse = false, robust_better = false;
};

// `base` holds the baseline's sessions (nullptr where a session lacks the metric); `a` is the
// statistic's one-sided test level.
Evidence log_statistic(const std::vector<const Metric*>& base, const Metric& cur,
                       const std::string& statistic, double floor_pct, const Levels& lv, double a,
                       const stats::VariancePrior& prior, const SessionNoise& noise, int min_runs,
                       Oriented& o);

Evidence event_statistic(const std::vector<const Metric*>& base, const Metric& cur, double floor,
                         const Levels& lv, double a, const SessionNoise& noise, Oriented& o);

}  // namespace rtgate::gate
