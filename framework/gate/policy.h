// The gate policy: significance level, noise floors, which latency quantiles to gate, absolute
// latency budgets, and per-suite / per-metric overrides. Defaults need no file; a file is YAML
// (yaml-cpp) or JSON (read by the same parser, JSON being YAML's flow style):
//
//   alpha: 0.05                    # the whole gate's false-regression rate (see alpha_scope)
//   alpha_scope: gate              # gate: each of the m judged metrics is tested at alpha / m
//                                  # (Bonferroni); metric: each metric at alpha
//   noise_floor_pct: 5             # throughput/duration/count: |Hmean change| must exceed this
//   latency_noise_floor_pct: 10    # latency: quantile, exceedance-rate and block-max change
//   max_baseline_cv_pct: 20        # noisier baseline -> inconclusive
//   quantiles: [0.99, 0.999]       # latency quantiles compared by order-statistic CIs
//   latency_min_runs: 3            # with this many runs a side, latency is judged run by run
//   allow_env_mismatch: false
//   allow_contaminated: false      # true: judge runs that foreign RT threads disturbed
//   seed: 1                        # bootstrap
//   bootstrap_resamples: 2000
//   budgets_ns:                    # hard limits on a latency metric's exact max
//     cyclic/wakeup_latency: 100000
//     lock.latency/pi_mutex/acquire_latency: 50000
//   metrics:                       # overrides, keyed "suite", "suite/metric", "suite/case/metric"
//     cyclic/overruns: {gate: true}             # count metrics are gated only when named
//     lock.latency: {latency_noise_floor_pct: 20, quantiles: [0.99]}
//
// Keys name a suite, a metric of a suite (any case), or one case's metric. The most specific key
// wins, field by field: suite/case/metric over suite/metric over suite over the top level.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "framework/report/report.h"

namespace rtgate::gate {

class PolicyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Each set field replaces the less specific setting.
struct Overrides {
  std::optional<double> alpha;
  std::optional<double> noise_floor_pct;
  std::optional<double> latency_noise_floor_pct;
  std::optional<double> max_baseline_cv_pct;
  std::optional<std::vector<double>> quantiles;
  std::optional<double> budget_ns;  // same as a budgets_ns entry under the same key
  std::optional<bool> gate;         // true: gate a count metric; false: report only
};

enum class AlphaScope { kGate, kMetric };

struct Policy {
  double alpha = 0.05;
  // kGate: alpha bounds the probability that a gate of identical systems reports any regression,
  // so each of the m metrics judged is tested at alpha / m. A run of 16 locks has ~60 gated
  // metrics; at alpha per metric, three of them would be "regressed" by chance in every gate.
  AlphaScope alpha_scope = AlphaScope::kGate;
  // Set by compare(): how many metrics it judges (the m above). 1 outside compare().
  int judged_metrics = 1;
  double noise_floor_pct = 5;
  double latency_noise_floor_pct = 10;
  double max_baseline_cv_pct = 20;
  std::vector<double> quantiles = {0.99, 0.999};
  int latency_min_runs = 3;
  // "suite/metric" or "suite/case/metric" (or "suite") -> budget for the metric's exact max, ns.
  std::map<std::string, double> budgets_ns;
  std::map<std::string, Overrides> per_metric;  // the file's "metrics" section
  bool allow_env_mismatch = false;
  // false: a metric that would be regressed in a suite whose current run had user-space RT
  // threads of other processes running (hygiene.foreign_rt_threads) is inconclusive instead,
  // unless a budget decided. The foreign threads are named in the reason.
  bool allow_contaminated = false;
  std::uint64_t seed = 1;
  int bootstrap_resamples = 2000;
};

// The settings in force for one metric.
struct MetricPolicy {
  double alpha = 0.05;
  double noise_floor_pct = 5;
  double latency_noise_floor_pct = 10;
  double max_baseline_cv_pct = 20;
  std::vector<double> quantiles;
  int latency_min_runs = 3;
  std::optional<double> budget_ns;
  bool gated = true;  // latency, throughput and duration by default; counts only when named
  std::uint64_t seed = 1;
  int bootstrap_resamples = 2000;
};

MetricPolicy resolve(const Policy& policy, const std::string& suite, const std::string& case_name,
                     const std::string& metric, MetricKind kind);

// Reads a policy file. Throws PolicyError with a one-line message ("FILE:LINE: what is wrong")
// when the file cannot be read, does not parse, has an unknown key or an out-of-range value.
Policy load_policy(const std::string& path);
// The same from text; `origin` names it in messages.
Policy parse_policy(const std::string& text, const std::string& origin = "policy");

// Checks the policy's keys against the two reports: every key must name a suite, a suite's
// metric or a case's metric present in at least one of them, and a budget must be on a latency
// metric. Returns "" when the policy fits, else a one-line message naming the key and what exists.
std::string validate_policy(const Policy& policy, const RunReport& base, const RunReport& cur);

}  // namespace rtgate::gate
