// Faults from outside during a real run: SIGKILL (the previous -o file survives whole), SIGTERM
// and SIGHUP (an ssh session dropping: partial JSON marked incomplete, exit 130), a full disk
// (one-line error, non-zero exit, the previous file kept) and a stdout nobody reads any more
// (`rtgate run ... | head`: one line on stderr, non-zero exit, the JSON still written).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "framework/rt/rt_checks.h"
#include "tests/integration/fs_fixtures.h"
#include "tests/integration/process.h"
#include "tests/integration/result_json.h"

namespace rtgate::test {
namespace {

bool single_line(const std::string& s) { return !s.empty() && s.find('\n') == s.size() - 1; }

std::function<void(pid_t)> signal_after(int sig, double seconds) {
  return [sig, seconds](pid_t pid) {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    kill(pid, sig);
  };
}

TEST(FaultInjection, SigkillMidRunLeavesThePreviousOutputIntact) {
  SKIP_WITHOUT_FIFO();
  TempDir dir;
  const std::string previous = "{\"previous\": \"result\"}\n";
  write_all(dir.file("r.json"), previous);
  const auto r = run_rtgate({"run", "cyclic", "--duration", "30", "-o", dir.file("r.json")},
                            {.timeout_s = 20, .on_start = signal_after(SIGKILL, 1.5)});
  EXPECT_EQ(r.exit_code, 128 + SIGKILL);
  EXPECT_LT(r.seconds, 5.0);
  const std::string now = read_all(dir.file("r.json"));
  if (now != previous) {
    // Only a complete earlier save may have replaced it, never a truncated one.
    const auto doc = nlohmann::json::parse(now, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << "truncated: " << now.substr(0, 200);
  }
}

TEST(FaultInjection, SigtermAndSighupLeavePartialJsonMarkedIncomplete) {
  SKIP_WITHOUT_FIFO();
  for (const int sig : {SIGTERM, SIGHUP}) {
    TempDir dir;
    const auto r = run_rtgate({"run", "cyclic", "--duration", "30", "-o", dir.file("r.json")},
                              {.timeout_s = 20, .on_start = signal_after(sig, 1.5)});
    EXPECT_EQ(r.exit_code, 130) << strsignal(sig) << ": " << r.err;
    EXPECT_LT(r.seconds, 5.0) << strsignal(sig);
    const auto doc = nlohmann::json::parse(read_all(dir.file("r.json")), nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << strsignal(sig) << ": no JSON";
    EXPECT_FALSE(doc["complete"].get<bool>()) << strsignal(sig);
    EXPECT_GT(doc["suites"][0]["cases"].size(), 0u) << strsignal(sig) << ": the samples so far";
  }
}

// Waits (5 s at most) until `pid` catches SIGTERM: its handler is installed.
void wait_for_caught_sigterm(pid_t pid) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < until) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("SigCgt:", 0) != 0) continue;
      const unsigned long long mask = std::stoull(line.substr(7), nullptr, 16);
      if (mask & (1ULL << (SIGTERM - 1))) return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// What timeout(1) and CI runners do: a TERM to the process, then more to it or to its whole
// group while it shuts down. At start-up (the run still being prepared) and while measuring, the
// bursts go on past the write: the first begins the shutdown, none of the others cuts it short.
TEST(FaultInjection, TermBurstsToTheProcessOrItsGroupNeverCutTheShutdownShort) {
  SKIP_WITHOUT_FIFO();
  for (const double at : {0.0, 1.5}) {
    for (const bool group : {false, true}) {
      TempDir dir;
      const auto burst = [at, group](pid_t pid) {
        // Start-up: as soon as the handler is in place (an earlier TERM finds the default action
        // and nothing measured, as for any process), while the run is still being prepared.
        if (at == 0) {
          wait_for_caught_sigterm(pid);
        } else {
          std::this_thread::sleep_for(std::chrono::duration<double>(at));
        }
        for (int i = 0; i < 60; ++i) {
          if (kill(group ? -pid : pid, SIGTERM) != 0) break;  // it has exited
          std::this_thread::sleep_for(std::chrono::milliseconds(25));
        }
      };
      const auto r = run_rtgate({"run", "cyclic", "--duration", "30", "-o", dir.file("r.json")},
                                {.own_process_group = true, .timeout_s = 40, .on_start = burst});
      const std::string where = (group ? "group, " : "process, ") + std::to_string(at) + " s";
      EXPECT_EQ(r.exit_code, 130) << where << ": " << r.err;
      EXPECT_LT(r.seconds, 10.0) << where;
      const auto doc = nlohmann::json::parse(read_all(dir.file("r.json")), nullptr, false);
      ASSERT_FALSE(doc.is_discarded()) << where << ": no JSON";
      EXPECT_FALSE(doc["complete"].get<bool>()) << where;
    }
  }
}

// A second ^C ends the shutdown early, but not before a result is on disk.
TEST(FaultInjection, SecondSigintEndsEarlyAndStillLeavesAValidFile) {
  SKIP_WITHOUT_FIFO();
  TempDir dir;
  const auto twice = [](pid_t pid) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    kill(pid, SIGINT);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    kill(pid, SIGINT);
  };
  const auto r = run_rtgate({"run", "cyclic", "--duration", "30", "-o", dir.file("r.json")},
                            {.timeout_s = 40, .on_start = twice});
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_LT(r.seconds, 8.0);
  const auto doc = nlohmann::json::parse(read_all(dir.file("r.json")), nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << "no JSON";
  EXPECT_FALSE(doc["complete"].get<bool>());
}

TEST(FaultInjection, FullDiskIsAOneLineErrorAndKeepsThePreviousFile) {
  SKIP_WITHOUT_FIFO();
  TempDir dir;
  const std::string disk = dir.file("disk");
  TmpfsMount tmpfs(disk, "64k");
  if (!tmpfs.error().empty()) GTEST_SKIP() << tmpfs.error();
  const std::string previous = "{\"previous\": \"result\"}\n";
  write_all(disk + "/r.json", previous);
  tmpfs.fill("filler");
  const auto r = run_rtgate({"run", "cyclic", "--duration", "0.5", "-o", disk + "/r.json",
                             "--junit", disk + "/junit.xml"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  // One line per output that could not be written, each naming it and the reason.
  for (const char* name : {"/r.json", "/junit.xml"}) {
    EXPECT_NE(r.err.find("'" + disk + name + "': No space left on device"), std::string::npos)
        << r.err;
  }
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
  EXPECT_EQ(read_all(disk + "/r.json"), previous) << "the previous result is kept whole";
  EXPECT_FALSE(std::filesystem::exists(disk + "/junit.xml"));
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(disk)) {
    left.push_back(e.path().filename().string());
  }
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"filler", "r.json"})) << "no temp file left";
  EXPECT_NE(r.out.find("wakeup_latency"), std::string::npos) << "the table is still printed";
}

TEST(FaultInjection, BrokenStdoutIsReportedAndTheJsonStillWritten) {
  SKIP_WITHOUT_FIFO();
  TempDir dir;
  const auto r = run_rtgate({"run", "cyclic", "--duration", "0.5", "-o", dir.file("r.json")},
                            {.stdout_broken_pipe = true});
  EXPECT_EQ(r.exit_code, 1) << "killed by SIGPIPE would be " << 128 + SIGPIPE << ": " << r.err;
  EXPECT_TRUE(single_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("stdout"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Broken pipe"), std::string::npos) << r.err;
  const auto doc = nlohmann::json::parse(read_all(dir.file("r.json")), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_TRUE(doc["complete"].get<bool>());
}

}  // namespace
}  // namespace rtgate::test
