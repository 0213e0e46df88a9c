// The metrics present on both sides, judged together: the variance priors borrowed across each
// (suite, metric, statistic) group are fitted over all of them first (variance_priors.h), then
// each metric is judged (metric_judge.h) with its baseline sessions, its prior (calibrated, the
// history's, or the group's) and its session noise (session_noise.h).
#pragma once

#include <cstddef>
#include <vector>

#include "gate/model/verdict.h"
#include "gate/noise/session_noise.h"
#include "gate/pair/metric_judge.h"

namespace rtgate::gate {

// A metric on both sides, waiting to be judged once the variance priors are known: its row in
// GateVerdict::suites[suite].metrics.
struct Pending {
  std::size_t suite, row;
  const Metric* base;  // in the primary baseline session
  const Metric* cur;
  MetricPolicy policy;
};

struct JudgeContext {
  Levels levels;
  const std::vector<const RunReport*>* sessions;  // the baseline's, primary first
  const NoiseModel* noise;
  bool one_session = false;       // both sides are one session: no session term
  bool per_metric_alpha = false;  // alpha_scope metric: each row's level is its own alpha
  double look_share = 1;
};

void judge_pending(GateVerdict& g, const std::vector<Pending>& pending, const JudgeContext& ctx);

}  // namespace rtgate::gate
