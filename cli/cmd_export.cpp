// `rtgate export RESULT.json [exporter options]`: any registered exporter (JUnit, the textfile,
// a push, the HTML report, ...) rendered from a stored result, so that a lab can measure on the
// board and publish from elsewhere. With --baseline, the exporters get the gate's verdicts too.
// Exit 0 when everything was written whatever the verdicts, 1 when a write failed, 2 on bad input
// or when no exporter was asked for, 4 when a --push-required push failed.
#include "cli/commands.h"
#include "cli/export_options.h"
#include "cli/gate_common.h"

namespace rtgate::cli {

void add_export(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "export",
      "write JUnit, the Prometheus textfile, a push or the HTML report from a stored RESULT "
      "(with --baseline: with the gate's verdicts); exit 0 when written, whatever the verdict");
  struct Opts {
    std::string result, baseline;
    GateInputs in;
    ExportValues values;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("RESULT", o->result, "result JSON")->required();
  cmd->add_option("--baseline", o->baseline, "baseline result JSON: export the gate's verdicts");
  add_verdict_options(cmd, o->in);
  cmd->add_flag("--fail-on-inconclusive", o->in.fail_on_inconclusive,
                "JUnit: an inconclusive verdict is a failure, not a skip");
  add_export_options(cmd, o->values);
  cmd->callback([o, &exit_code] {
    exit_code = kExitUsage;
    if (check_exports(o->values) != kExitOk) return;
    if (!any_export(o->values)) {
      print_error(
          "nothing to export: give --junit, --textfile, --push or --report (see "
          "rtgate export --help)");
      return;
    }
    if ((!o->in.policy_path.empty() || o->in.allow_env_mismatch || o->in.fail_on_inconclusive) &&
        o->baseline.empty()) {
      print_error("--policy, --allow-env-mismatch and --fail-on-inconclusive need --baseline");
      return;
    }
    const auto j = load_judged(o->result, o->baseline, o->in);
    if (!j) return;
    exit_code = write_exports(o->values, {.report = &j->current,
                                          .gate = j->verdicts ? &*j->verdicts : nullptr,
                                          .baseline = j->baseline ? &*j->baseline : nullptr,
                                          .fail_on_inconclusive = o->in.fail_on_inconclusive});
  });
}

}  // namespace rtgate::cli
