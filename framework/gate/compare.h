// Baseline comparison: the gate's entry point.
//
//   RunReport base = read_report_file("base.json"), cur = read_report_file("cur.json");
//   Policy policy = load_policy("gate.yaml");                 // or Policy{} for the defaults
//   if (auto err = validate_policy(policy, base, cur); !err.empty()) { /* exit 2 */ }
//   GateReport g = compare(base, cur, policy);
//   return exit_code(g, fail_on_inconclusive);
//
// Suites, cases and metrics are matched by name. Whatever is present on one side only, or skipped
// on one side, becomes a kMissing row (no crash, no verdict): counted (as missing, which does not
// fail the gate) when the baseline had it, reported only (gated = false) when only current has it.
// Each matched metric is judged by its kind: latency by judge_latency (latency_judge.h),
// throughput and duration by judge_samples (sample_judge.h); count metrics are reported only
// (gated = false) unless the policy names them with gate: true. A regression in a suite whose
// current run had foreign user-space RT threads running is inconclusive unless
// policy.allow_contaminated (or a budget decided it). A suite whose current run failed or errored
// is regressed. A suite takes the worst verdict of its gated metrics, the report the worst of its
// gated suites, made inconclusive when the environments differ (environment_diff.h) and the
// policy does not allow it.
#pragma once

#include "framework/gate/policy.h"
#include "framework/gate/verdict.h"
#include "framework/report/report.h"

namespace rtgate::gate {

GateReport compare(const RunReport& base, const RunReport& cur, const Policy& policy = {});

// One metric: the verdict row for a metric present on both sides (the identity fields filled
// from `cur`). Exposed for `rtgate run --baseline` style callers and tests.
MetricVerdict compare_metric(const std::string& suite, const std::string& case_name,
                             const Metric& base, const Metric& cur, const Policy& policy);

}  // namespace rtgate::gate
