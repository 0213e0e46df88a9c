#include <unistd.h>

#include <cmath>

#include "cli/commands.h"
#include "cli/gate_common.h"
#include "exporters/console_table.h"
#include "exporters/json_exporter.h"
#include "exporters/junit_exporter.h"
#include "framework/atomic_file.h"
#include "framework/bind_params.h"
#include "framework/load/load.h"
#include "framework/load/load_registry.h"
#include "framework/rt/cpu_list.h"
#include "framework/selection.h"
#include "framework/signals.h"

namespace rtgate::cli {
namespace {

struct RunArgs {
  std::vector<std::string> selectors, excludes, params;
  double duration_s = 10;
  int runs = 1;
  std::string cpus;
  bool require_rt = false;
  std::string output;
  double watchdog_s = 10;
  bool no_progress = false;
  std::string load;
  std::string baseline;
  GateInputs gate;
};

// Everything that can be refused is refused here, before any suite runs.
int prepare(const RunArgs& a, std::vector<SelectedSuite>* selection, RunOptions* opt) {
  std::vector<std::string> sel = a.selectors;
  for (const auto& x : a.excludes) sel.push_back("-" + x);
  const Selection s = select_suites(Registry::instance().all(), sel, "tag:smoke");
  if (!s.ok()) return print_error(s.error), kExitUsage;
  if (s.suites.empty()) return print_error("the selection is empty"), kExitUsage;
  std::string why;
  auto bound = bind_params(s.suites, a.params, &why);
  if (!bound) return print_error(why), kExitUsage;
  *selection = std::move(*bound);

  opt->duration_s = a.duration_s;
  opt->runs = a.runs;
  opt->require_rt = a.require_rt;
  opt->watchdog_s = a.watchdog_s;
  opt->progress = !a.no_progress && isatty(STDOUT_FILENO);
  if (!a.cpus.empty()) {
    const auto cpus = rt::parse_cpu_list(a.cpus);
    if (!cpus || cpus->empty())
      return print_error("--cpus '" + a.cpus + "' is not a CPU list"), kExitUsage;
    const std::vector<int> allowed = rt::allowed_cpus();
    for (int cpu : *cpus) {
      if (std::find(allowed.begin(), allowed.end(), cpu) == allowed.end()) {
        print_error("--cpus: CPU " + std::to_string(cpu) +
                    " is not available (usable: " + rt::format_cpu_list(allowed) + ")");
        return kExitUsage;
      }
    }
    opt->cpus = *cpus;
  }
  if (std::string why_load; !load::parse_load_spec(a.load, &why_load)) {
    return print_error("--load: " + why_load), kExitUsage;
  }
  opt->load = a.load;
  for (const auto& [flag, path] : {std::pair{"--junit", a.gate.junit_path}}) {
    if (path.empty()) continue;
    if (std::string w = check_writable(path); !w.empty()) {
      return print_error(std::string(flag) + ": " + w), kExitUsage;
    }
  }
  if (!a.output.empty()) {
    if (std::string w = check_writable(a.output); !w.empty()) {
      return print_error("-o: " + w), kExitUsage;
    }
  }
  return kExitOk;
}

int run_command(const RunArgs& a) {
  std::vector<SelectedSuite> selection;
  RunOptions opt;
  if (int rc = prepare(a, &selection, &opt); rc != kExitOk) return rc;

  std::optional<RunReport> baseline;
  if (!a.baseline.empty() && !(baseline = load_result(a.baseline, "--baseline"))) return kExitUsage;

  const std::atomic<bool>& interrupt = install_interrupt_handler();
  std::string write_error;
  const auto save = [&](const RunReport& report) {
    if (a.output.empty()) return;
    write_error = JsonExporter(a.output).write(report);
  };
  RunOutcome out = run_suites(selection, opt, interrupt, save);
  save(out.report);
  ConsoleExporter(stdout).write(out.report);
  if (!write_error.empty()) print_error(write_error);

  int rc = kExitOk;
  if (!a.baseline.empty() && !out.interrupted) {
    // The run's own JUnit is replaced by the gate's, which carries the verdicts.
    rc = gate_and_report(*baseline, out.report, a.gate);
  } else if (!a.gate.junit_path.empty()) {
    if (std::string w =
            write_file_atomically(a.gate.junit_path, render_junit(junit_from_run(out.report)));
        !w.empty()) {
      print_error("--junit: " + w);
      rc = kExitFailed;
    }
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
  auto a = std::make_shared<RunArgs>();
  cmd->add_option("selectors", a->selectors,
                  "suite names, globs ('lock.*'), tag:NAME; -NAME excludes");
  cmd->add_option("--exclude", a->excludes, "exclude suites (same as a -SELECTOR)");
  cmd->add_option("-p,--param", a->params, "SUITE.KEY=VALUE or KEY=VALUE (see rtgate describe)");
  cmd->add_option("--duration", a->duration_s, "seconds per run")
      ->check(CLI::Range(0.1, 7 * 86400.0))
      ->capture_default_str();
  cmd->add_option("--runs", a->runs, "repetitions of each suite")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  cmd->add_option("--cpus", a->cpus, "CPUs suites may use, e.g. 0-3,6 (default: all allowed)");
  cmd->add_flag("--require-rt", a->require_rt,
                "exit 4 instead of skipping when a suite cannot get SCHED_FIFO");
  cmd->add_option("-o,--output", a->output, "write the result JSON here (atomically)");
  cmd->add_option("--watchdog", a->watchdog_s,
                  "seconds without progress before a measuring thread is declared stuck")
      ->check(CLI::Range(0.5, 3600.0))
      ->capture_default_str();
  cmd->add_flag("--no-progress", a->no_progress, "no live progress line even on a TTY");
  cmd->add_option("--junit", a->gate.junit_path, "write JUnit XML (the gate's, with --baseline)");
  cmd->add_option("--baseline", a->baseline, "gate this run against a baseline result JSON");
  cmd->add_option("--policy", a->gate.policy_path, "gate policy (with --baseline)");
  cmd->add_flag("--fail-on-inconclusive", a->gate.fail_on_inconclusive,
                "with --baseline: exit 1 instead of 3 when the data cannot tell");
  cmd->add_flag("--allow-env-mismatch", a->gate.allow_env_mismatch,
                "with --baseline: judge even when the environments differ");
  std::string kinds;
  for (const auto& k : load::load_kinds()) kinds += "\n  " + k.usage + "  " + k.help;
  cmd->add_option("--load", a->load,
                  "load beside every suite run, e.g. cpu:2,fault:1,msg:1,io:1; kinds:" + kinds);
  cmd->callback([a, &exit_code] { exit_code = run_command(*a); });
}

}  // namespace rtgate::cli
