#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "base/io/output_file.h"
#include "base/text/units.h"
#include "cli/commands.h"
#include "cli/gate_common.h"
#include "cli/run_common.h"
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

// The --baseline side of a run, loaded before anything runs.
struct GateSide {
  std::optional<RunReport> baseline;
  std::optional<gate::Policy> policy;
  std::optional<gate::BaselineSessions> sessions;
};

// The gate's options checked and loaded (exit 2 on bad input), and --budget into `until`.
int load_gate_side(const RunCmdArgs& args, UntilDecided& until, GateSide& g) {
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
  if (args.baseline.empty()) return kExitOk;
  if (!(g.baseline = load_result(args.baseline, "--baseline"))) return kExitUsage;
  // The policy is checked against the baseline before anything runs (its keys must name
  // something there); the current side is checked again after the run.
  if (!(g.policy = load_gate_policy(*g.baseline, *g.baseline, args.gate))) return kExitUsage;
  if (!(g.sessions = load_sessions(*g.baseline, args.gate, *g.policy))) return kExitUsage;
  return kExitOk;
}

// --trace without --trace-threshold-us against a baseline: each suite's threshold from it.
void choose_thresholds(const RunReport& baseline, Prepared& p) {
  std::vector<std::string> names;
  for (const SelectedSuite& sel : p.selection) names.push_back(sel.suite->name.value);
  p.options.trace.chosen = choose_trace_thresholds(baseline, names);
  for (const auto& [suite, chosen] : p.options.trace.chosen) {
    std::fprintf(stderr, "rtgate: --trace threshold for %s: %s, %s\n", suite.c_str(),
                 text::in_us(chosen.threshold_us * 1e3).c_str(), chosen.from.c_str());
  }
}

// --until-decided: more runs of the open suites until the gate decides (gate/pair/until_decided).
UntilDecidedOutcome run_sequential(const Prepared& p, const GateSide& g, const UntilDecided& until,
                                   const std::atomic<bool>& interrupt,
                                   const std::function<void(const RunReport&)>& save,
                                   RunReport& report) {
  const JudgeFn judge = [&](const RunReport& r, const gate::Policy& look) {
    return g.sessions->compare(r, look);
  };
  const RunRoundFn run_round = [&](const std::vector<std::string>& open) {
    std::vector<SelectedSuite> subset;
    for (const SelectedSuite& sel : p.selection) {
      if (std::find(open.begin(), open.end(), sel.suite->name.value) != open.end()) {
        subset.push_back(sel);
      }
    }
    RunOptions more = p.options;
    more.runs = 1;
    RunOutcome round = run_suites(subset, more, interrupt);
    return Round{std::move(round.report), round.interrupted, round.abandoned};
  };
  const UntilDecidedHooks hooks{.progress =
                                    [](const std::string& line) {
                                      std::printf("%s\n", line.c_str());
                                      std::fflush(stdout);
                                    },
                                .save = save};
  return run_until_decided(judge, *g.policy, until, report, run_round, hooks);
}

// The exit code the suites' statuses, --require-rt and an unavailable --trace add to `rc`.
int run_exit_code(const RunOutcome& out, const RunOptions& opt, int rc) {
  for (const SuiteResult& s : out.report.suites) {
    if (s.status == SuiteStatus::kFailed || s.status == SuiteStatus::kError) rc = kExitFailed;
    // A functional check the host kept from judging: not a pass, not the kernel's failure.
    if (s.status == SuiteStatus::kInconclusive && rc == kExitOk) rc = kExitInconclusive;
  }
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
  return out.interrupted ? kExitInterrupted : rc;
}

// The gate's verdicts on the result, printed, and its exit code (0 without a baseline).
int gate_result(const RunCmdArgs& args, const GateSide& g,
                const std::optional<UntilDecidedOutcome>& sequential, const RunReport& report,
                std::optional<gate::GateVerdict>& verdicts) {
  if (!g.baseline) return kExitOk;
  if (sequential) {
    // The last look's verdicts, at the alpha that look spent (a fresh comparison of the final
    // data would spend all of alpha again).
    verdicts = sequential->gate;
    const int rc = report_gate(*verdicts, args.gate);
    std::printf("until-decided: stopped: %s\n", sequential->stopped.c_str());
    return rc;
  }
  verdicts.emplace();
  return gate_and_report(*g.baseline, report, args.gate, &*verdicts);
}

int run_command(const RunCmdArgs& args) {
  const std::int64_t started = monotonic_ns();
  // From the start: a signal while the run is prepared ends it before it measures, with a result
  // that says so, and the 30 s bound on a shutdown holds from the first signal on.
  const std::atomic<bool>& interrupt = install_interrupt_handler();
  const RunArgs& a = args.run;
  Prepared p;
  if (int rc = prepare(a, &p); rc != kExitOk) return rc;
  const RunOptions& opt = p.options;
  UntilDecided until{.first_runs = opt.runs, .max_runs = args.max_runs, .elapsed_s = [started] {
                       return static_cast<double>(monotonic_ns() - started) / 1e9;
                     }};
  GateSide g;
  if (int rc = load_gate_side(args, until, g); rc != kExitOk) return rc;
  if (g.baseline && opt.trace.enabled && !(a.trace_threshold_us > 0))
    choose_thresholds(*g.baseline, p);
  if (args.dry_run) return print_plan(args, p);

  // A device, FIFO or stdout gets the JSON once, at the end: its reader would see every save.
  const bool json_streamed = !a.output.empty() && output_is_stream(a.output);
  std::vector<std::string> write_errors;
  // Only the last save's failures count: each save rewrites every file.
  const auto save = [&](const RunReport& report, bool final) {
    write_errors = save_result(a, report, final || !json_streamed);
    if (write_errors.empty() && (final || !json_streamed)) note_result_saved();
  };
  const auto save_partial = [&](const RunReport& report) { save(report, false); };
  RunOutcome out = run_suites(p.selection, opt, interrupt, save_partial);
  std::optional<UntilDecidedOutcome> sequential;
  if (args.until_decided && !out.interrupted && !out.abandoned) {
    save_partial(out.report);
    sequential = run_sequential(p, g, until, interrupt, save_partial, out.report);
    out.interrupted = sequential->interrupted;
    out.abandoned = sequential->abandoned;
  }
  save(out.report, true);
  if (!a.output.empty() && output_is_stdout(a.output)) {
    // stdout is the JSON (`-o -`, `-o /dev/stdout`): what people read (table, gate verdicts)
    // goes to stderr from here on, so that stdout holds exactly one document.
    std::fflush(stdout);
    dup2(STDERR_FILENO, STDOUT_FILENO);
  }
  ConsoleExporter(stdout).write(out.report);
  for (const std::string& w : write_errors) print_error(w);

  std::optional<gate::GateVerdict> verdicts;
  // Interrupted: the figures measured until then, without verdicts (none were reached).
  int rc = out.interrupted ? kExitOk : gate_result(args, g, sequential, out.report, verdicts);
  // The exporters (JUnit, the report, Prometheus) get the verdicts with the result.
  const int export_rc =
      write_exports(a.exports, {.report = &out.report,
                                .gate = verdicts ? &*verdicts : nullptr,
                                .baseline = g.baseline ? &*g.baseline : nullptr,
                                .fail_on_inconclusive = args.gate.fail_on_inconclusive});
  if (export_rc != kExitOk && rc == kExitOk) rc = export_rc;
  if (!write_errors.empty()) rc = kExitFailed;
  rc = run_exit_code(out, opt, rc);
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
