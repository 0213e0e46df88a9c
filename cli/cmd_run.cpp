#include <unistd.h>

#include <cmath>

#include "cli/commands.h"
#include "cli/gate_common.h"
#include "cli/run_common.h"
#include "exporters/console_table.h"
#include "exporters/json_exporter.h"
#include "exporters/junit_exporter.h"
#include "framework/atomic_file.h"
#include "framework/signals.h"

namespace rtgate::cli {
namespace {

struct RunCmdArgs {
  RunArgs run;
  std::string baseline;
  GateInputs gate;
};

int run_command(const RunCmdArgs& args) {
  const RunArgs& a = args.run;
  Prepared p;
  if (int rc = prepare(a, &p, {{"--junit", args.gate.junit_path}}); rc != kExitOk) return rc;
  const RunOptions& opt = p.options;

  std::optional<RunReport> baseline;
  if (!args.baseline.empty() && !(baseline = load_result(args.baseline, "--baseline"))) {
    return kExitUsage;
  }

  const std::atomic<bool>& interrupt = install_interrupt_handler();
  std::string write_error;
  const auto save = [&](const RunReport& report) {
    if (a.output.empty()) return;
    write_error = JsonExporter(a.output).write(report);
  };
  RunOutcome out = run_suites(p.selection, opt, interrupt, save);
  save(out.report);
  ConsoleExporter(stdout).write(out.report);
  if (!write_error.empty()) print_error(write_error);

  int rc = kExitOk;
  std::optional<gate::GateReport> verdicts;
  if (!args.baseline.empty() && !out.interrupted) {
    // The run's own JUnit is replaced by the gate's, which carries the verdicts.
    verdicts.emplace();
    rc = gate_and_report(*baseline, out.report, args.gate, &*verdicts);
  } else if (!args.gate.junit_path.empty()) {
    if (std::string w =
            write_file_atomically(args.gate.junit_path, render_junit(junit_from_run(out.report)));
        !w.empty()) {
      print_error("--junit: " + w);
      rc = kExitFailed;
    }
  }
  if (const int prom_rc = export_prometheus(a, p, out.report, verdicts ? &*verdicts : nullptr);
      prom_rc != kExitOk && rc == kExitOk) {
    rc = prom_rc;
  }
  for (const SuiteResult& s : out.report.suites) {
    if (s.status == SuiteStatus::kFailed || s.status == SuiteStatus::kError) rc = kExitFailed;
  }
  if (!write_error.empty()) rc = kExitFailed;
  if (opt.require_rt && out.rt_unavailable) {
    print_error("--require-rt: a suite could not run here: " + [&] {
      for (const SuiteResult& s : out.report.suites) {
        if (s.status == SuiteStatus::kSkipped) return s.name + ": " + s.reason;
      }
      return std::string("RT unavailable");
    }());
    rc = kExitEnvironment;
  }
  if (out.interrupted) rc = kExitInterrupted;
  if (out.abandoned) {
    // A suite thread is still running: leave without running static destructors under it.
    std::fflush(nullptr);
    _exit(rc == kExitOk ? kExitFailed : rc);
  }
  return rc;
}

}  // namespace

void add_run(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("run", "run suites (default: tag:smoke) and report the results");
  auto a = std::make_shared<RunCmdArgs>();
  add_run_options(cmd, a->run);
  cmd->add_option("--junit", a->gate.junit_path, "write JUnit XML (the gate's, with --baseline)");
  cmd->add_option("--baseline", a->baseline, "gate this run against a baseline result JSON");
  cmd->add_option("--policy", a->gate.policy_path, "gate policy (with --baseline)");
  cmd->add_flag("--fail-on-inconclusive", a->gate.fail_on_inconclusive,
                "with --baseline: exit 1 instead of 3 when the data cannot tell");
  cmd->add_flag("--allow-env-mismatch", a->gate.allow_env_mismatch,
                "with --baseline: judge even when the environments differ");
  cmd->callback([a, &exit_code] { exit_code = run_command(*a); });
}

}  // namespace rtgate::cli
