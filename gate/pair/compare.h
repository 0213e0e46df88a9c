// Baseline comparison: the gate's entry point.
//
//   RunReport base = read_report_file("base.json"), cur = read_report_file("cur.json");
//   Policy policy = load_policy("gate.yaml");                 // or Policy{} for the defaults
//   if (auto err = validate_policy(policy, base, cur); !err.empty()) { /* exit 2 */ }
//   GateVerdict g = compare(base, cur, policy);
//   return exit_code(g, fail_on_inconclusive);
//
// The replicate is the session (session_noise.h): the change's variance has a term for each
// side's session offset, from the host's history or a stated default prior.
// Suites, cases and metrics are matched by name. Whatever the baseline had and current lacks
// (absent, skipped) is a gated kMissing row: never green (exit 3). What only current has is
// reported only (gated = false). Each matched metric is judged by metric_judge.h, with variance
// priors borrowed across the metrics of one kind (variance_priors.h) or calibrated (policy), and
// the gate's multiplicity step: Holm over the judged metrics in a family of max(family_size,
// judged) at alpha / looks (alpha_scope gate), or each metric at alpha / looks (metric).
// Then, per suite: differing parameters or loads make its verdicts inconclusive (listed in
// GateVerdict::incomparable) unless allow_env_mismatch; interference on either side (foreign RT
// threads, RT throttling) makes them inconclusive unless allow_contaminated; host steal is
// weighed run by run first (steal_matching.h); a current run that failed or errored is
// regressed, one that was inconclusive (a functional check the host kept from judging) is
// inconclusive. A budget's verdict survives all of these. The overall
// verdict is the worst gated suite's, inconclusive when the environments or run options differ
// (unless a hard fact, a failure or a budget, made it regressed), and never better than
// inconclusive when the current result is incomplete.
#pragma once

#include "gate/model/policy.h"
#include "gate/model/verdict.h"
#include "gate/noise/session_noise.h"
#include "results/report.h"

namespace rtgate::gate {

// One baseline session and the default session noise (or none when both are one session).
GateVerdict compare(const RunReport& base, const RunReport& cur, const Policy& policy = {});

// Several baseline sessions (the first is primary: its suites and environment are what current is
// paired with and checked against; the others add their runs as further sessions), and the
// session noise learned from the host's history (NoiseModel::from_sessions).
GateVerdict compare(const std::vector<const RunReport*>& base_sessions, const RunReport& cur,
                    const Policy& policy, const NoiseModel& noise);

}  // namespace rtgate::gate
