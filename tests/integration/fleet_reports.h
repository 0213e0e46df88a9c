// The fleet test's results and rules: one measured result as each host and kernel reports it,
// host A's regression on the second kernel, the ratios the alert rules compute, and the alert
// rules of rules.yml.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <utility>

#include "results/latency_histogram.h"
#include "results/report.h"

namespace rtgate::test {

inline const std::string kRules =
    std::string(RTGATE_SOURCE_DIR) + "/exporters/prometheus/rules.yml";

// Every latency sample twice as long. In the log-linear layout (2^kSubBits sub-buckets per power
// of two) twice a bucket's lower bound starts exactly one bucket, so each bucket moves whole and
// the exact figures (min, max, mean, stddev) double with it: a real distribution, slowed down.
LatencyHistogram doubled(const LatencyHistogram& h);

// The measured result as reported by `host` running `kernel`: only the environment's labels and
// the finish time differ between the machines and boots of this fleet.
RunReport on_host(RunReport r, const std::string& host, const std::string& kernel,
                  const std::string& finished_at);

// Host A's regression on K2: what the exporter reads of each metric, and nothing else, changes:
// latency histograms doubled, throughput samples halved (the latency metrics' block maxima and
// per-run summaries are not exported, so they stay).
RunReport regressed(RunReport r);

// "case/metric" -> K2's figure over K1's, as the exporter computes them (exact p99.9 from the
// histogram, Hmean of the samples), for each series the rule compares: every throughput, every
// latency whose previous p99.9 is above 0 (the rule divides by it only then).
std::map<std::string, double> ratios(const RunReport& k1, const RunReport& k2, MetricKind kind);

// The series of `r` over the alert's threshold: p99.9 up by more, throughput down by more.
std::map<std::string, double> crossing(const std::map<std::string, double>& r, MetricKind kind,
                                       double threshold);

// The alert rule named `name` in rules.yml.
YAML::Node alert_rule(const std::string& name);

// An alert expression split at its final comparison: "RATIO > 1.2" -> {RATIO, 1.2}. The ratio
// shows that a host was compared, also where the threshold (rightly) drops it.
std::pair<std::string, double> split_threshold(const std::string& expr);

}  // namespace rtgate::test
