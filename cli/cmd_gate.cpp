#include "base/io/output_file.h"
#include "cli/commands.h"
#include "cli/export_options.h"
#include "cli/gate_common.h"

namespace rtgate::cli {

void add_compare(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "compare", "mmtests-style table of BASE vs CUR: per metric, % change and significance");
  struct Opts {
    std::string base, cur, policy;
    ExportValues exports;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("BASE", o->base, "baseline result JSON")->required();
  cmd->add_option("CUR", o->cur, "current result JSON")->required();
  cmd->add_option("--policy", o->policy, "gate policy (YAML or JSON)");
  add_export_options(cmd, o->exports, kVerdictsDocument);
  cmd->callback([o, &exit_code] {
    exit_code = kExitUsage;
    if (check_exports(o->exports, kVerdictsDocument) != kExitOk) return;
    const auto base = load_result(o->base, "BASE");
    const auto cur = base ? load_result(o->cur, "CUR") : std::nullopt;
    std::optional<gate::Policy> policy = cur ? load_policy_option(o->policy) : std::nullopt;
    if (!policy) return;
    policy->allow_env_mismatch = true;  // compare shows; only gate judges comparability
    const gate::GateVerdict report = gate::compare(*base, *cur, *policy);
    exit_code = write_exports(o->exports, {.report = &*cur, .gate = &report}, kVerdictsDocument);
  });
}

void add_gate(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "gate",
      "verdict of CUR against BASE: exit 0 unchanged/improved, 1 regressed, 3 inconclusive");
  struct Opts {
    std::vector<std::string> results;
    GateInputs in;
    ExportValues exports;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("RESULT", o->results,
                  "BASE... CUR: the baseline result(s), one per session (a boot, a process), then "
                  "the current one")
      ->required()
      ->expected(1, -1);
  cmd->add_option("--policy", o->in.policy_path, "budgets, noise floors, alpha, quantiles");
  cmd->add_flag("--fail-on-inconclusive", o->in.fail_on_inconclusive,
                "exit 1 instead of 3 when the data cannot tell");
  cmd->add_flag("--allow-env-mismatch", o->in.allow_env_mismatch,
                "judge even when CPU model, CPUs, preempt model or cmdline differ");
  add_history_option(cmd, o->in);
  add_prometheus_options(cmd, o->in.prometheus);
  cmd->get_option("--history")->excludes("--prometheus");
  add_export_options(cmd, o->exports, kVerdictsDocument);
  cmd->callback([o, &exit_code] {
    if ((exit_code = check_exports(o->exports, kVerdictsDocument)) != kExitOk) return;
    if (o->results.size() < 2) {
      print_error("CUR: gate needs a baseline and a current result (rtgate gate BASE... CUR)");
      exit_code = kExitUsage;
      return;
    }
    o->in.more_baselines.assign(o->results.begin() + 1, o->results.end() - 1);
    const auto base = load_result(o->results.front(), "BASE");
    const auto cur = base ? load_result(o->results.back(), "CUR") : std::nullopt;
    if (!cur) {
      exit_code = kExitUsage;
      return;
    }
    gate::GateVerdict verdicts;
    exit_code = judge_pair(*base, *cur, o->in, &verdicts);
    if (exit_code == kExitUsage) return;
    const int exported = write_exports(
        o->exports,
        {.report = &*cur, .gate = &verdicts, .fail_on_inconclusive = o->in.fail_on_inconclusive},
        kVerdictsDocument);
    if (exported != kExitOk) exit_code = exported;
  });
}

}  // namespace rtgate::cli
