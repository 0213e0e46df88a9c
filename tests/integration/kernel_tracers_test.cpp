// `rtgate run timerlat osnoise` on this machine: on a kernel without the tracers both suites are
// skipped with the reason (the CONFIG option named), exit 0, and no tracefs instance of the run
// is left; with them (the virtual board, tests/lab/tracers_test.sh checks the figures) they pass
// with a case per CPU. As a user other than root both are skipped, "needs root".
#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "framework/trace/kernel_tracer.h"
#include "tests/integration/process.h"

namespace rtgate::test {
namespace {

nlohmann::json load(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

std::vector<std::string> instances() {
  std::vector<std::string> out;
  if (DIR* d = opendir("/sys/kernel/tracing/instances")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') out.push_back(e->d_name);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(KernelTracers, SkippedWithTheReasonOrPassedAndNoInstanceLeft) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (tracefs)";
  const std::string timerlat =
      trace::KernelTracer::unavailable("timerlat", "CONFIG_TIMERLAT_TRACER");
  const std::string osnoise = trace::KernelTracer::unavailable("osnoise", "CONFIG_OSNOISE_TRACER");
  const std::vector<std::string> before = instances();  // tracefs is mounted by now
  TempDir dir;
  pid_t child = 0;
  const auto r = run_rtgate(
      {"run", "timerlat", "osnoise", "--duration", "2", "--no-progress", "-o", dir.file("r.json")},
      {.on_start = [&](pid_t pid) { child = pid; }});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = load(dir.file("r.json"));
  ASSERT_EQ(doc["suites"].size(), 2u);
  for (const auto& s : doc["suites"]) {
    const std::string& why = s["name"] == "timerlat" ? timerlat : osnoise;
    if (!why.empty()) {
      EXPECT_EQ(s["status"], "skipped") << s.dump();
      EXPECT_EQ(s["reason"], why);
      EXPECT_TRUE(s["cases"].empty());
    } else {
      EXPECT_EQ(s["status"], "passed") << s.dump();
      EXPECT_EQ(s["cases"].size(), static_cast<std::size_t>(sysconf(_SC_NPROCESSORS_ONLN)));
    }
  }
  if (timerlat.find("the kernel has no") == 0) {
    EXPECT_EQ(timerlat, "the kernel has no timerlat tracer (CONFIG_TIMERLAT_TRACER)");
    EXPECT_NE(r.out.find("timerlat: skipped - the kernel has no timerlat tracer "
                         "(CONFIG_TIMERLAT_TRACER)"),
              std::string::npos)
        << r.out;
  }
  const std::string mine = "rtgate-" + std::to_string(child) + "-";
  for (const std::string& name : instances()) {
    EXPECT_NE(name.rfind(mine, 0), 0u) << name << " left behind";
  }
  // Nothing else appeared either (other tests' rtgate-* instances come and go).
  for (const std::string& name : instances()) {
    if (name.rfind("rtgate-", 0) == 0) continue;
    EXPECT_NE(std::find(before.begin(), before.end(), name), before.end()) << name;
  }
}

TEST(KernelTracers, AsAnotherUserBothAreSkipped) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to become nobody";
  TempDir dir;
  const auto r = run_rtgate(
      {"run", "timerlat", "osnoise", "--duration", "1", "--no-progress", "-o", dir.file("r.json")},
      {.as_nobody = true});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // Held: a range-for over load(...)["suites"] would walk a destroyed temporary.
  const auto doc = load(dir.file("r.json"));
  for (const auto& s : doc["suites"]) {
    EXPECT_EQ(s["status"], "skipped");
    EXPECT_EQ(s["reason"], "needs root");
  }
}

}  // namespace
}  // namespace rtgate::test
