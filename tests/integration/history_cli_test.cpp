// `rtgate history` end to end on real results (tests/data/history-interferer: 16 sessions of this
// machine, a SCHED_FIFO interferer on CPU 1 from session 9), relabelled as kernels and stored as
// ci/gate-kernel.sh stores them: exit codes, the JSON, the notes a kernel gate needs, and bad
// input refused with one line and exit 2.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "results/gzip_codec.h"
#include "tests/integration/fs_fixtures.h"
#include "tests/integration/process.h"

namespace rtgate::test {
namespace {

namespace fs = std::filesystem;

nlohmann::json session(int i) {
  char name[80];
  std::snprintf(name, sizeof name, "/tests/data/history-interferer/s%02d.json.gz", i);
  const std::string gz = read_all(std::string(RTGATE_SOURCE_DIR) + name);
  std::string text, why;
  std::size_t len = 0;
  EXPECT_TRUE(gz::inflate_all(gz, 64u << 20, 0, &text, &len, &why)) << why;
  return nlohmann::json::parse(text.substr(0, len));
}

// Sessions 1..n under dir/<kernel>/, named as gate-kernel.sh names them: kernel_of(i) labels
// session i, suffix_of(i) is "" (passed), ".inconclusive" or ".regressed".
template <class Kernel, class Suffix>
void store(const std::string& dir, int n, Kernel kernel_of, Suffix suffix_of) {
  for (int i = 1; i <= n; ++i) {
    nlohmann::json r = session(i);
    const std::string kernel = kernel_of(i);
    r["environment"]["kernel_release"] = kernel;
    fs::create_directories(dir + "/" + kernel);
    char name[64];
    std::snprintf(name, sizeof name, "/20261203T%02d0000Z%s.json", i, suffix_of(i).c_str());
    write_all(dir + "/" + kernel + name, r.dump());
  }
}

std::string none(int) { return ""; }

TEST(HistoryCli, OneKernelIsTooShortAndTheTableNamesTheChange) {
  TempDir dir;
  store(
      dir.path(), 16, [](int) { return std::string("6.1.0-53-rt"); }, none);
  const ProcessResult r = run_rtgate({"history", dir.path()});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.out.find("cyclic/cpu1 wakeup_latency p999:\n  change point at session 9"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("history: one kernel only"), std::string::npos) << r.out;
}

TEST(HistoryCli, AKernelThatStartsAWorseSegmentExitsOneAndTheJsonSaysWhere) {
  TempDir dir;
  store(
      dir.path(), 16, [](int i) { return std::string(i < 9 ? "6.1.0-47-rt" : "6.1.0-53-rt"); },
      none);
  const ProcessResult r = run_rtgate({"history", dir.path(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 1) << r.err << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "rtgate.history/1");
  EXPECT_EQ(j["outcome"], "worse");
  EXPECT_EQ(j["newest_kernel"], "6.1.0-53-rt");
  EXPECT_EQ(j["newest_sessions"], 8);
  ASSERT_EQ(j["sessions"].size(), 16U);
  bool found = false;
  for (const nlohmann::json& s : j["series"]) {
    if (s["case"] != "cpu1" || s["metric"] != "wakeup_latency" || s["statistic"] != "p999") {
      continue;
    }
    found = true;
    EXPECT_EQ(s["values"].size(), 16U);
    ASSERT_EQ(s["change_points"].size(), 1U);
    EXPECT_EQ(s["change_points"][0]["session"], 8);
    EXPECT_EQ(s["change_points"][0]["kernel_before"], "6.1.0-47-rt");
    EXPECT_EQ(s["change_points"][0]["kernel_after"], "6.1.0-53-rt");
    EXPECT_TRUE(s["change_points"][0]["worse"]);
    EXPECT_TRUE(s["newest"]["worse"]);
  }
  EXPECT_TRUE(found);
}

// Kernel B (sessions 9-12) was inconclusive at its gates and stored so; kernel C (13-16) runs
// at B's level: C starts no worse segment, B did, and B as C's baseline is already regressed.
TEST(HistoryCli, TheNotesAKernelGateNeeds) {
  TempDir dir;
  auto kernel = [](int i) { return std::string(i < 9 ? "A" : i < 13 ? "B" : "C"); };
  store(dir.path(), 16, kernel,
        [](int i) { return std::string(i >= 9 && i < 13 ? ".inconclusive" : ""); });
  const std::string baseline = dir.path() + "/B/20261203T120000Z.inconclusive.json";
  const ProcessResult r = run_rtgate({"history", dir.path(), "--baseline", baseline});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("note: the baseline (kernel B) is in a worse segment that started at "
                       "kernel B"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("note: kernel B, inconclusive at its own gate, started a worse segment"),
            std::string::npos)
      << r.out;
}

TEST(HistoryCli, BadInputIsOneLineAndExitTwo) {
  TempDir dir;
  store(
      dir.path(), 6, [](int) { return std::string("K"); }, none);
  nlohmann::json other = session(7);
  other["environment"]["hostname"] = "another-board";
  write_all(dir.file("K/zz.json"), other.dump());
  for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"history", dir.path()}, "is not of the history of"},
           {{"history", dir.file("nothing-here")}, "no such file or directory"},
           {{"history", dir.file("K/20261203T010000Z.json"), "--baseline", dir.file("x.json")},
            "is not one of the history's results"},
           {{"history", dir.file("K/20261203T010000Z.json"), "--format", "xml"}, "--format"}}) {
    const ProcessResult r = run_rtgate(args);
    EXPECT_EQ(r.exit_code, 2) << args[1] << ": " << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  // The refusal names what differs.
  EXPECT_NE(run_rtgate({"history", dir.path()}).err.find("host another-board"), std::string::npos);
}

// Files from elsewhere in a history folder: garbage, a FIFO nobody writes, a 10 GiB sparse file
// (past the input limit; without one it would be read whole, or end the process in bad_alloc).
// Each is skipped, the bad ones named, and the history of the good ones is judged.
TEST(HistoryCli, BadFilesInAFolderAreListedAndSkipped) {
  TempDir dir;
  store(
      dir.path(), 6, [](int) { return std::string("K"); }, none);
  write_all(dir.file("K/garbage.json"), "{not json");
  ASSERT_EQ(mkfifo(dir.file("K/fifo.json").c_str(), 0644), 0);
  {
    std::FILE* f = std::fopen(dir.file("K/sparse.json").c_str(), "w");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(ftruncate(fileno(f), 10LL << 30), 0);
    std::fclose(f);
  }
  const ProcessResult r = run_rtgate({"history", dir.path()}, {.timeout_s = 60});
  EXPECT_NE(r.exit_code, 2) << r.err;
  EXPECT_LT(r.seconds, 30.0);
  // The FIFO is no regular file: never opened (it would block), nor counted as a result.
  for (const char* name : {"garbage.json", "sparse.json"}) {
    EXPECT_NE(r.err.find(dir.file("K/") + name), std::string::npos) << name << ": " << r.err;
  }
  EXPECT_NE(r.err.find("input limit of 256 MiB"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << "one line a file: " << r.err;
  EXPECT_NE(r.out.find("2 files under the directories were not results"), std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace rtgate::test
