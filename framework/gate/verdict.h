// The gate's result model: a verdict per metric with its evidence, a verdict per suite (its worst
// metric), and the run's overall verdict and exit code. compare() (framework/gate/compare.h)
// produces it; the CLI, the compare table and the JUnit exporter only read it.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "framework/report/report.h"

namespace rtgate::gate {

enum class Verdict {
  kImproved,      // significant and beyond the noise floor, in the better direction
  kUnchanged,     // no significant change beyond the noise floor
  kRegressed,     // significant and beyond the noise floor in the worse direction, or over budget
  kInconclusive,  // the data cannot tell (too few runs, noisy baseline, environments differ)
  kMissing,       // present on one side only (suite, case or metric), or skipped on one side
};

const char* to_string(Verdict verdict);  // "improved", "unchanged", ...
std::optional<Verdict> verdict_from(const std::string& s);

// Severity for "a suite takes its worst": regressed > inconclusive > missing > improved >
// unchanged. Missing ranks below inconclusive: it is reported, and does not fail the gate.
int severity(Verdict verdict);
Verdict worst(Verdict a, Verdict b);

// One test or check behind a metric verdict.
struct Evidence {
  // "welch_t", "mann_whitney_u", "bootstrap_ratio", "budget", "run_quantile", "quantile_ci",
  // "exceedance_rate", "block_maxima".
  std::string test;
  double p_value = NAN;  // NaN for checks without one (budget, quantile_ci)
  // An interval, described in `detail`: the bootstrap's current/baseline ratio, current's
  // quantile CI (ns), the exceedance rate ratio, Welch's CI of the mean difference.
  double ci_low = NAN, ci_high = NAN;
  std::string detail;  // one line, for people: figures, interval, p-value, noise floor
  // What this evidence alone indicates: kRegressed/kImproved when it fired, kUnchanged when it
  // did not, kInconclusive when it could not be evaluated (too few samples), kMissing never.
  Verdict indicates = Verdict::kUnchanged;
  // false for supporting evidence: computed and shown, but not deciding the verdict (the
  // pooled-sample latency tests when latency is judged run by run).
  bool deciding = true;
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
  // false for rows that are reported but not judged: count metrics the policy does not name,
  // metrics the policy switches off (gate: false), and kMissing rows for what only current has
  // (no baseline to judge against). They never affect the suite verdict. kMissing rows for what
  // the baseline had and current lacks are gated: they count, as missing.
  bool gated = true;
};

struct SuiteVerdict {
  std::string suite;
  Verdict verdict = Verdict::kUnchanged;  // the worst of its gated metrics and its status
  std::string reason;                     // set when the suite itself decided (failed, missing)
  std::vector<std::string> notes;         // contamination, status differences
  std::vector<MetricVerdict> metrics;
  bool gated = true;  // false for a suite only current has (or skipped in baseline): not counted
};

struct GateReport {
  std::vector<SuiteVerdict> suites;
  // The worst gated suite verdict; kInconclusive whenever environment_mismatch holds (the per-suite
  // verdicts stay as measured, so the output still shows them).
  Verdict overall = Verdict::kUnchanged;
  // "field: baseline -> current" for each compared environment field that differs.
  std::vector<std::string> environment_differences;
  // CPU model, online CPUs, preempt model or cmdline differ and the policy does not allow it.
  bool environment_mismatch = false;
  // The policy's alpha, how many metrics were judged, and the alpha each was tested at (alpha /
  // judged_metrics with alpha_scope gate, else alpha).
  double alpha = 0.05, metric_alpha = 0.05;
  int judged_metrics = 0;
};

// DESIGN.md's exit codes: 1 regressed; 3 inconclusive (1 with fail_on_inconclusive, for a CI job
// that must not pass on data that cannot tell); 0 unchanged, improved and missing.
int exit_code(const GateReport& report, bool fail_on_inconclusive);

}  // namespace rtgate::gate
