#include "cli/calibrate_sessions.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <vector>

#include "cli/commands.h"
#include "cli/export_options.h"
#include "gate/noise/session_noise.h"
#include "results/result_json.h"

extern char** environ;

namespace rtgate::cli {
namespace {

// This process's arguments after "calibrate", without what only calibrate takes and without the
// result path: what each session's `rtgate run` gets.
std::vector<std::string> run_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (std::size_t at = 0; at < all.size();) {
    const std::size_t end = all.find('\0', at);
    args.push_back(all.substr(at, end - at));
    at = end == std::string::npos ? all.size() : end + 1;
  }
  static const std::set<std::string> valued = {
      "--sessions", "--sessions-dir", "--policy-out", "--plan-runs", "-o", "--output"};
  std::vector<std::string> out;
  bool after = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (!after) {
      after = a == "calibrate";
      continue;
    }
    const std::string name = a.substr(0, a.find('='));
    if (valued.count(name) != 0) {
      if (name == a) ++i;  // "--sessions 10": skip the value too
      continue;
    }
    out.push_back(a);
  }
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

int calibrate_sessions(int sessions, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return print_error("--sessions-dir: " + dir + ": " + ec.message()), kExitUsage;
  const std::vector<std::string> args = run_arguments();
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
