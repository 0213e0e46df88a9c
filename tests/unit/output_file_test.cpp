// write_output / check_output on every kind of node an output path can name. Device nodes and
// FIFOs are the test's own, in a temp dir; the machine's /dev/null is checked, never written.
#include "base/io/output_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <thread>
#include <vector>

#include "base/io/atomic_file.h"

namespace rtgate {
namespace {

namespace fs = std::filesystem;

class OutputFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/rtgate-output-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
    struct stat st {};
    ASSERT_EQ(stat("/dev/null", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null is no longer a device";
  }
  std::string file(const std::string& name) const { return dir_ + "/" + name; }
  static std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  std::size_t entries() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir_), {}));
  }
  std::string dir_;
};

TEST_F(OutputFile, RegularFileIsReplacedWholeKeepingItsMode) {
  std::ofstream(file("r.json")) << "old";
  chmod(file("r.json").c_str(), 0600);
  EXPECT_EQ(write_output(file("r.json"), "new content"), "");
  EXPECT_EQ(read(file("r.json")), "new content");
  struct stat st {};
  ASSERT_EQ(stat(file("r.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(entries(), 1u) << "no temp file left";
}

TEST_F(OutputFile, PiecesAreWrittenInOrderToAFileAndAFifo) {
  // Empty pieces and a piece larger than a pipe's buffer (64 KiB): short writes resume.
  const std::string big(200'000, 'x');
  const std::vector<std::string_view> pieces = {"a", "", big, "bc", ""};
  const std::string whole = "a" + big + "bc";
  std::ofstream(file("r.prom")) << "old";
  EXPECT_EQ(write_output(file("r.prom"), pieces), "");
  EXPECT_EQ(read(file("r.prom")), whole);
  EXPECT_EQ(entries(), 1u) << "no temp file left";
  ASSERT_EQ(mkfifo(file("f").c_str(), 0666), 0);
  std::string got;
  std::thread reader([&] { got = read(file("f")); });
  EXPECT_EQ(write_output(file("f"), pieces), "");
  reader.join();
  EXPECT_EQ(got, whole);
}

TEST_F(OutputFile, SymlinkChainIsFollowedAndKept) {
  std::ofstream(file("real.json")) << "old";
  fs::create_symlink("real.json", file("a"));
  fs::create_symlink(file("a"), file("b"));  // absolute, to a relative one
  EXPECT_EQ(resolve_output(file("b")).path, fs::canonical(file("real.json")).string());
  EXPECT_EQ(write_output(file("b"), "new"), "");
  EXPECT_TRUE(fs::is_symlink(file("a")));
  EXPECT_TRUE(fs::is_symlink(file("b")));
  EXPECT_EQ(read(file("real.json")), "new");
  EXPECT_EQ(entries(), 3u);
}

TEST_F(OutputFile, DanglingSymlinkCreatesItsTarget) {
  fs::create_symlink("later.json", file("link"));
  EXPECT_EQ(check_output(file("link")), "");
  EXPECT_EQ(write_output(file("link"), "x"), "");
  EXPECT_TRUE(fs::is_symlink(file("link")));
  EXPECT_EQ(read(file("later.json")), "x");
}

TEST_F(OutputFile, SymlinkLoopIsAnError) {
  fs::create_symlink("l2", file("l1"));
  fs::create_symlink("l1", file("l2"));
  EXPECT_NE(write_output(file("l1"), "x"), "");
  EXPECT_TRUE(fs::is_symlink(file("l1")));
}

TEST_F(OutputFile, CharDeviceIsWrittenToNotReplaced) {
  if (geteuid() != 0) GTEST_SKIP() << "mknod needs root";
  ASSERT_EQ(mknod(file("null").c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  EXPECT_TRUE(output_is_stream(file("null")));
  EXPECT_EQ(check_output(file("null")), "");
  EXPECT_EQ(write_output(file("null"), "gone"), "");
  struct stat st {};
  ASSERT_EQ(stat(file("null").c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(entries(), 1u);
}

TEST_F(OutputFile, FullDeviceIsAOneLineErrorNamingThePath) {
  if (geteuid() != 0) GTEST_SKIP() << "mknod needs root";
  ASSERT_EQ(mknod(file("full").c_str(), S_IFCHR | 0666, makedev(1, 7)), 0);
  const std::string why = write_output(file("full"), "data");
  EXPECT_EQ(why, "cannot write '" + file("full") + "': No space left on device");
}

TEST_F(OutputFile, FifoIsCheckedWithoutOpeningAndStreamedToItsReader) {
  ASSERT_EQ(mkfifo(file("f").c_str(), 0666), 0);
  // No reader yet: a check that opened it would block or fail (ENXIO), or give a reader EOF.
  EXPECT_EQ(check_output(file("f")), "");
  const int rd = open(file("f").c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(rd, 0);
  EXPECT_EQ(write_output(file("f"), "through the pipe"), "");
  char buf[64] = {};
  EXPECT_EQ(::read(rd, buf, sizeof buf), 16);
  EXPECT_EQ(std::string(buf), "through the pipe");
  close(rd);
  struct stat st {};
  ASSERT_EQ(lstat(file("f").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST_F(OutputFile, DashAndStdoutsOwnFileGoToFdOne) {
  const int saved = dup(STDOUT_FILENO);
  const int out = open(file("captured").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(out, 0);
  std::fflush(stdout);
  dup2(out, STDOUT_FILENO);
  EXPECT_TRUE(output_is_stdout("-"));
  EXPECT_TRUE(output_is_stdout("/proc/self/fd/1"));
  EXPECT_TRUE(output_is_stdout(file("captured")));
  const std::string a = write_output("-", "one\n");
  const std::string b = write_output("/proc/self/fd/1", "two\n");
  const std::string c = write_output(file("captured"), "three\n");
  dup2(saved, STDOUT_FILENO);
  close(saved);
  close(out);
  EXPECT_EQ(a + b + c, "");
  EXPECT_EQ(read(file("captured")), "one\ntwo\nthree\n") << "appended through fd 1, not replaced";
  EXPECT_FALSE(output_is_stdout(file("captured")));
}

TEST_F(OutputFile, DirectoryBlockDeviceAndMissingDirectoryAreRefused) {
  EXPECT_EQ(check_output(dir_), "'" + dir_ + "' is a directory");
  EXPECT_NE(check_output(file("no/such/dir.json")).find("No such file or directory"),
            std::string::npos);
  EXPECT_EQ(entries(), 0u) << "the check leaves nothing behind";
  if (geteuid() != 0) return;
  ASSERT_EQ(mknod(file("blk").c_str(), S_IFBLK | 0600, makedev(7, 250)), 0);
  EXPECT_NE(check_output(file("blk")).find("block device"), std::string::npos);
  EXPECT_NE(write_output(file("blk"), "x").find("block device"), std::string::npos);
}

TEST_F(OutputFile, FailedAtomicWriteKeepsTheOldFileAndNoTemp) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes into a read-only directory";
  std::ofstream(file("r.json")) << "old";
  chmod(dir_.c_str(), 0555);
  EXPECT_NE(write_file_atomically(file("r.json"), "new"), "");
  chmod(dir_.c_str(), 0755);
  EXPECT_EQ(read(file("r.json")), "old");
  EXPECT_EQ(entries(), 1u);
}

// Another user's plants at every name the writer used to predict (OUT.tmp.<pid>): a hard link to
// their file, a FIFO, a symlink. The result lands whole at OUT, and none of them is touched.
TEST_F(OutputFile, NamesPlantedBesideTheTargetAreNeverOpened) {
  std::ofstream(file("victim")) << "theirs";
  chmod(file("victim").c_str(), 0600);
  const std::string tmp = file("r.json.tmp." + std::to_string(getpid()));
  ASSERT_EQ(link(file("victim").c_str(), tmp.c_str()), 0);
  EXPECT_EQ(write_output(file("r.json"), "result"), "");
  EXPECT_EQ(read(file("r.json")), "result");
  EXPECT_EQ(read(file("victim")), "theirs");
  struct stat st {};
  ASSERT_EQ(stat(file("victim").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u) << "the linked file's mode is never widened";
  EXPECT_EQ(st.st_nlink, 2u);
  ASSERT_EQ(unlink(tmp.c_str()), 0);
  ASSERT_EQ(mkfifo(tmp.c_str(), 0666), 0);  // opened blocking, it would hang the writer
  EXPECT_EQ(write_output(file("r.json"), "second"), "");
  ASSERT_EQ(unlink(tmp.c_str()), 0);
  ASSERT_EQ(symlink(file("victim").c_str(), tmp.c_str()), 0);
  EXPECT_EQ(write_output(file("r.json"), "third"), "");
  EXPECT_EQ(read(file("r.json")), "third");
  EXPECT_EQ(read(file("victim")), "theirs");
  EXPECT_EQ(entries(), 3u) << "victim, r.json and the plant: no temp left";
}

// Two writers of one path at once (two runs with the same -o): each rename is whole.
TEST_F(OutputFile, ConcurrentWritersOfOnePathNeverMix) {
  const std::string a(300'000, 'a');
  const std::string b(300'000, 'b');
  std::thread other([&] {
    for (int i = 0; i < 20; ++i) EXPECT_EQ(write_output(file("r.json"), a), "");
  });
  for (int i = 0; i < 20; ++i) EXPECT_EQ(write_output(file("r.json"), b), "");
  other.join();
  const std::string got = read(file("r.json"));
  EXPECT_TRUE(got == a || got == b);
  EXPECT_EQ(entries(), 1u);
}

// A FIFO with no reader at the target: after a bounded wait the content goes to a new file
// beside it, and the message names that file.
TEST_F(OutputFile, FifoWithoutReaderCostsNothingButAFileBesideIt) {
  ASSERT_EQ(mkfifo(file("r.json").c_str(), 0666), 0);
  const auto t0 = std::chrono::steady_clock::now();
  const std::string why = write_output(file("r.json"), "kept");
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GT(secs, 1.5);
  EXPECT_LT(secs, 10.0);
  const std::string tail = "' instead";
  ASSERT_NE(why.find("nobody read"), std::string::npos) << why;
  const std::size_t at = why.rfind(" to '");
  ASSERT_NE(at, std::string::npos);
  const std::string other = why.substr(at + 5, why.size() - at - 5 - tail.size());
  EXPECT_EQ(other.rfind(file("r.json."), 0), 0u) << other;
  EXPECT_EQ(read(other), "kept");
}

}  // namespace
}  // namespace rtgate
