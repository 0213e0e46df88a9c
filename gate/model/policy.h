// The gate policy: significance level, noise floors, which latency quantiles to gate, absolute
// latency budgets, and per-suite / per-metric overrides. Defaults need no file; a file is YAML
// (yaml-cpp) or JSON (read by the same parser, JSON being YAML's flow style):
//
//   alpha: 0.05                    # the whole gate's false-regression rate (see alpha_scope)
//   alpha_scope: gate              # gate: Holm over a fixed family of family_size metrics (or
//                                  # the judged count when larger); metric: each metric at alpha
//   family_size: 100               # metrics a gate may judge before alpha is split further
//   noise_floor_pct: 5             # throughput/duration: changes within +-5% do not matter
//   latency_noise_floor_pct: 10    # latency quantiles (per run)
//   max_noise_floor_pct: 25        # latency per-run max
//   count_floor_per_run: 1         # event counts (missed periods, overruns): events per run
//   judge_max: true                # the per-run max decides beside the quantiles
//   max_baseline_cv_pct: 0         # > 0: a noisier baseline is inconclusive (off by default)
//   quantiles: [0.99, 0.999]       # latency quantiles compared run by run
//   latency_min_runs: 2            # runs a side a metric needs (without a calibrated prior)
//   allow_env_mismatch: false
//   allow_contaminated: false      # true: judge runs that foreign RT threads disturbed
//   max_steal_pct: 1               # steal (of a run's CPU time) under which it is not weighed
//   gross_max_factor: 3            # every current run's max beyond every baseline run's max
//                                  # by this factor is regressed from one session a side; 0: off
//                                  # (default by board class: x3, x8 on a VM or emulated board)
//   gross_min_runs: 3              # current runs the gross rule needs
//   budgets_ns:                    # hard limits on a latency metric's exact max
//     cyclic/wakeup_latency: 100000
//     lock.latency/pi_mutex/acquire_latency: 50000
//   metrics:                       # overrides, keyed "suite", "suite/metric", "suite/case/metric"
//     cyclic/overruns: {gate: true}             # count metrics are gated only when named
//     lock.latency: {latency_noise_floor_pct: 20, quantiles: [0.99]}
//     cyclic/cpu0/wakeup_latency:               # written by rtgate calibrate: this host's
//       prior: {df: 19, p99: 0.08, p999: 0.15, max: 0.4}   # between-run SD of log values
//
// Keys name a suite, a metric of a suite (any case), or one case's metric. The most specific key
// wins, field by field: suite/case/metric over suite/metric over suite over the top level.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "results/report.h"

namespace rtgate::gate {

class PolicyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A per-run standard deviation (log scale) for each statistic of a metric, measured by
// `rtgate calibrate` on this host, and the degrees of freedom it was measured with: the prior of
// the moderated variance (change_estimate.h). Statistics: p50..p9999 as "p99", "p999", ..., "max"
// for latency, "value" for throughput and duration.
struct CalibratedPrior {
  double df = 0;
  std::map<std::string, double> sd;
};

// Each set field replaces the less specific setting.
struct Overrides {
  std::optional<double> alpha;
  std::optional<double> noise_floor_pct;
  std::optional<double> latency_noise_floor_pct;
  std::optional<double> max_noise_floor_pct;
  std::optional<double> count_floor_per_run;
  std::optional<bool> judge_max;
  std::optional<CalibratedPrior> prior;
  std::optional<double> max_baseline_cv_pct;
  std::optional<std::vector<double>> quantiles;
  std::optional<double> budget_ns;  // same as a budgets_ns entry under the same key
  std::optional<bool> gate;         // true: gate a count metric; false: report only
  std::optional<double> gross_max_factor;
};

enum class AlphaScope { kGate, kMetric };

// run --until-decided: the current side is judged after `first` runs and then after every further
// run, up to `max`; this comparison is the look at `runs`. Each look spends a share of alpha by
// the information it adds (a Lan-DeMets power family with rho = 3 on the information fraction
// t = n / max): t^3 at the first look, t^3 - ((n - 1) / max)^3 at look n. The shares sum to 1,
// so the whole sequence keeps alpha whichever look it stops at (Bonferroni over the looks), and
// the later looks, where the power is, get the larger shares.
struct Looks {
  int first = 0, runs = 0, max = 0;  // max 0: a single comparison (share 1)
  double share() const {
    if (max <= 0 || runs <= 0) return 1;
    auto f = [&](double n) { return std::pow(std::min(n, static_cast<double>(max)) / max, 3); };
    if (runs <= first) return f(first);
    return f(runs) - f(runs - 1);
  }
};

struct Policy {
  double alpha = 0.05;
  // kGate: alpha bounds the probability that a gate of identical systems reports any regression
  // (gate/README.md): Holm over a family of max(family_size, m) metrics, m the number
  // judged. A metric's verdict then does not depend on what else was selected, up to
  // family_size metrics. kMetric: each metric at alpha.
  AlphaScope alpha_scope = AlphaScope::kGate;
  int family_size = 100;
  Looks looks;
  double noise_floor_pct = 5;
  double latency_noise_floor_pct = 10;
  double max_noise_floor_pct = 25;
  double count_floor_per_run = 1;
  bool judge_max = true;
  double max_baseline_cv_pct = 0;
  std::vector<double> quantiles = {0.99, 0.999};
  int latency_min_runs = 2;
  // "suite/metric" or "suite/case/metric" (or "suite") -> budget for the metric's exact max, ns.
  std::map<std::string, double> budgets_ns;
  std::map<std::string, Overrides> per_metric;  // the file's "metrics" section
  bool allow_env_mismatch = false;
  // false: a metric that would be regressed in a suite whose current run had user-space RT
  // threads of other processes running (hygiene.foreign_rt_threads) is inconclusive instead,
  // unless a budget decided. The foreign threads are named in the reason.
  bool allow_contaminated = false;
  // Host steal under this share of each run's CPU time (percent), on both sides, is not weighed;
  // over it, runs are compared only with runs that lost as much (steal_matching.h).
  double max_steal_pct = 1;
  // The gross worst-case rule (gate/pair/worst_case.h): a latency metric whose every current run
  // has a max beyond gross_max_factor times every baseline run's max, or an event rate whose
  // every current run has that factor times any baseline run's count (at least its floor), is
  // regressed from one session a side, when current has at least gross_min_runs runs. x3 is LKP's
  // factor for latency; 0 turns the rule off; unset, the gate takes the board class's
  // (worst_case.h).
  std::optional<double> gross_max_factor;
  int gross_min_runs = 3;
};

// The settings in force for one metric.
struct MetricPolicy {
  double alpha = 0.05;  // the policy's alpha (or the override); levels.h splits it
  double noise_floor_pct = 5;
  double latency_noise_floor_pct = 10;
  double max_noise_floor_pct = 25;
  double count_floor_per_run = 1;
  bool judge_max = true;
  std::optional<CalibratedPrior> prior;
  double max_baseline_cv_pct = 0;
  std::vector<double> quantiles;
  int latency_min_runs = 2;
  std::optional<double> budget_ns;
  // Latency, throughput, duration and event counts (Metric::gated_by_default) by default;
  // other counts (a fairness %) only when the policy names them.
  bool gated = true;
  double gross_max_factor = 3;
  int gross_min_runs = 3;
};

// `gated_by_default`: the metric's own declaration (Metric::gated_by_default).
MetricPolicy resolve(const Policy& policy, const std::string& suite, const std::string& case_name,
                     const std::string& metric, bool gated_by_default);

// A policy is a few hundred lines; a bigger file is refused before YAML parsing, whose memory
// grows far faster than the text.
inline constexpr std::size_t kMaxPolicyBytes = std::size_t{4} << 20;
// Reads a policy file. Throws PolicyError with a one-line message ("FILE:LINE: what is wrong")
// when the file cannot be read, is past kMaxPolicyBytes, does not parse, has an unknown key or an
// out-of-range value.
Policy load_policy(const std::string& path);
// The same from text; `origin` names it in messages.
Policy parse_policy(const std::string& text, const std::string& origin = "policy");

// Checks the policy's keys against the two reports: every key must name a suite, a suite's
// metric or a case's metric present in at least one of them, and a budget must be on a latency
// metric. Returns "" when the policy fits, else a one-line message naming the key and what exists.
std::string validate_policy(const Policy& policy, const RunReport& base, const RunReport& cur);

}  // namespace rtgate::gate
