// The gate's result model: a verdict per metric with its evidence, a verdict per suite (its worst
// metric), and the run's overall verdict and exit code. compare() (gate/pair/compare.h)
// produces it; the CLI, the compare table and the JUnit exporter only read it.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "gate/model/cause_diff.h"
#include "gate/model/policy.h"
#include "results/report.h"

namespace rtgate::gate {

// What each verdict promises is in gate/README.md.
enum class Verdict {
  kImproved,      // significant (after multiplicity) and beyond the noise floor, better
  kUnchanged,     // the confidence interval of the change lies inside the noise floor
  kNotWorse,      // its worse end inside the floor, its better end beyond it: a gate passes it
  kRegressed,     // significant (after multiplicity) and beyond the floor, worse; or over budget
  kInconclusive,  // neither: the data cannot tell, or the sides are not comparable
  kMissing,       // present on one side only (suite, case or metric), or skipped on one side
};

const char* to_string(Verdict verdict);  // "improved", "unchanged", ...
std::optional<Verdict> verdict_from(const std::string& s);

// Severity for "a suite takes its worst": regressed > missing > inconclusive > not_worse >
// improved > unchanged. What the baseline had and current lacks is never green: missing exits like
// inconclusive (3), since absent data proves neither a regression nor its absence.
int severity(Verdict verdict);
Verdict worst(Verdict a, Verdict b);
// What a gate passes (exit 0): unchanged, not worse or improved.
bool passes(Verdict verdict);

// What an Evidence is: a statistic's comparison, or a check of a fact.
enum class EvidenceTest {
  kRunQuantile,    // a latency quantile per run
  kRunMax,         // the per-run max
  kRunValue,       // throughput or duration per run
  kEventRate,      // event counts per run
  kBudget,         // current's exact max against the policy's absolute budget
  kZeroRuns,       // runs of a throughput that made no progress
  kWorstMax,       // current's exact max against the baseline's worst, which "unchanged" needs
  kNotComparable,  // a statistic a side does not have (an imported summary-only metric's
                   // quantiles): it keeps the metric from "unchanged", and is never a regression
  kBaselineCv,     // the baseline's spread is over the policy's max_baseline_cv_pct
  kGross,          // a gross worst-case regression, decided from one session a side: every run
                   // of current worse than every run of the baseline by the policy's factor
};
// "run_quantile", "run_max", "run_value", "event_rate", "budget", "zero_runs", "worst_max",
// "not_comparable", "baseline_cv", "gross": the names the outputs carry.
const char* to_string(EvidenceTest test);

// One statistic's comparison (or a check) behind a metric verdict.
struct Evidence {
  EvidenceTest test = EvidenceTest::kRunQuantile;
  std::string statistic;  // "p99", "p999", "max", "value", "rate"; "" for a budget
  // One-sided p-value in the worse direction (the run-level test); NaN for a budget.
  double p_value = NAN;
  double p_better = NAN;  // the same in the better direction
  // The statistic on each side, in the metric's unit: the geometric mean of the per-run values
  // (event_rate: the mean events per run); what the row's headline shows.
  double baseline = NAN, current = NAN;
  // The change and its (1 - 2 alpha_eq) interval: current/baseline ratio for log-scale
  // statistics, the difference in events per run for event_rate (ratio false).
  double effect = NAN, ci_low = NAN, ci_high = NAN;
  bool ratio = true;
  double floor = NAN;            // the noise floor in the same terms (ratio 1.10 or events per run)
  double detectable = NAN;       // smallest change detectable with 90% power, same terms
  double runs_needed = NAN;      // runs a side at which `detectable` reaches the floor (estimate;
                                 // inf when the sessions' spread alone is wider than the floor)
  double sessions_needed = NAN;  // sessions a side at which it does (NaN without session noise)
  std::string noise;             // where the session noise came from ("tau 8% from 10 sessions")
  std::string detail;            // one line, for people: figures, interval, p-value, noise floor
  // What this evidence alone indicates at the metric's level: kRegressed/kImproved when it fired,
  // kUnchanged when its interval lies inside the floor, kInconclusive otherwise.
  Verdict indicates = Verdict::kUnchanged;
  bool deciding = false;  // this evidence decided the metric's verdict
  // Its change counts for the metric's p-value in that direction: beyond the floor, and
  // consistent across runs (a one-sided Mann-Whitney U of the per-run values at alpha).
  bool counts_worse = false, counts_better = false;
};

struct MetricVerdict {
  std::string suite, case_name, metric, unit;
  MetricKind kind = MetricKind::kLatency;
  Better better = Better::kLower;
  // The headline figures, named by `statistic`: "hmean" for throughput and duration, "amean"
  // for counts, a quantile ("p99", "p999") of the merged histogram for latency, or "max" when a
  // budget decided. change_pct = 100 * (current - baseline) / baseline.
  double baseline = NAN, current = NAN, change_pct = NAN;
  std::string statistic;
  Verdict verdict = Verdict::kUnchanged;
  std::string reason;  // one line: why this verdict
  std::vector<Evidence> evidence;
  // The metric's one-sided p-values (Bonferroni over its statistics, only statistics whose
  // change counts, Evidence::counts_worse / counts_better): what Holm ranks across the gate.
  double p_worse = NAN, p_better = NAN;
  // The level its p_worse was held against (Holm's at its rank), for the table.
  double level = NAN;
  std::string decided_by;  // which evidence decided: "p999 per run", "budget", ...
  // The kind of that evidence; nullopt when none alone decided (equivalence, or undecided).
  std::optional<EvidenceTest> decided_test;
  // The key evidence's change and interval (as Evidence: a ratio, or events per run when ratio
  // is false) and the change it could detect: the deciding statistic, or the least decided one.
  double effect = NAN, effect_low = NAN, effect_high = NAN, detectable = NAN;
  bool ratio = true;
  // false for rows that are reported but not judged: count metrics the policy does not name,
  // metrics the policy switches off (gate: false), and kMissing rows for what only current has
  // (no baseline to judge against). They never affect the suite verdict. kMissing rows for what
  // the baseline had and current lacks are gated: they count, as missing.
  bool gated = true;
  // --trace evidence from the current case, for people (never judged): one line per analysed
  // worst sample ("cpu1 worst 11.2 ms: load-rt1 (pid 42, SCHED_FIFO 98) 10.5 ms 94%, ...").
  std::vector<std::string> trace;
};

struct SuiteVerdict {
  std::string suite;
  Verdict verdict = Verdict::kUnchanged;  // the worst of its gated metrics and its status
  std::string reason;                     // set when the suite itself decided (failed, missing)
  std::vector<std::string> notes;         // contamination, status differences
  std::vector<MetricVerdict> metrics;
  bool gated = true;  // false for a suite only current has (or skipped in baseline): not counted
};

struct GateVerdict {
  std::vector<SuiteVerdict> suites;
  // The worst gated suite verdict; kInconclusive whenever environment_mismatch holds (the per-suite
  // verdicts stay as measured, so the output still shows them).
  Verdict overall = Verdict::kUnchanged;
  // "field: baseline -> current" for each compared environment field that differs.
  std::vector<std::string> environment_differences;
  // A decisive environment field differs (environment_diff.h) and the policy does not allow it.
  bool environment_mismatch = false;
  // The policy's alpha, how many metrics were judged, the family Holm ran over (max(family_size,
  // judged) with alpha_scope gate, else 1), and the alpha of this look (alpha / looks).
  double alpha = 0.05, look_alpha = 0.05;
  int judged_metrics = 0, family = 1;
  Looks looks;  // the sequential look this was (policy.h); looks.max 0 for a single comparison
  // Where the session noise came from, one line ("12 sessions of history", "the default prior").
  std::string noise;
  // Why some or all of the comparison is not valid ("incomparable: ..."), each one line: differing
  // parameters or run options, an incomplete current result. Each made a suite (or the whole
  // gate) inconclusive unless allowed.
  std::vector<std::string> incomparable;
  // When both sides were traced: per case, what changed in the causes of its latency over the
  // trace threshold, and per suite (case_name "") the kernel locks whose contention grew.
  // Evidence for people, never judged (cause_compare.h).
  std::vector<CauseComparison> causes;
  // The metrics still inconclusive or missing, "suite/case/metric" (for --until-decided).
  std::vector<std::string> open_metrics() const;
  // The suites with an open metric (or an open suite verdict).
  std::vector<std::string> open_suites() const;
};

// DESIGN.md's exit codes: 1 regressed; 3 inconclusive or missing (1 with fail_on_inconclusive,
// for a CI job that must not pass on data that cannot tell); 0 unchanged and improved.
int exit_code(const GateVerdict& report, bool fail_on_inconclusive);

}  // namespace rtgate::gate
