// The per-run statistics a metric is judged on, as per-run values on a log scale: what the gate,
// its variance priors and `rtgate calibrate` all read.
//
//   latency:             "p99", "p999", ... (the policy's quantiles that runs keep) and "max",
//                        from Metric::runs (one LatencySummary per run); a quantile's within-run
//                        sampling variance comes from the side's merged histogram.
//   throughput/duration: "value", from Metric::samples (one value per run).
// Event counts are not log-scale; count_estimate.h judges them.
#pragma once

#include <string>
#include <vector>

#include "gate/model/policy.h"
#include "gate/noise/change_estimate.h"
#include "gate/noise/count_estimate.h"
#include "results/report.h"

namespace rtgate::gate {

// The statistics judged for `m` under `mp`, in order (quantiles ascending, then max): those of
// policy_statistics that `m` has (statistic_unknown empty).
std::vector<std::string> run_statistics(const Metric& m, const MetricPolicy& mp);
// The statistics the policy judges for a metric of `kind`, whether or not a metric has them.
std::vector<std::string> policy_statistics(MetricKind kind, const MetricPolicy& mp);

// Why `statistic` of `m` cannot be judged ("" when it can): a summary-only latency metric
// (imported with count, min, mean and max alone) has no quantiles, and an imported quantile that
// lay among the samples beyond the tool's histogram in some run is unknown there (report.h).
std::string statistic_unknown(const Metric& m, const std::string& statistic);

// One side's per-run log values of `statistic`, with the within-run variance floor (sampling
// and quantisation for quantiles, quantisation for the max, 0 for per-run values). Runs without
// samples, and values <= 0, are left out.
SideValues side_values(const Metric& m, const std::string& statistic);

// The same over several sessions of one side (each a result's metric, nullptr where a session
// lacks it): the values of all, each tagged with its session; the within-run floor averaged.
SideValues side_values(const std::vector<const Metric*>& sessions, const std::string& statistic);

// A side's per-run event counts over its sessions, each tagged with its session.
SideCounts side_counts(const std::vector<const Metric*>& sessions);

// Runs of a metric judged on per-run values (throughput, duration, a gated count that is not an
// event rate) whose value is 0 or not finite: a run that made no progress or measured nothing.
// side_values leaves them out (no log); the gate counts them.
int zero_runs(const Metric& m);

// The quantile a statistic name denotes ("p999" -> 0.999), NaN for "max" and "value".
double statistic_quantile(const std::string& statistic);

// How a statistic reads in tables: "p99.9", "max", "value".
std::string statistic_label(const std::string& statistic);

}  // namespace rtgate::gate
