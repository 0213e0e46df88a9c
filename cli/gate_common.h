// What `compare`, `gate` and `run --baseline` share: loading the two results and the policy
// (each failure a one-line error and exit 2), comparing, and writing the outputs.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/prometheus_history.h"
#include "gate/pair/baseline_sessions.h"
#include "gate/pair/compare.h"

namespace rtgate::cli {

struct GateInputs {
  std::string policy_path;
  bool allow_env_mismatch = false;
  bool fail_on_inconclusive = false;
  // Further baseline sessions (gate BASE... CUR) and the host's history (--history DIR): what
  // the session noise is learned from (gate/pair/baseline_sessions.h).
  std::vector<std::string> more_baselines;
  std::string history_dir;
  PrometheusOptions prometheus;  // or the history in Prometheus (gate only)
};

// Reads a result file; on failure prints the one-line error and returns nullopt.
std::optional<RunReport> load_result(const std::string& path, const char* role);

// The further baselines and the history of `in` (the statistics `policy` judges); on bad input
// prints the one-line error and returns nullopt (exit 2). `base` must outlive the result.
std::optional<gate::BaselineSessions> load_sessions(const RunReport& base, const GateInputs& in,
                                                    const gate::Policy& policy);

// The policy --policy names (the default one when `path` is empty); on a bad file prints the
// one-line error and returns nullopt (exit 2).
std::optional<gate::Policy> load_policy_option(const std::string& path);

// Loads the policy and validates it against both reports, with --allow-env-mismatch applied; on
// failure prints the one-line error and returns nullopt (exit 2).
std::optional<gate::Policy> load_gate_policy(const RunReport& base, const RunReport& cur,
                                             const GateInputs& in);

// Prints the verdicts as the table format does. Returns the gate's exit code (0, 1, 3).
int report_gate(const gate::GateVerdict& report, const GateInputs& in);

// A stored result and, when a baseline is named, the baseline and the gate's verdicts on the
// result: what `report` and `export` render.
struct JudgedResult {
  RunReport current;
  std::optional<RunReport> baseline;
  std::optional<gate::GateVerdict> verdicts;
};

// Loads RESULT and, with `baseline_path`, the baseline, the policy and the comparison. On bad
// input prints the one-line error and returns nullopt (exit 2).
std::optional<JudgedResult> load_judged(const std::string& result_path,
                                        const std::string& baseline_path, const GateInputs& in);

// --policy, --allow-env-mismatch and --history on a command that renders verdicts against
// --baseline.
void add_verdict_options(CLI::App* cmd, GateInputs& in);

// --history DIR, as every command that gates takes it.
void add_history_option(CLI::App* cmd, GateInputs& in);

// load_gate_policy, the sessions (load_sessions) and the comparison into `out`, printing nothing.
// Returns the gate's exit code (0, 1, 3), or kExitUsage after printing why the input was refused.
int judge_pair(const RunReport& base, const RunReport& cur, const GateInputs& in,
               gate::GateVerdict* out);

// judge_pair, then report_gate.
int gate_and_report(const RunReport& base, const RunReport& cur, const GateInputs& in,
                    gate::GateVerdict* out);

}  // namespace rtgate::cli
