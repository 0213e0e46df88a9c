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

std::string ratio_pct(double ratio) {
  return std::isfinite(ratio) ? printf_string("+%.1f%%", 100 * (ratio - 1)) : "n/a";
}

std::vector<std::string> row_of(const gate::MetricNoise& m, const gate::StatisticNoise& s) {
  std::vector<std::string> row = {m.suite, m.case_name, m.metric};
  if (m.event_count) {
    row.push_back("rate");
    row.push_back(printf_string("%.3g/run", m.rate_per_run) +
                  (m.phi >= 1.05 ? printf_string(" phi %.1f", m.phi) : ""));
    for (double d : s.detectable) row.push_back(printf_string("+%.2g/run", d));
    row.push_back(printf_string("%.1f/run", s.supported_floor_pct));
  } else {
    row.push_back(gate::statistic_label(s.statistic));
    row.push_back(printf_string("%.1f%%", 100 * (std::exp(s.sd) - 1)));
    for (double d : s.detectable) row.push_back(ratio_pct(d));
    row.push_back(printf_string("%.0f%%", s.supported_floor_pct));
  }
  return row;
}

std::string render_table(const std::vector<gate::MetricNoise>& noise, int plan_runs) {
  std::vector<std::vector<std::string>> rows = {{"suite", "case", "metric", "statistic",
                                                 "per-run SD", "detect@5", "detect@10", "detect@20",
                                                 "floor@" + std::to_string(plan_runs)}};
  for (const gate::MetricNoise& m : noise) {
    for (const gate::StatisticNoise& s : m.stats) rows.push_back(row_of(m, s));
  }
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      // Names left-aligned, figures right-aligned so their digits line up.
      const std::string pad(width[i] - r[i].size(), ' ');
      line += (i == 0 ? "" : "  ") + (i < 4 ? r[i] + pad : pad + r[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

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
  if (const int exported = write_exports(a.run.exports, {.report = report}); exported != kExitOk) {
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
  std::fputs(render_table(noise, a.plan_runs).c_str(), stdout);
  std::printf(
      "per-run SD: between-run spread; detect@N: the change a gate detects with 90%% power at N\n"
      "runs a side; floor@%d: the smallest noise floor with which the whole A/A gate of these\n"
      "statistics is unchanged 9 times in 10 at %d runs a side. Event counts (rate): mean per\n"
      "run, its overdispersion phi when above 1, and changes in events per run.\n",
      a.plan_runs, a.plan_runs);
  std::printf(
      "predicted: with these floors (never below the defaults), an A/A gate of one session at %d\n"
      "runs a side exits 0 with probability %.0f%%; between boots, less (the session spread:\n"
      "rtgate calibrate --sessions N).\n",
      a.plan_runs, 100 * gate::predicted_aa_unchanged(noise, defaults, o));
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
    return calibrate_sessions(a.sessions, a.sessions_dir);
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
