// rtgate calibrate: runs the selection N times (an A/A measurement), prints this host's noise per
// gated metric and writes a policy with the priors and floors it supports.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/io/output_file.h"
#include "base/text/strings.h"
#include "cli/calibrate_sessions.h"
#include "cli/commands.h"
#include "cli/export_options.h"
#include "cli/run_common.h"
#include "framework/signals.h"
#include "gate/calibration/calibration.h"
#include "gate/noise/run_values.h"
#include "results/result_json.h"

namespace rtgate::cli {
namespace {

struct CalibrateArgs {
  RunArgs run;
  std::string policy_out;
  int plan_runs = 10;
  int sessions = 0;
  std::string sessions_dir;
};

using text::printf_string;

// The comment the policy file opens with: where, when and how it was measured.
std::string header_of(const RunReport& r, const CalibrateArgs& a,
                      const gate::CalibrationOptions& o) {
  const Environment& e = r.environment;
  std::string how = "rtgate calibrate";
  for (const auto& s : a.run.selectors) how += " " + s;
  for (const auto& s : a.run.excludes) how += " -" + s;
  for (const auto& p : a.run.params) how += " -p " + p;
  how +=
      " --runs " + std::to_string(a.run.runs) + printf_string(" --duration %g", a.run.duration_s);
  if (!a.run.cpus.empty()) how += " --cpus " + a.run.cpus;
  if (!a.run.load.empty()) how += " --load " + a.run.load;
  how += " --plan-runs " + std::to_string(o.plan_runs);
  return "rtgate calibration of host " + e.hostname + " (" + e.cpu_model + ", " +
         std::to_string(e.online_cpus) + " CPUs)\nkernel " + e.kernel_release + " " +
         e.kernel_version + ", preempt " + e.preempt_model + "\nmeasured " + r.started_at + " .. " +
         r.finished_at + ", " + std::to_string(a.run.runs) + " runs a suite, rtgate " +
         r.tool_version + "\nmade by: " + how +
         "\nValid for this host and these run options; gate results measured the same way.";
}

// After a complete run: the suites that did not pass, the result outputs, the table, the policy.
int report_and_write(const CalibrateArgs& a, const RunOutcome& out) {
  const RunReport& report = out.report;
  int rc = kExitOk;
  for (const SuiteResult& s : report.suites) {
    if (s.status == SuiteStatus::kPassed) continue;
    const bool failed = s.status == SuiteStatus::kFailed || s.status == SuiteStatus::kError;
    std::fprintf(stderr, "rtgate: %s: %s %s%s%s\n", failed ? "error" : "warning", s.name.c_str(),
                 to_string(s.status), s.reason.empty() ? "" : ": ", s.reason.c_str());
    if (failed) rc = kExitFailed;
  }
  if (a.run.require_rt && out.rt_unavailable) {
    print_error("--require-rt: a suite could not run here");
    rc = kExitEnvironment;
  }
  if (!a.run.output.empty()) {
    if (std::string w = write_result_file(a.run.output, report); !w.empty()) {
      print_error(w);
      rc = kExitFailed;
    }
  }
  if (const int exported = write_exports(a.run.exports, {.report = &report}); exported != kExitOk) {
    rc = rc == kExitOk ? exported : rc;
  }

  const gate::Policy defaults;
  const gate::CalibrationOptions o{
      .alpha = defaults.alpha, .family = defaults.family_size, .plan_runs = a.plan_runs};
  const std::vector<gate::MetricNoise> noise = gate::measure_noise(report, defaults, o);
  if (noise.empty()) {
    print_error("no passed suite measured a gated metric; nothing to calibrate");
    return rc == kExitOk ? kExitFailed : rc;
  }
  const CalibrationDocument doc{.noise = &noise, .defaults = &defaults, .options = &o};
  if (const int printed = print_format("table", {.calibration = &doc}, kCalibrationDocument);
      printed != kExitOk) {
    return printed;
  }
  if (!a.policy_out.empty()) {
    const std::string yaml =
        gate::calibrated_policy_yaml(noise, defaults, o, header_of(report, a, o));
    if (std::string w = write_output(a.policy_out, yaml); !w.empty()) {
      print_error("--policy-out: " + w);
      return kExitFailed;
    }
    std::printf("policy written to %s (use: rtgate gate BASE CUR --policy %s)\n",
                a.policy_out.c_str(), a.policy_out.c_str());
  }
  return rc;
}

int calibrate_command(const CalibrateArgs& a) {
  if (a.sessions > 0) {
    if (a.sessions_dir.empty()) return print_error("--sessions needs --sessions-dir"), kExitUsage;
    if (!a.policy_out.empty() || !a.run.output.empty()) {
      return print_error(
                 "--sessions writes one result per session into --sessions-dir; "
                 "-o and --policy-out are for a single session"),
             kExitUsage;
    }
    Prepared p;
    if (int rc = prepare(a.run, &p); rc != kExitOk) return rc;  // bad input fails before any run
    return calibrate_sessions(a.run, a.sessions, a.sessions_dir);
  }
  if (a.run.runs < 2) return print_error("calibrate needs at least 2 runs"), kExitUsage;
  Prepared p;
  if (!a.policy_out.empty()) {
    if (const std::string w = check_output(a.policy_out); !w.empty()) {
      return print_error("--policy-out: " + w), kExitUsage;
    }
  }
  if (int rc = prepare(a.run, &p); rc != kExitOk) return rc;

  const std::atomic<bool>& interrupt = install_interrupt_handler();
  RunOutcome out = run_suites(p.selection, p.options, interrupt);
  if (out.interrupted) {
    // Noise measured from part of the runs would understate it: nothing is written.
    if (out.abandoned) {
      _exit(finish_stdout(kExitInterrupted));
    }
    return kExitInterrupted;
  }
  const int rc = report_and_write(a, out);
  if (out.abandoned) {
    // A suite thread is still running: leave without running static destructors under it.
    const int final_rc = finish_stdout(rc);
    std::fflush(nullptr);
    _exit(final_rc == kExitOk ? kExitFailed : final_rc);
  }
  return rc;
}

}  // namespace

void add_calibrate(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "calibrate",
      "A/A on this host: runs the selection --runs times (at least 2), prints per gated metric "
      "the per-run noise and the change detectable at 5, 10 and 20 runs, and writes a policy "
      "(--policy-out) with this host's variance priors and the noise floors it supports");
  auto a = std::make_shared<CalibrateArgs>();
  a->run.runs = 10;  // before add_run_options, which shows it as the default
  add_run_options(cmd, a->run);
  cmd->add_option("--policy-out", a->policy_out,
                  "write the calibrated policy YAML here (atomically); -o is the result JSON");
  cmd->add_option("--plan-runs", a->plan_runs,
                  "runs a side the gates will use: the supported floors are computed for it")
      ->check(CLI::Range(2, 10000))
      ->capture_default_str();
  cmd->add_option("--sessions", a->sessions,
                  "run the selection as this many separate processes (sessions), each result in "
                  "--sessions-dir, and print the between-session spread: a history for "
                  "gate --history")
      ->check(CLI::Range(2, 1000));
  cmd->add_option("--sessions-dir", a->sessions_dir, "where --sessions writes its results");
  cmd->callback([a, &exit_code] { exit_code = calibrate_command(*a); });
}

}  // namespace rtgate::cli
