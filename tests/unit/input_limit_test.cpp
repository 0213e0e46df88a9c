// The bound on what rtgate reads from a file somebody else wrote.
#include "base/io/input_limit.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

namespace rtgate::io {
namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char t[] = "/tmp/rtgate-input-limit.XXXXXX";
    path = mkdtemp(t);
  }
  ~TempDir() { std::system(("rm -rf " + path).c_str()); }
};

TEST(InputLimit, AFileUpToTheLimitIsReadWholeAndOnePastItIsRefused) {
  TempDir d;
  const std::string f = d.path + "/f";
  std::ofstream(f) << std::string(1000, 'a');
  std::string why;
  bool too_big = true;
  const auto whole = read_bounded(f, 1000, &why, &too_big);
  ASSERT_TRUE(whole.has_value()) << why;
  EXPECT_EQ(whole->size(), 1000u);
  EXPECT_FALSE(too_big);
  EXPECT_FALSE(read_bounded(f, 999, &why, &too_big).has_value());
  EXPECT_TRUE(too_big);
  EXPECT_EQ(why, "larger than 999 bytes");
  EXPECT_FALSE(read_bounded(d.path + "/missing", 1000, &why, &too_big).has_value());
  EXPECT_FALSE(too_big);
  EXPECT_EQ(why, "No such file or directory");
}

// A pipe's size is unknown until its end: the bound holds on what was read, not on a size.
TEST(InputLimit, APipeIsCutAtTheLimitAndAnIdleFifoReadsEmpty) {
  TempDir d;
  const std::string fifo = d.path + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string why;
  const auto t0 = std::chrono::steady_clock::now();
  const auto empty = read_bounded(fifo, 1 << 20, &why);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  ASSERT_TRUE(empty.has_value()) << why;
  EXPECT_TRUE(empty->empty());
  const auto endless = read_bounded("/dev/zero", 3 << 20, &why);
  EXPECT_FALSE(endless.has_value());
  EXPECT_EQ(why, "larger than 3 MiB");
}

TEST(InputLimit, SetTakesOverTheDefaultAndZeroGivesItBack) {
  const std::size_t before = max_input_bytes();
  set_max_input_mib(7);
  EXPECT_EQ(max_input_bytes(), std::size_t{7} << 20);
  set_max_input_mib(kMaxInputMiB + 1);
  EXPECT_EQ(max_input_bytes(), std::size_t{7} << 20) << "past the ceiling is ignored";
  set_max_input_mib(0);
  EXPECT_EQ(max_input_bytes(), before);
}

}  // namespace
}  // namespace rtgate::io
