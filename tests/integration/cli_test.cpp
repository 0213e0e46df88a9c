// The rtgate CLI end to end: listing, describing, and every kind of bad input, as root and as an
// unprivileged user.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "tests/integration/process.h"

namespace rtgate::test {
namespace {

bool single_line(const std::string& s) { return !s.empty() && s.find('\n') == s.size() - 1; }

// The output of `cmd` (its first line), or "" when it fails.
std::string first_line_of(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[256];
    if (fgets(buf, sizeof buf, p) != nullptr) out = buf;
    if (pclose(p) != 0) out.clear();
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

// --version names the git revision the binary was built from (the tree's HEAD, as `git
// describe` abbreviates it), so a lab board's result can be traced to its source.
TEST(Cli, VersionNamesTheGitRevisionItWasBuiltFrom) {
  const auto r = run_rtgate({"--version"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("rtgate " RTGATE_VERSION " (git ", 0), 0u) << r.out;
  const std::string head =
      first_line_of("git -C '" RTGATE_SOURCE_DIR "' rev-parse --short=12 HEAD 2>/dev/null");
  if (head.empty()) {
    EXPECT_NE(r.out.find("(git unknown)"), std::string::npos) << r.out;
  } else {
    EXPECT_NE(r.out.find(head), std::string::npos) << "HEAD " << head << ": " << r.out;
  }
}

TEST(Cli, ListShowsCyclicWithTags) {
  const auto r = run_rtgate({"list"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("cyclic"), std::string::npos);
  EXPECT_NE(r.out.find("smoke"), std::string::npos);
  const auto j = run_rtgate({"list", "--json", "tag:smoke"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  ASSERT_TRUE(doc.is_array());
  bool found = false;
  for (const auto& s : doc) found = found || s["name"] == "cyclic";
  EXPECT_TRUE(found);
}

TEST(Cli, ListExclusionWithLeadingDash) {
  const auto r = run_rtgate({"list", "--json", "-cyclic"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& s : nlohmann::json::parse(r.out)) EXPECT_NE(s["name"], "cyclic");
}

TEST(Cli, DescribeDocumentsEveryParameter) {
  const auto r = run_rtgate({"describe", "cyclic", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  std::vector<std::string> names;
  for (const auto& p : doc["params"]) {
    names.push_back(p["name"]);
    EXPECT_FALSE(p["help"].get<std::string>().empty()) << p["name"];
    EXPECT_FALSE(p["range"].get<std::string>().empty()) << p["name"];
    EXPECT_FALSE(p["default"].get<std::string>().empty()) << p["name"];
  }
  for (const char* want : {"interval_us", "priority", "cpus", "policy", "distance_us"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
  const auto text = run_rtgate({"describe", "cyclic"});
  EXPECT_NE(text.out.find("[50, 1000000] us"), std::string::npos) << text.out;
}

TEST(Cli, EnvReportsThisMachine) {
  const auto r = run_rtgate({"env", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["online_cpus"].get<long>(), sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_TRUE(doc["readiness"].contains("sched_fifo"));
  const auto text = run_rtgate({"env"});
  EXPECT_NE(text.out.find("SCHED_FIFO"), std::string::npos);
}

// --hwlat where the kernel has no hwlat tracer (this VM's): the verdicts still come, the item
// says why it was not measured, and the exit code is 4. Where the kernel has it, the virtual
// board's test (tests/lab/readiness_test.sh) runs it.
TEST(Cli, EnvHwlatWithoutTheTracerSaysWhyAndExits4) {
  const auto bad = run_rtgate({"env", "--hwlat", "2", "--root", "/tmp"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(single_line(bad.err)) << bad.err;
  if (geteuid() != 0) GTEST_SKIP() << "needs root (tracefs)";
  std::ifstream tracers("/sys/kernel/tracing/available_tracers");
  std::string available((std::istreambuf_iterator<char>(tracers)), {});
  if (available.find("hwlat") != std::string::npos) GTEST_SKIP() << "this kernel has hwlat";
  const auto r = run_rtgate({"env", "--json", "--hwlat", "1"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  const auto& items = doc["verdicts"]["items"];
  ASSERT_FALSE(items.empty());
  EXPECT_EQ(items.back()["item"], "hardware latency");
  EXPECT_EQ(items.back()["level"], "warn");
  EXPECT_EQ(items.back()["why"],
            "not measured: the kernel has no hwlat tracer (CONFIG_HWLAT_TRACER)");
}

TEST(Cli, UnknownSuiteExits2AndSuggestsTheClosestName) {
  const auto r = run_rtgate({"run", "cyclc"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(single_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("unknown suite 'cyclc'; did you mean cyclic?"), std::string::npos) << r.err;
  EXPECT_EQ(run_rtgate({"describe", "cyclc"}).exit_code, 2);
}

TEST(Cli, BadParametersExit2NamingTheParameterAndItsRange) {
  struct Case {
    std::vector<std::string> args;
    const char* expect;
  };
  for (const Case& c : std::vector<Case>{
           {{"run", "cyclic", "-p", "interval_us=10"}, "interval_us"},
           {{"run", "cyclic", "-p", "interval_us=10"}, "[50, 1000000] us"},
           {{"run", "cyclic", "-p", "cyclic.priority=99"}, "[1, 98]"},
           {{"run", "cyclic", "-p", "policy=deadline"}, "one of fifo|rr|other"},
           {{"run", "cyclic", "-p", "nope=1"}, "no selected suite has a parameter 'nope'"},
           {{"run", "cyclic", "-p", "interval_us"}, "KEY=VALUE"},
           {{"run", "cyclic", "-p", "cpus=1-"}, "CPU list"},
           {{"run", "cyclic", "--duration", "-1"}, "duration"},
           {{"run", "cyclic", "--runs", "0"}, "runs"},
           {{"run", "cyclic", "--cpus", "4096"}, "not available"},
           {{"run", "cyclic", "--bogus"}, "bogus"},
           {{"frobnicate"}, "unknown command 'frobnicate'"}}) {
    const auto r = run_rtgate(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args.back() << ": " << r.err;
    EXPECT_TRUE(single_line(r.err)) << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << "nothing may run on bad input";
  }
}

TEST(Cli, UnwritableOutputExits2BeforeRunningAnything) {
  const auto r = run_rtgate({"run", "cyclic", "--duration", "30", "-o", "/nonexistent/dir/r.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(single_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/dir/r.json"), std::string::npos) << r.err;
  EXPECT_LT(r.seconds, 5.0) << "a 30 s run must not have started";
  TempDir dir;
  const auto d = run_rtgate({"run", "cyclic", "-o", dir.path()});
  EXPECT_EQ(d.exit_code, 2);
  EXPECT_NE(d.err.find("is a directory"), std::string::npos) << d.err;
}

TEST(Cli, AsNobodyRtSuitesAreSkippedWithAReason) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to switch to nobody";
  TempDir dir;
  const auto r = run_rtgate({"run", "cyclic", "--duration", "1", "-o", dir.file("r.json")},
                            {.as_nobody = true});
  ASSERT_NE(r.exit_code, 126) << "could not drop privileges";
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("cyclic: skipped"), std::string::npos) << r.out;
  const auto doc = nlohmann::json::parse(std::ifstream(dir.file("r.json")));
  EXPECT_EQ(doc["suites"][0]["status"], "skipped");
  EXPECT_NE(doc["suites"][0]["reason"].get<std::string>().find("SCHED_FIFO"), std::string::npos);
}

TEST(Cli, AsNobodyRequireRtExits4) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to switch to nobody";
  const auto r =
      run_rtgate({"run", "cyclic", "--duration", "1", "--require-rt"}, {.as_nobody = true});
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_TRUE(single_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("--require-rt"), std::string::npos);
}

TEST(Cli, AsNobodyBadInputStillExits2) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to switch to nobody";
  EXPECT_EQ(run_rtgate({"run", "cyclc"}, {.as_nobody = true}).exit_code, 2);
  EXPECT_EQ(run_rtgate({"run", "cyclic", "-p", "interval_us=1"}, {.as_nobody = true}).exit_code, 2);
  // /root is not writable for nobody.
  EXPECT_EQ(run_rtgate({"run", "cyclic", "-o", "/root/r.json"}, {.as_nobody = true}).exit_code, 2);
}

}  // namespace
}  // namespace rtgate::test
