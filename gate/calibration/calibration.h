// `rtgate calibrate`: an A/A measurement of this host's between-run noise, and the policy it
// supports.
//
// One result with N >= 2 runs of each suite is read as one side of a gate. For each gated metric
// and each statistic the gate would judge it on (run_values.h), the per-run SD of the statistic's
// log value is what the gate's per-run variance would be on this host. From it follow
//   - the change a gate detects with 90% power at 5, 10 and 20 runs a side, at the level the gate
//     tests that statistic at (alpha / family / statistics of the metric, before Holm's step-down,
//     so the figure is the conservative one), and
//   - the smallest noise floor at which a gate of two unchanged sides says "unchanged" (the
//     (1 - 2 alpha) interval inside +-floor) at plan_runs runs a side with probability
//     0.9^(1/S), S the statistics judged: exit 0 needs all of them at once, so the whole A/A gate
//     is then unchanged about 9 times in 10 (predicted_aa_unchanged says what the floors written,
//     never below the defaults, give). Event counts' floors come from the gate's own exact
//     Poisson interval (count_estimate.h), not a normal one.
// Event counts (Metric::is_event_rate) are judged as rates, so they get a mean per run and an
// overdispersion instead of an SD, and their figures are in events per run.
#pragma once

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "gate/model/policy.h"
#include "results/report.h"

namespace rtgate::gate {

// The runs a side the detectable changes are stated for.
inline constexpr std::array<int, 3> kDetectRuns = {5, 10, 20};

struct StatisticNoise {
  std::string statistic;  // "p99", "p999", "max", "value"; "rate" for an event count
  // Per-run SD of the log value: sqrt(max(sample variance, the within-run variance the run's own
  // samples imply)), the gate's random-effects floor. NaN for "rate".
  double sd = NAN;
  double df = 0;  // runs - 1
  // At kDetectRuns runs a side: a ratio (1.18 = +18%); for "rate" a rise in events per run.
  std::array<double, 3> detectable = {NAN, NAN, NAN};
  // At plan_runs runs a side: percent, rounded up to a whole percent; for "rate" events per run,
  // rounded up to 0.1.
  double supported_floor_pct = NAN;
};

struct MetricNoise {
  std::string suite, case_name, metric, unit;
  MetricKind kind = MetricKind::kLatency;
  bool event_count = false;
  std::vector<StatisticNoise> stats;
  double rate_per_run = NAN;  // event counts: mean events per run
  double phi = 1;             // event counts: Pearson chi-square / df of per-run counts, >= 1
  std::string key() const { return suite + "/" + case_name + "/" + metric; }
};

struct CalibrationOptions {
  double alpha = 0.05;  // the gate's alpha
  int family = 100;     // the gate's family size (Policy::family_size)
  int plan_runs = 10;   // runs a side the supported floors are computed for
  // The chance each statistic must be unchanged with; <= 0: unchanged_whole^(1/S) over the S
  // statistics measured.
  double unchanged_each = 0;
  double unchanged_whole = 0.9;
};

// The noise of every gated metric of the passed suites of `report`. Statistics with fewer than
// two runs' values are left out, and metrics left with none.
std::vector<MetricNoise> measure_noise(const RunReport& report, const Policy& policy,
                                       CalibrationOptions o);

// The chance that an A/A gate of this host (one session, plan_runs runs a side) exits 0 with the
// floors calibrated_policy_yaml writes: the product over the statistics.
double predicted_aa_unchanged(const std::vector<MetricNoise>& noise, const Policy& defaults,
                              const CalibrationOptions& o);

// A policy file (YAML) for this host: `header_comment` (each line becomes a comment), alpha and
// family_size as calibrated, and per metric ("suite/case/metric") the calibrated prior and the
// floors, never below those of `defaults`. No other setting of `defaults` is copied. The text
// parses with parse_policy.
std::string calibrated_policy_yaml(const std::vector<MetricNoise>& noise, const Policy& defaults,
                                   const CalibrationOptions& o, const std::string& header_comment);

}  // namespace rtgate::gate
