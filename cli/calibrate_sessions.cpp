#include "cli/calibrate_sessions.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <vector>

#include "base/text/strings.h"
#include "cli/commands.h"
#include "cli/export_options.h"
#include "gate/noise/session_noise.h"
#include "results/result_json.h"

extern char** environ;

namespace rtgate::cli {
namespace {

// What each session's `rtgate run` is given: calibrate's run options as the user gave them,
// without -o (each session writes its own result).
std::vector<std::string> run_arguments(const RunArgs& a) {
  std::vector<std::string> out = a.selectors;
  const auto add = [&out](const char* flag, std::string value) {
    out.emplace_back(flag);
    out.push_back(std::move(value));
  };
  for (const std::string& e : a.excludes) add("--exclude", e);
  for (const std::string& p : a.params) add("--param", p);
  add("--duration", text::printf_string("%.17g", a.duration_s));
  add("--runs", std::to_string(a.runs));
  add("--watchdog", text::printf_string("%.17g", a.watchdog_s));
  if (!a.cpus.empty()) add("--cpus", a.cpus);
  if (!a.load.empty()) add("--load", a.load);
  if (a.require_rt) out.emplace_back("--require-rt");
  if (!a.trace.empty()) {
    out.push_back("--trace=" + a.trace);
    add("--trace-threshold-us", text::printf_string("%.17g", a.trace_threshold_us));
    add("--break-us", text::printf_string("%.17g", a.break_us));
    add("--trace-buffer-kb", std::to_string(a.trace_buffer_kb));
    if (!a.trace_dir.empty()) add("--trace-dir", a.trace_dir);
  }
  for (std::string& arg : export_arguments(a.exports)) out.push_back(std::move(arg));
  return out;
}

int spawn_run(const std::vector<std::string>& args, const std::string& output) {
  std::vector<std::string> all = {"/proc/self/exe", "run"};
  all.insert(all.end(), args.begin(), args.end());
  for (const char* a : {"--no-progress", "-o"}) all.emplace_back(a);
  all.push_back(output);
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), environ) != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

int calibrate_sessions(const RunArgs& run, int sessions, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return print_error("--sessions-dir: " + dir + ": " + ec.message()), kExitUsage;
  const std::vector<std::string> args = run_arguments(run);
  std::vector<RunReport> results;
  for (int k = 1; k <= sessions; ++k) {
    const std::string path = dir + "/session-" + std::to_string(k) + ".json";
    std::fprintf(stderr, "calibrate: session %d of %d -> %s\n", k, sessions, path.c_str());
    const int rc = spawn_run(args, path);
    if (rc == kExitInterrupted) return kExitInterrupted;
    try {
      results.push_back(read_report_file(path));
    } catch (const JsonError& e) {
      return print_error("session " + std::to_string(k) + " left no result (exit " +
                         std::to_string(rc) + "): " + e.what()),
             kExitFailed;
    }
  }
  std::vector<const RunReport*> known;
  for (const RunReport& r : results) known.push_back(&r);
  const gate::NoiseModel model = gate::NoiseModel::from_sessions(known, gate::Policy{});
  const CalibrationDocument doc{.sessions = &model, .session_count = sessions, .sessions_dir = dir};
  return print_format("table", {.calibration = &doc}, kCalibrationDocument);
}

}  // namespace rtgate::cli
