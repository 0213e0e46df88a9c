// rtgate's own threads on housekeeping CPUs: with `cyclic -p cpus=1` the FIFO-99 watchdog and
// the runner's thread move to CPU 0 while the run goes on (off what is measured, not off
// --cpus), and a run that measures every CPU says in the result that there was none.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "framework/rt/rt_checks.h"
#include "tests/integration/fs_fixtures.h"
#include "tests/integration/process.h"

namespace rtgate::test {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// comm -> Cpus_allowed_list of each thread of `pid`; the main thread (tid == pid) as "main".
std::map<std::string, std::string> thread_cpus(pid_t pid) {
  std::map<std::string, std::string> out;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  std::error_code ec;
  for (const auto& t : std::filesystem::directory_iterator(dir, ec)) {
    std::string comm = slurp(t.path().string() + "/comm");
    while (!comm.empty() && comm.back() == '\n') comm.pop_back();
    const std::string status = slurp(t.path().string() + "/status");
    const std::size_t at = status.find("Cpus_allowed_list:");
    if (at == std::string::npos) continue;
    std::string list = status.substr(at + 18, status.find('\n', at) - at - 18);
    list.erase(0, list.find_first_not_of(" \t"));
    out[t.path().filename() == std::to_string(pid) ? "main" : comm] = list;
  }
  return out;
}

TEST(Housekeeping, WatchdogAndRunnerLeaveTheMeasuredCpu) {
  if (const std::string why = rt::probe_sched_fifo(); !why.empty()) GTEST_SKIP() << why;
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "needs 2 CPUs";
  TempDir dir;
  std::map<std::string, std::string> seen;
  const auto r = run_rtgate({"run", "cyclic", "-p", "cpus=1", "--duration", "3", "--no-progress",
                             "-o", dir.file("r.json")},
                            {.on_start = [&](pid_t pid) {
                              std::this_thread::sleep_for(std::chrono::milliseconds(2000));
                              seen = thread_cpus(pid);
                            }});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(seen.count("rtgate-watchdog")) << "threads seen: " << seen.size();
  EXPECT_EQ(seen["rtgate-watchdog"], "0");
  EXPECT_EQ(seen["main"], "0") << "the runner's (main) thread";
  EXPECT_EQ(seen["rtgate-cyc1"], "1");
  const auto doc = read_json(dir.file("r.json"));
  EXPECT_FALSE(doc["environment"]["extra"].contains("housekeeping_cpus"));
}

TEST(Housekeeping, ARunOnEveryCpuSaysThereWasNone) {
  if (const std::string why = rt::probe_sched_fifo(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  const auto r = run_rtgate(
      {"run", "cyclic", "--duration", "1", "--no-progress", "-o", dir.file("r.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = read_json(dir.file("r.json"));
  const std::string note = doc["environment"]["extra"].value("housekeeping_cpus", "");
  EXPECT_EQ(note.rfind("none: cyclic measures on every allowed CPU", 0), 0u) << note;
}

}  // namespace
}  // namespace rtgate::test
