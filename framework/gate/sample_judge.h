// The verdict for a metric with per-run samples: throughput, duration, and count metrics the
// policy gates.
//
// Decision test: Welch's t-test (two-sided, at the policy's alpha) on the per-run values. Per-run
// throughput is an average over a run, close to normal by the central limit theorem, and Welch
// does not assume equal variances; with 5 runs it has more power than Mann-Whitney U, whose
// smallest two-sided p at 5 against 5 is 2/252 = 0.008. Mann-Whitney U and a percentile
// bootstrap CI of the current/baseline ratio are recorded as evidence. A change is regressed or
// improved only when Welch is significant AND |change| of the headline mean (Hmean for
// throughput and duration, Amean for counts) exceeds noise_floor_pct, in the same direction.
// Fewer than 2 runs on a side, or a baseline CoeffVar above max_baseline_cv_pct (not for
// counts), is inconclusive.
#pragma once

#include "framework/gate/policy.h"
#include "framework/gate/verdict.h"

namespace rtgate::gate {

// Fills out's figures, verdict, reason and evidence; the identity fields are the caller's.
void judge_samples(const Metric& base, const Metric& cur, const MetricPolicy& policy,
                   MetricVerdict& out);

}  // namespace rtgate::gate
