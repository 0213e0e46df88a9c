#include "cli/gate_common.h"

#include <cstdio>

#include "base/io/output_file.h"
#include "cli/commands.h"
#include "cli/export_options.h"
#include "results/result_json.h"

namespace rtgate::cli {

std::optional<RunReport> load_result(const std::string& path, const char* role) {
  try {
    return read_report_file(path);
  } catch (const JsonError& e) {
    print_error(std::string(role) + ": " + e.what());
    return std::nullopt;
  }
}

std::optional<gate::BaselineSessions> load_sessions(const RunReport& base, const GateInputs& in,
                                                    const gate::Policy& policy) {
  std::string error;
  auto sessions = gate::BaselineSessions::load(base, in.more_baselines, in.history_dir, &error);
  if (sessions && !in.prometheus.url.empty()) {
    gate::PrometheusNoise noise;
    const std::optional<gate::PrometheusSource> src = prometheus_source(in.prometheus, &error);
    if (src) error = noise.read(*src, policy, base);
    if (!src || !error.empty()) return print_error(error), std::nullopt;
    sessions->set_prometheus(std::move(noise));
  }
  if (!sessions) print_error(error);
  return sessions;
}

std::optional<gate::Policy> load_policy_option(const std::string& path) {
  try {
    return path.empty() ? gate::Policy{} : gate::load_policy(path);
  } catch (const gate::PolicyError& e) {
    print_error(std::string("--policy: ") + e.what());
    return std::nullopt;
  }
}

std::optional<gate::Policy> load_gate_policy(const RunReport& base, const RunReport& cur,
                                             const GateInputs& in) {
  const std::optional<gate::Policy> loaded = load_policy_option(in.policy_path);
  if (!loaded) return std::nullopt;
  gate::Policy policy = *loaded;
  if (const std::string why = gate::validate_policy(policy, base, cur); !why.empty()) {
    print_error("--policy: " + why);
    return std::nullopt;
  }
  policy.allow_env_mismatch = policy.allow_env_mismatch || in.allow_env_mismatch;
  return policy;
}

int report_gate(const gate::GateVerdict& report, const GateInputs& in) {
  const int printed = print_format("table", {.gate = &report}, kVerdictsDocument);
  return printed != kExitOk ? printed : gate::exit_code(report, in.fail_on_inconclusive);
}

int judge_pair(const RunReport& base, const RunReport& cur, const GateInputs& in,
               gate::GateVerdict* out) {
  const std::optional<gate::Policy> policy = load_gate_policy(base, cur, in);
  if (!policy) return kExitUsage;
  const auto sessions = load_sessions(base, in, *policy);
  if (!sessions) return kExitUsage;
  *out = sessions->compare(cur, *policy);
  return gate::exit_code(*out, in.fail_on_inconclusive);
}

int gate_and_report(const RunReport& base, const RunReport& cur, const GateInputs& in,
                    gate::GateVerdict* out) {
  const int rc = judge_pair(base, cur, in, out);
  return rc == kExitUsage ? rc : report_gate(*out, in);
}

std::optional<JudgedResult> load_judged(const std::string& result_path,
                                        const std::string& baseline_path, const GateInputs& in) {
  JudgedResult j;
  auto cur = load_result(result_path, "RESULT");
  if (!cur) return std::nullopt;
  j.current = std::move(*cur);
  if (baseline_path.empty()) return j;
  if (!(j.baseline = load_result(baseline_path, "--baseline"))) return std::nullopt;
  const auto policy = load_gate_policy(*j.baseline, j.current, in);
  if (!policy) return std::nullopt;
  const auto sessions = load_sessions(*j.baseline, in, *policy);
  if (!sessions) return std::nullopt;
  j.verdicts = sessions->compare(j.current, *policy);
  return j;
}

void add_verdict_options(CLI::App* cmd, GateInputs& in) {
  cmd->add_option("--policy", in.policy_path, "gate policy for the verdicts (as rtgate gate)");
  cmd->add_flag("--allow-env-mismatch", in.allow_env_mismatch,
                "judge even when CPU model, CPUs, preempt model or cmdline differ");
  add_history_option(cmd, in);
}

void add_history_option(CLI::App* cmd, GateInputs& in) {
  cmd->add_option("--history", in.history_dir,
                  "earlier results of this host (a directory, searched recursively): the "
                  "between-session noise is learned from those that measured the same thing");
}

}  // namespace rtgate::cli
