#include "cli/run_common.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>

#include "base/io/atomic_file.h"
#include "base/io/output_file.h"
#include "cli/commands.h"
#include "framework/background_load/load.h"
#include "framework/background_load/load_registry.h"
#include "framework/bind_params.h"
#include "framework/rt/cpu_list.h"
#include "framework/selection.h"
#include "results/result_json.h"

namespace rtgate::cli {

std::optional<double> parse_duration(const std::string& s) {
  if (s.empty()) return std::nullopt;
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (!std::isfinite(v)) return std::nullopt;
  const std::string unit = s.substr(used);
  const double scale = unit.empty() || unit == "s" ? 1
                       : unit == "m"               ? 60
                       : unit == "h"               ? 3600
                       : unit == "d"               ? 86400
                                                   : 0;
  if (scale == 0 || !(v > 0) || v * scale > kMaxDurationS) return std::nullopt;
  return v * scale;
}

namespace {

// CLI::Range lets "nan" through (every comparison with NaN is false): numeric options check for
// a finite number first, so that `--duration nan` is a usage error (exit 2), not a run.
CLI::Validator finite_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const double v = std::strtod(text.c_str(), nullptr);
        return std::isfinite(v) ? "" : "'" + text + "' is not a finite number";
      },
      "FINITE");
}

}  // namespace

void add_run_options(CLI::App* cmd, RunArgs& a) {
  cmd->add_option("selectors", a.selectors,
                  "suite names, globs ('lock.*'), tag:NAME; -NAME excludes");
  cmd->add_option("--exclude", a.excludes, "exclude suites (same as a -SELECTOR)");
  cmd->add_option("-p,--param", a.params, "SUITE.KEY=VALUE or KEY=VALUE (see rtgate describe)");
  cmd->add_option("--duration", a.duration_s, "seconds per run")
      ->check(finite_number())
      ->check(CLI::Range(0.1, 7 * 86400.0))
      ->capture_default_str();
  cmd->add_option("--runs", a.runs, "repetitions of each suite")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  cmd->add_option("--cpus", a.cpus, "CPUs suites may use, e.g. 0-3,6 (default: all allowed)");
  cmd->add_flag("--require-rt", a.require_rt,
                "exit 4 instead of skipping when a suite cannot get SCHED_FIFO");
  cmd->add_option("-o,--output", a.output,
                  "write the result JSON here (atomically; gzip-compressed when it ends in .gz)");
  cmd->add_option("--watchdog", a.watchdog_s,
                  "seconds without progress before a measuring thread is declared stuck")
      ->check(finite_number())
      ->check(CLI::Range(0.5, 3600.0))
      ->capture_default_str();
  cmd->add_flag("--no-progress", a.no_progress, "no live progress line even on a TTY");
  std::string kinds;
  for (const auto& k : load::load_kinds()) kinds += "\n  " + k.usage + "  " + k.help;
  cmd->add_option("--load", a.load,
                  "load beside every suite run, e.g. cpu:2,fault:1,msg:1,io:1; kinds:" + kinds);
  cmd->add_flag("--trace{on}", a.trace,
                "trace each run in a private tracefs instance and explain every CPU's worst "
                "sample from it (--trace=locks: kernel lock contention too); needs root")
      ->check(CLI::IsMember({"on", "locks"}));
  cmd->add_option("--trace-threshold-us", a.trace_threshold_us,
                  "with --trace: mark samples over this in the trace and analyse them too")
      ->check(finite_number())
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--break-us", a.break_us,
                  "stop the trace and the suite at the first sample over this (implies --trace)")
      ->check(finite_number())
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--trace-buffer-kb", a.trace_buffer_kb, "with --trace: ring buffer per CPU")
      ->check(CLI::Range(64, 1 << 21))
      ->capture_default_str();
  cmd->add_option("--trace-dir", a.trace_dir,
                  "with --trace: write the trace excerpts here (default: OUTPUT.trace beside -o)");
  add_export_options(cmd, a.exports);
}

std::string trace_dir_of(const RunArgs& a) {
  if (!a.trace_dir.empty()) return a.trace_dir;
  // Not beside a device, FIFO or stdout: /dev/null.trace is no place for them.
  if (a.output.empty() || output_is_stream(a.output)) return "";
  std::string stem = a.output;
  if (stem.size() > 5 && stem.compare(stem.size() - 5, 5, ".json") == 0)
    stem.resize(stem.size() - 5);
  return stem + ".trace";
}

namespace {

std::string write_trace_excerpts(const std::string& dir, const RunReport& report) {
  std::map<std::string, std::string> files;
  auto add = [&](const trace::SampleAnalysis& a) {
    if (a.excerpt.empty() || a.excerpt_file.empty()) return;
    std::string& f = files[a.excerpt_file];
    f += "# " + a.summary(8) + " (run " + std::to_string(a.run + 1) + ", deadline " +
         std::to_string(a.deadline_ns) + " ns)\n" + a.excerpt + "\n";
  };
  for (const SuiteResult& s : report.suites) {
    for (const Case& c : s.cases) {
      for (const auto& a : c.analysis) add(a);
    }
    if (s.trace) {
      for (const auto& a : s.trace->analysis) add(a);
    }
  }
  if (files.empty()) return "";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return "cannot create " + dir + ": " + ec.message();
  for (const auto& [name, text] : files) {
    if (std::string w = write_output(dir + "/" + name, text); !w.empty()) return w;
  }
  return "";
}

}  // namespace

std::vector<std::string> save_result(const RunArgs& a, const RunReport& report, bool with_json) {
  std::vector<std::string> errors;
  if (const std::string dir = trace_dir_of(a); !dir.empty()) {
    if (std::string w = write_trace_excerpts(dir, report); !w.empty()) errors.push_back(w);
  }
  if (with_json && !a.output.empty()) {
    if (std::string w = write_result_file(a.output, report); !w.empty()) {
      errors.push_back("-o: " + w);
    }
  }
  return errors;
}

namespace {

// What write_trace_excerpts needs of `dir`, checked before anything runs as -o is: the directory
// is created with its missing parents, so the nearest part of the path that exists must be a
// directory (a symlink to one will do) that accepts a new entry.
std::string check_trace_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  fs::path p = dir;
  struct stat st {};
  while (lstat(p.c_str(), &st) != 0) {
    if (errno != ENOENT || p == ".") return "cannot create '" + dir + "': " + std::strerror(errno);
    p = p.has_parent_path() ? p.parent_path() : fs::path(".");
  }
  if (stat(p.c_str(), &st) != 0) {
    return "cannot create '" + dir + "': '" + p.string() + "': " + std::strerror(errno);
  }
  if (!S_ISDIR(st.st_mode)) {
    if (p == fs::path(dir)) return "'" + dir + "' is not a directory";
    return "cannot create '" + dir + "': '" + p.string() + "' is not a directory";
  }
  return check_atomically_writable((p / "trace").string(), dir);
}

}  // namespace

int prepare(const RunArgs& a, Prepared* out) {
  std::vector<std::string> sel = a.selectors;
  for (const auto& x : a.excludes) sel.push_back("-" + x);
  const Selection s = select_suites(Registry::instance().all(), sel, "tag:smoke");
  if (!s.ok()) return print_error(s.error), kExitUsage;
  if (s.suites.empty()) return print_error("the selection is empty"), kExitUsage;
  std::string why;
  auto bound = bind_params(s.suites, a.params, &why);
  if (!bound) return print_error(why), kExitUsage;
  out->selection = std::move(*bound);

  RunOptions& opt = out->options;
  opt.duration_s = a.duration_s;
  opt.runs = a.runs;
  opt.require_rt = a.require_rt;
  opt.watchdog_s = a.watchdog_s;
  opt.progress = !a.no_progress && isatty(STDOUT_FILENO);
  if (!a.cpus.empty()) {
    const auto cpus = text::parse_cpu_list(a.cpus);
    if (!cpus || cpus->empty())
      return print_error("--cpus '" + a.cpus + "' is not a CPU list"), kExitUsage;
    const std::vector<int> allowed = rt::allowed_cpus();
    for (int cpu : *cpus) {
      if (std::find(allowed.begin(), allowed.end(), cpu) == allowed.end()) {
        print_error("--cpus: CPU " + std::to_string(cpu) +
                    " is not available (usable: " + text::format_cpu_list(allowed) + ")");
        return kExitUsage;
      }
    }
    opt.cpus = *cpus;
  }
  std::string why_load;
  const std::optional<load::LoadSpec> loads = load::parse_load_spec(a.load, &why_load);
  if (!loads) return print_error("--load: " + why_load), kExitUsage;
  opt.load = *loads;
  opt.trace.enabled = !a.trace.empty() || a.break_us > 0;
  opt.trace.locks = a.trace == "locks";
  opt.trace.threshold_us = a.trace_threshold_us;
  opt.trace.break_us = a.break_us;
  opt.trace.buffer_kb = a.trace_buffer_kb;
  if (!opt.trace.enabled && (a.trace_threshold_us > 0 || !a.trace_dir.empty())) {
    return print_error("--trace-threshold-us and --trace-dir need --trace"), kExitUsage;
  }
  if (!a.output.empty()) {
    if (std::string w = check_output(a.output); !w.empty()) {
      return print_error("-o: " + w), kExitUsage;
    }
  }
  if (const std::string dir = opt.trace.enabled ? trace_dir_of(a) : ""; !dir.empty()) {
    if (std::string w = check_trace_dir(dir); !w.empty()) {
      return print_error((a.trace_dir.empty() ? "--trace: " : "--trace-dir: ") + w), kExitUsage;
    }
  }
  return check_exports(a.exports);
}

}  // namespace rtgate::cli
