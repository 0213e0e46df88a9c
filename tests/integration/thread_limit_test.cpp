// Thread creation failing part-way through a suite (a real limit: a pids cgroup whose pids.max
// lets rtgate's own three threads and one of the suite's start): the threads already started
// must not wait forever for the others at a start barrier. The suite ends at once as "error"
// naming the thread that could not start (not "abandoned" after the 5 s grace), and the result
// is still written.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "framework/rt/rt_checks.h"
#include "tests/integration/process.h"

namespace rtgate::test {
namespace {

// A pids cgroup (v1 hierarchy, or v2 with the pids controller) limited to `max` tasks; removed
// by the destructor once the child in it has exited.
class PidsCgroup {
 public:
  explicit PidsCgroup(int max) {
    const std::string name = "rtgate-test-" + std::to_string(getpid());
    for (const std::string root : {"/sys/fs/cgroup/pids", "/sys/fs/cgroup"}) {
      if (access((root + "/cgroup.procs").c_str(), W_OK) != 0) continue;
      const std::string dir = root + "/" + name;
      if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) continue;
      std::ofstream(dir + "/pids.max") << max << "\n";
      if (access((dir + "/pids.max").c_str(), R_OK) != 0) {
        rmdir(dir.c_str());
        continue;
      }
      dir_ = dir;
      return;
    }
  }
  ~PidsCgroup() {
    if (!dir_.empty()) rmdir(dir_.c_str());
  }
  bool ok() const { return !dir_.empty(); }
  std::string procs() const { return dir_ + "/cgroup.procs"; }

 private:
  std::string dir_;
};

struct Case {
  const char* suite;
  std::vector<std::string> params;
};

class ThreadLimit : public ::testing::TestWithParam<Case> {};

TEST_P(ThreadLimit, ASuiteWhoseThreadsCannotAllStartEndsAsAnErrorAtOnce) {
  if (const std::string why = rt::probe_sched_fifo(); !why.empty()) GTEST_SKIP() << why;
  // rtgate's main, suite and watchdog threads, and one thread of the suite's.
  PidsCgroup cg(4);
  if (!cg.ok()) GTEST_SKIP() << "no writable pids cgroup";
  TempDir dir;
  std::vector<std::string> args = {"run", GetParam().suite,  "--duration", "30", "--no-progress",
                                   "-o",  dir.file("r.json")};
  for (const auto& p : GetParam().params) args.insert(args.end(), {"-p", p});
  const auto r = run_rtgate(args, {.timeout_s = 60, .cgroup_procs = cg.procs()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  // Well under the 5 s grace after which a hung suite is abandoned: a failure to create a
  // thread stops the run within one period of the threads already running.
  EXPECT_LT(r.seconds, 4.0) << r.out;
  std::ifstream in(dir.file("r.json"));
  ASSERT_TRUE(in) << "no result written; " << r.err;
  const auto suite = nlohmann::json::parse(in)["suites"][0];
  EXPECT_EQ(suite["status"], "error");
  const std::string reason = suite["reason"];
  EXPECT_NE(reason.find("cannot start"), std::string::npos) << reason;
  EXPECT_EQ(reason.find("abandoned"), std::string::npos) << reason;
}

// Room for rtgate's main thread and one more: the watchdog (created first, so nothing of the
// suite ever runs unguarded) takes it and the suite's own thread cannot start. Before, the suite's
// thread came first and the watchdog's failure unwound past a joinable std::thread: abort (134),
// no result.
TEST(ThreadLimitRunner, NoRoomForTheSuitesThreadIsAnErrorWithAResult) {
  if (const std::string why = rt::probe_sched_fifo(); !why.empty()) GTEST_SKIP() << why;
  PidsCgroup cg(2);
  if (!cg.ok()) GTEST_SKIP() << "no writable pids cgroup";
  TempDir dir;
  const auto r =
      run_rtgate({"run", "cyclic", "--duration", "5", "--no-progress", "-o", dir.file("r.json")},
                 {.timeout_s = 60, .cgroup_procs = cg.procs()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  std::ifstream in(dir.file("r.json"));
  ASSERT_TRUE(in) << "no result written; " << r.err;
  const auto suite = nlohmann::json::parse(in)["suites"][0];
  EXPECT_EQ(suite["status"], "error");
  EXPECT_NE(suite["reason"].get<std::string>().find("cannot start the suite's thread"),
            std::string::npos)
      << suite["reason"];
}

INSTANTIATE_TEST_SUITE_P(
    Suites, ThreadLimit,
    ::testing::Values(Case{"cyclic", {}}, Case{"lock.throughput", {"locks=pi_mutex", "threads=8"}},
                      Case{"lock.throughput", {"locks=pi_mutex", "threads=8", "policy=fifo"}},
                      Case{"lock.latency", {"locks=pi_mutex", "nonrt_threads=8"}},
                      Case{"lock.latency", {"locks=pi_mutex", "rt_threads=4", "nonrt_threads=0"}},
                      Case{"pi.stress", {"groups=4"}}, Case{"mm.pft", {"threads=8", "sweep=false"}},
                      Case{"futex.hash", {"threads=8"}}),
    [](const auto& param_info) {
      std::string name =
          std::string(param_info.param.suite) + "_" + std::to_string(param_info.index);
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

}  // namespace
}  // namespace rtgate::test
