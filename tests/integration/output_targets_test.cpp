// Where -o and --junit point: a symlink (its target is written, the link stays), a character
// device or FIFO (streamed to, never replaced), "-" or fd 1's own file (stdout), a full device
// (one-line error, non-zero exit). Every node is the test's own, in its temp dir: the machine's
// /dev/null and /dev/stdout are never named, and are checked to be intact afterwards.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/integration/fs_fixtures.h"
#include "tests/integration/process.h"

namespace rtgate::test {
namespace {

bool single_line(const std::string& s) { return !s.empty() && s.find('\n') == s.size() - 1; }

// A short real run: cyclic needs SCHED_FIFO, which the integration tests have as root.
std::vector<std::string> short_run(const std::vector<std::string>& outputs) {
  std::vector<std::string> args{"run", "cyclic", "--duration", "0.5"};
  args.insert(args.end(), outputs.begin(), outputs.end());
  return args;
}

bool complete_result(const std::string& text) {
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  return !doc.is_discarded() && doc.value("schema", "") == "rtgate.result/3" &&
         doc.value("complete", false);
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void expect_machine_nodes_intact() {
  EXPECT_TRUE(is_char_device("/dev/null", 1, 3)) << "/dev/null is no longer the null device";
  EXPECT_EQ(node_type("/dev/stdout"), 'l') << "/dev/stdout is no longer a symlink";
}

TEST(OutputTargets, SymlinkTargetIsWrittenAndTheLinkKept) {
  TempDir dir;
  write_all(dir.file("target.json"), "previous\n");
  std::filesystem::create_symlink("target.json", dir.file("r.json"));
  std::filesystem::create_symlink("junit-target.xml", dir.file("junit.xml"));  // dangling
  const auto r =
      run_rtgate(short_run({"-o", dir.file("r.json"), "--junit", dir.file("junit.xml")}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(node_type(dir.file("r.json")), 'l') << "the symlink was replaced";
  EXPECT_EQ(node_type(dir.file("junit.xml")), 'l') << "the dangling symlink was replaced";
  EXPECT_TRUE(complete_result(read_all(dir.file("target.json"))));
  EXPECT_NE(read_all(dir.file("junit-target.xml")).find("<testsuites"), std::string::npos);
  EXPECT_EQ(entries(dir.path()),
            (std::vector<std::string>{"junit-target.xml", "junit.xml", "r.json", "target.json"}))
      << "no temp file left behind";
}

TEST(OutputTargets, CharDeviceIsWrittenToNotReplaced) {
  if (geteuid() != 0) GTEST_SKIP() << "mknod needs root";
  TempDir dir;
  ASSERT_EQ(make_char_device(dir.file("null"), 1, 3), "");
  const auto r = run_rtgate(short_run({"-o", dir.file("null"), "--junit", dir.file("null")}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(is_char_device(dir.file("null"), 1, 3)) << "the device node was replaced";
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"null"}) << "no temp file, no null.trace";
  EXPECT_NE(r.out.find("wakeup_latency"), std::string::npos) << "the table is still printed";
  expect_machine_nodes_intact();
}

TEST(OutputTargets, FifoReaderGetsTheWholeJsonOnce) {
  TempDir dir;
  FifoReader json(dir.file("r.fifo")), junit(dir.file("junit.fifo"));
  const auto r =
      run_rtgate(short_run({"-o", dir.file("r.fifo"), "--junit", dir.file("junit.fifo")}));
  const std::string got = json.finish(), xml = junit.finish();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(node_type(dir.file("r.fifo")), 'p') << "the FIFO was replaced";
  EXPECT_EQ(node_type(dir.file("junit.fifo")), 'p') << "the FIFO was replaced";
  // One document (not one per save), the final one.
  EXPECT_TRUE(complete_result(got)) << got.substr(0, 200);
  EXPECT_NE(xml.find("<testsuites"), std::string::npos) << xml.substr(0, 200);
}

TEST(OutputTargets, StdoutAsDashOrFdPathGetsOnlyTheJson) {
  for (const char* target : {"-", "/proc/self/fd/1"}) {
    const auto r = run_rtgate(short_run({"-o", target}));
    EXPECT_EQ(r.exit_code, 0) << target << ": " << r.err;
    EXPECT_TRUE(complete_result(r.out)) << target << ": " << r.out.substr(0, 200);
    EXPECT_NE(r.err.find("wakeup_latency"), std::string::npos)
        << target << ": the table goes to stderr when stdout is the JSON";
  }
  EXPECT_FALSE(std::filesystem::exists("-")) << "no file named '-'";
  expect_machine_nodes_intact();
}

TEST(OutputTargets, FullDeviceIsAOneLineErrorAndNonZeroExit) {
  if (geteuid() != 0) GTEST_SKIP() << "mknod needs root";
  TempDir dir;
  ASSERT_EQ(make_char_device(dir.file("full"), 1, 7), "");  // /dev/full's numbers
  const auto r = run_rtgate(short_run({"-o", dir.file("full")}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(single_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(dir.file("full")), std::string::npos) << r.err;
  EXPECT_TRUE(is_char_device(dir.file("full"), 1, 7));
  EXPECT_NE(r.out.find("wakeup_latency"), std::string::npos) << "the table is still printed";
}

TEST(OutputTargets, BlockDeviceIsRefusedBeforeRunning) {
  if (geteuid() != 0) GTEST_SKIP() << "mknod needs root";
  TempDir dir;
  // A block device node nobody has (major 7 is loop; minor 250 is unlikely to be set up, and
  // is never opened: the refusal comes from its type).
  ASSERT_EQ(mknod(dir.file("blk").c_str(), S_IFBLK | 0600, makedev(7, 250)), 0);
  const auto r = run_rtgate({"run", "cyclic", "--duration", "30", "-o", dir.file("blk")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(single_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("block device"), std::string::npos) << r.err;
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_EQ(node_type(dir.file("blk")), 'b');
}

}  // namespace
}  // namespace rtgate::test
