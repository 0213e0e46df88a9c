// What `run` and `serve` share: their options (the registered exporters' among them), and the
// checks made before any suite runs (each failure a one-line error and exit 2).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/export_options.h"
#include "framework/runner.h"
#include "gate/model/verdict.h"

namespace rtgate::cli {

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
  ExportValues exports;  // the registered exporters' options (--junit, --push, --textfile, ...)
  std::string trace;     // "" (off), "on", "locks"
  double trace_threshold_us = 0;
  double break_us = 0;
  int trace_buffer_kb = 8192;
  std::string trace_dir;
};

// Where the trace excerpts of a result go: --trace-dir, else "<output minus .json>.trace" beside
// the -o file, else "" (not saved).
std::string trace_dir_of(const RunArgs& a);
// Saves what a run has measured so far: the trace excerpts, one file per CPU, into
// trace_dir_of(a), and, when `with_json`, the result to -o. Returns the one-line errors (none
// when everything was written). Every save rewrites every file.
std::vector<std::string> save_result(const RunArgs& a, const RunReport& report, bool with_json);

// "90", "90s", "10m", "2h", "1d" -> seconds; nullopt when it is none of these, not finite, not
// positive, or longer than kMaxDurationS (a year: --every and --budget become nanoseconds).
inline constexpr double kMaxDurationS = 366 * 86400.0;
std::optional<double> parse_duration(const std::string& s);

// Adds the options above, and every registered exporter's, to `cmd`; `a` must outlive the app.
void add_run_options(CLI::App* cmd, RunArgs& a);

struct Prepared {
  std::vector<SelectedSuite> selection;
  RunOptions options;
};

// Everything that can be refused is refused here, before any suite runs: the selection, the
// parameters, -o, and every exporter's options. Returns kExitOk or kExitUsage (after printing
// the error).
int prepare(const RunArgs& a, Prepared* out);

}  // namespace rtgate::cli
