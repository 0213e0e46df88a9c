// Runner: runs the selected suites — repetitions, duration, SIGINT, watchdog, hygiene and the
// live progress line — and assembles the RunReport. It knows no suite and no exporter.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "framework/measure/run_context.h"
#include "framework/params.h"
#include "framework/registry.h"
#include "framework/trace/traced_run.h"
#include "results/load_spec.h"
#include "results/report.h"

namespace rtgate {

struct SelectedSuite {
  const SuiteDescriptor* suite = nullptr;
  Params params;
};

struct RunOptions {
  double duration_s = 10;
  int runs = 1;
  std::vector<int> cpus;    // empty: every CPU the process may use
  bool require_rt = false;  // a suite that needs RT and cannot have it ends the run (exit 4)
  double watchdog_s = 10;   // a measuring thread silent this long ends its suite with "error"
  bool progress = false;    // live progress line on stdout (the CLI enables it on a TTY)
  load::LoadSpec load;      // --load, run beside every suite run (empty: none)
  trace::TraceOptions trace;  // --trace: a private trace of every run, its worst samples explained
  // Called from the runner's thread with each run's context when the run starts, and with nullptr
  // before the context goes away, for live views (rtgate serve). Never called on a measured path.
  std::function<void(const std::string& suite, RunContext* ctx)> on_run;
};

struct RunOutcome {
  RunReport report;
  bool interrupted = false;
  bool rt_unavailable = false;  // a suite was skipped for lack of RT (exit 4 with --require-rt)
  bool abandoned = false;       // a suite ignored its stop request; the process must _exit
  std::string trace_unavailable;  // --trace was asked for and could not be had: why
};

// Called after each suite with the report so far (complete = false until the end), so that the
// caller can persist partial results.
using SuiteDoneFn = std::function<void(const RunReport&)>;

RunOutcome run_suites(const std::vector<SelectedSuite>& selection, const RunOptions& options,
                      const std::atomic<bool>& interrupt, const SuiteDoneFn& on_suite_done = {});

}  // namespace rtgate
