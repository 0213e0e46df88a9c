#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/io/output_file.h"
#include "base/text/units.h"
#include "cli/commands.h"
#include "cli/gate_common.h"
#include "cli/run_common.h"
#include "cli/session_inputs.h"
#include "cli/trace_threshold.h"
#include "exporters/console_table.h"
#include "framework/measure/clock.h"
#include "framework/signals.h"
#include "gate/pair/until_decided.h"

namespace rtgate::cli {
namespace {

struct RunCmdArgs {
  RunArgs run;
  std::string baseline;
  GateInputs gate;
  bool until_decided = false;
  int max_runs = 20;
  std::string budget;
  bool dry_run = false;
};

// --dry-run: what would run, after every check a real run makes before it starts.
int print_plan(const RunCmdArgs& args, const Prepared& p) {
  const RunOptions& opt = p.options;
  std::printf("dry run: %zu suite%s, %d run%s each, %g s per run\n", p.selection.size(),
              p.selection.size() == 1 ? "" : "s", opt.runs, opt.runs == 1 ? "" : "s",
              opt.duration_s);
  for (const SelectedSuite& s : p.selection) {
    std::string line = std::string("  ") + s.suite->name.value;
    for (const ParamSpec& spec : s.suite->params) {
      line += " " + spec.name + "=" + spec.format(s.params.values().at(spec.name));
    }
    if (s.suite->fixed_work) line += "  (fixed work: not bounded by --duration)";
    std::printf("%s\n", line.c_str());
  }
  const auto out = [](const char* what, const std::string& path) {
    if (!path.empty()) std::printf("  %s: %s\n", what, path.c_str());
  };
  out("result JSON", args.run.output);
  for (const auto& [flag, value] : given_exports(args.run.exports)) out(flag.c_str(), value);
  out("baseline", args.baseline);
  for (const std::string& b : args.gate.more_baselines) out("baseline session", b);
  out("history", args.gate.history_dir);
  out("policy", args.gate.policy_path);
  if (args.until_decided) {
    std::printf("  until decided: at most %d runs of a suite%s\n", args.max_runs,
                args.budget.empty() ? "" : (", within " + args.budget).c_str());
  }
  return kExitOk;
}

int run_command(const RunCmdArgs& args) {
  const std::int64_t started = monotonic_ns();
  const RunArgs& a = args.run;
  Prepared p;
  if (int rc = prepare(a, &p); rc != kExitOk) return rc;
  const RunOptions& opt = p.options;
  UntilDecided until{.first_runs = opt.runs, .max_runs = args.max_runs, .started_ns = started};
  if (args.baseline.empty() &&
      (!args.gate.more_baselines.empty() || !args.gate.history_dir.empty())) {
    return print_error("--baseline-session and --history need --baseline BASE.json"), kExitUsage;
  }
  if (args.until_decided && args.baseline.empty()) {
    return print_error("--until-decided needs --baseline BASE.json"), kExitUsage;
  }
  if (!args.budget.empty()) {
    const std::optional<double> b = parse_duration(args.budget);
    if (!b)
      return print_error("--budget '" + args.budget + "' is not a duration (e.g. 5m)"), kExitUsage;
    if (!args.until_decided) return print_error("--budget needs --until-decided"), kExitUsage;
    until.budget_s = *b;
  }

  std::optional<RunReport> baseline;
  if (!args.baseline.empty() && !(baseline = load_result(args.baseline, "--baseline"))) {
    return kExitUsage;
  }
  std::optional<gate::Policy> policy;
  if (baseline) {
    // The policy is checked against the baseline before anything runs (its keys must name
    // something there); the current side is checked again after the run.
    if (!(policy = load_gate_policy(*baseline, *baseline, args.gate))) return kExitUsage;
  }
  std::optional<SessionInputs> sessions;
  if (baseline && !(sessions = SessionInputs::load(*baseline, args.gate))) return kExitUsage;

  if (baseline && opt.trace.enabled && !(a.trace_threshold_us > 0)) {
    std::vector<std::string> names;
    for (const SelectedSuite& sel : p.selection) names.push_back(sel.suite->name.value);
    p.options.trace.chosen = choose_trace_thresholds(*baseline, names);
    for (const auto& [suite, chosen] : p.options.trace.chosen) {
      std::fprintf(stderr, "rtgate: --trace threshold for %s: %s, %s\n", suite.c_str(),
                   text::in_us(chosen.threshold_us * 1e3).c_str(), chosen.from.c_str());
    }
  }
  if (args.dry_run) return print_plan(args, p);

  const std::atomic<bool>& interrupt = install_interrupt_handler();
  // A device, FIFO or stdout gets the JSON once, at the end: its reader would see every save.
  const bool json_streamed = !a.output.empty() && output_is_stream(a.output);
  const bool json_on_stdout = !a.output.empty() && output_is_stdout(a.output);
  std::vector<std::string> write_errors;
  // Only the last save's failures count: each save rewrites every file.
  const auto save = [&](const RunReport& report, bool final) {
    write_errors = save_result(a, report, final || !json_streamed);
  };
  const auto save_partial = [&](const RunReport& report) { save(report, false); };
  RunOutcome out = run_suites(p.selection, opt, interrupt, save_partial);
  std::optional<UntilDecidedOutcome> sequential;
  if (args.until_decided && !out.interrupted && !out.abandoned) {
    save_partial(out.report);
    const JudgeFn judge = [&](const RunReport& r, const gate::Policy& look) {
      return sessions->compare(r, look);
    };
    const RunRoundFn run_round = [&](const std::vector<std::string>& open) {
      std::vector<SelectedSuite> subset;
      for (const SelectedSuite& sel : p.selection) {
        if (std::find(open.begin(), open.end(), sel.suite->name.value) != open.end()) {
          subset.push_back(sel);
        }
      }
      RunOptions more = opt;
      more.runs = 1;
      RunOutcome round = run_suites(subset, more, interrupt);
      return Round{std::move(round.report), round.interrupted, round.abandoned};
    };
    const UntilDecidedHooks hooks{.progress =
                                      [](const std::string& line) {
                                        std::printf("%s\n", line.c_str());
                                        std::fflush(stdout);
                                      },
                                  .save = save_partial};
    sequential = run_until_decided(judge, *policy, until, out.report, run_round, hooks);
    out.interrupted = sequential->interrupted;
    out.abandoned = sequential->abandoned;
  }
  save(out.report, true);
  if (json_on_stdout) {
    // stdout is the JSON (`-o -`, `-o /dev/stdout`): what people read (table, gate verdicts)
    // goes to stderr from here on, so that stdout holds exactly one document.
    std::fflush(stdout);
    dup2(STDERR_FILENO, STDOUT_FILENO);
  }
  ConsoleExporter(stdout).write(out.report);
  for (const std::string& w : write_errors) print_error(w);

  int rc = kExitOk;
  std::optional<gate::GateVerdict> verdicts;
  if (!args.baseline.empty() && !out.interrupted) {
    // The exporters (JUnit, the report, Prometheus) get the verdicts with the result.
    if (sequential) {
      // The last look's verdicts, at the alpha that look spent (a fresh comparison of the
      // final data would spend all of alpha again).
      verdicts = sequential->gate;
      rc = report_gate(*verdicts, out.report, args.gate);
      std::printf("until-decided: stopped: %s\n", sequential->stopped.c_str());
    } else {
      verdicts.emplace();
      rc = gate_and_report(*baseline, out.report, args.gate, &*verdicts);
    }
  }
  // Interrupted: the figures measured until then, without verdicts (none were reached).
  const int export_rc =
      write_exports(a.exports, {.report = out.report,
                                .gate = verdicts ? &*verdicts : nullptr,
                                .baseline = baseline ? &*baseline : nullptr,
                                .fail_on_inconclusive = args.gate.fail_on_inconclusive});
  if (export_rc != kExitOk && rc == kExitOk) rc = export_rc;
  for (const SuiteResult& s : out.report.suites) {
    if (s.status == SuiteStatus::kFailed || s.status == SuiteStatus::kError) rc = kExitFailed;
    // A functional check the host kept from judging: not a pass, not the kernel's failure.
    if (s.status == SuiteStatus::kInconclusive && rc == kExitOk) rc = kExitInconclusive;
  }
  if (!write_errors.empty()) rc = kExitFailed;
  if (opt.require_rt && out.rt_unavailable) {
    print_error("--require-rt: a suite could not run here: " + [&] {
      for (const SuiteResult& s : out.report.suites) {
        if (s.status == SuiteStatus::kSkipped) return s.name + ": " + s.reason;
      }
      return std::string("RT unavailable");
    }());
    rc = kExitEnvironment;
  }
  if (!out.trace_unavailable.empty()) {
    if (opt.require_rt) {
      print_error("--require-rt: --trace is not available here: " + out.trace_unavailable);
      rc = kExitEnvironment;
    } else {
      std::fprintf(stderr, "rtgate: warning: --trace skipped: %s\n", out.trace_unavailable.c_str());
    }
  }
  if (out.interrupted) rc = kExitInterrupted;
  if (out.abandoned) {
    // A suite thread is still running: leave without running static destructors under it.
    rc = finish_stdout(rc);
    std::fflush(nullptr);  // stderr
    _exit(rc == kExitOk ? kExitFailed : rc);
  }
  return rc;
}

}  // namespace

void add_run(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("run", "run suites (default: tag:smoke) and report the results");
  auto a = std::make_shared<RunCmdArgs>();
  add_run_options(cmd, a->run);
  cmd->add_option("--baseline", a->baseline, "gate this run against a baseline result JSON");
  cmd->add_option("--policy", a->gate.policy_path, "gate policy (with --baseline)");
  cmd->add_flag("--fail-on-inconclusive", a->gate.fail_on_inconclusive,
                "with --baseline: exit 1 instead of 3 when the data cannot tell");
  cmd->add_flag("--allow-env-mismatch", a->gate.allow_env_mismatch,
                "with --baseline: judge even when the environments differ");
  cmd->add_option("--baseline-session", a->gate.more_baselines,
                  "with --baseline: a further session (boot) of the baseline's kernel; repeat "
                  "for each");
  add_history_option(cmd, a->gate);
  cmd->add_flag("--until-decided", a->until_decided,
                "with --baseline: after --runs, add one run at a time of each suite with an "
                "inconclusive metric and gate again, until every gated metric is decided");
  cmd->add_option("--max-runs", a->max_runs, "with --until-decided: runs of a suite at most")
      ->check(CLI::Range(2, 10000))
      ->capture_default_str();
  cmd->add_option("--budget", a->budget,
                  "with --until-decided: wall time for the whole run, e.g. 5m (no round starts "
                  "that would not fit)");
  cmd->add_flag("--dry-run", a->dry_run,
                "check everything (selection, parameters, outputs, baseline, policy), print "
                "what would run and exit 0, or 2 on bad input");
  cmd->callback([a, &exit_code] { exit_code = run_command(*a); });
}

}  // namespace rtgate::cli
