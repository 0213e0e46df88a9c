#include "framework/rt/cpu_list.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

namespace rtgate::rt {
namespace {

using Cpus = std::vector<int>;
using text::format_cpu_list;
using text::parse_cpu_list;

TEST(CpuListTest, ParsesSinglesRangesAndMixes) {
  EXPECT_EQ(parse_cpu_list("0"), Cpus({0}));
  EXPECT_EQ(parse_cpu_list("7"), Cpus({7}));
  EXPECT_EQ(parse_cpu_list("0-3"), Cpus({0, 1, 2, 3}));
  EXPECT_EQ(parse_cpu_list("0-3,5,7-8"), Cpus({0, 1, 2, 3, 5, 7, 8}));
  EXPECT_EQ(parse_cpu_list("2-2"), Cpus({2}));
  EXPECT_EQ(parse_cpu_list("12,10"), Cpus({10, 12}));
  EXPECT_EQ(parse_cpu_list("1,1,0-2"), Cpus({0, 1, 2}));
  EXPECT_EQ(parse_cpu_list("127"), Cpus({127}));
}

TEST(CpuListTest, ToleratesSysfsWhitespace) {
  EXPECT_EQ(parse_cpu_list("0-1\n"), Cpus({0, 1}));
  EXPECT_EQ(parse_cpu_list("3 \n"), Cpus({3}));
  EXPECT_EQ(parse_cpu_list("1,3\r\n"), Cpus({1, 3}));
}

TEST(CpuListTest, RejectsMalformedInput) {
  const std::vector<std::string> bad = {
      "",     " ",   "\n",  "1-",  "-1",    "-",       "a",           "1a",         "a1",   "3-1",
      "1,,2", ",1",  "1,",  ",",   "1-2-3", "1 2",     "1, 2",        "1 ,2",       "1- 2", "0x1",
      "+1",   "1.5", "1-a", "--1", "1:2",   "0-7:2/4", "99999999999", "0-100000000"};
  for (const auto& text : bad) {
    EXPECT_EQ(parse_cpu_list(text), std::nullopt) << "input: '" << text << "'";
  }
}

TEST(CpuListTest, FormatsCompressedRuns) {
  EXPECT_EQ(format_cpu_list({}), "");
  EXPECT_EQ(format_cpu_list({0}), "0");
  EXPECT_EQ(format_cpu_list({0, 1, 2, 5}), "0-2,5");
  EXPECT_EQ(format_cpu_list({0, 1}), "0-1");
  EXPECT_EQ(format_cpu_list({5, 0, 2, 1}), "0-2,5");
  EXPECT_EQ(format_cpu_list({3, 3, 4}), "3-4");
  EXPECT_EQ(format_cpu_list({1, 3, 5}), "1,3,5");
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 5, 7, 8}), "0-3,5,7-8");
}

TEST(CpuListTest, RoundTrips) {
  for (const char* text : {"0", "0-3", "0-3,5,7-8", "1,3,5", "0-1,4-7,9,11-63", "100-101"}) {
    const auto cpus = parse_cpu_list(text);
    ASSERT_TRUE(cpus.has_value()) << text;
    EXPECT_EQ(format_cpu_list(*cpus), text);
  }
  for (const Cpus& cpus : {Cpus{0}, Cpus{0, 2, 3, 4, 9}, Cpus{1, 2}, Cpus{0, 1, 2, 3, 4, 5, 6}}) {
    EXPECT_EQ(parse_cpu_list(format_cpu_list(cpus)), cpus);
  }
}

// Found by fuzzing (tests/fuzz/fuzz_cpu_list.cpp): every repetition of a range was expanded before
// the duplicates went, so 2000 x "0-65535" (16 KB of --cpus) built and sorted 131 million ints
// (half a gigabyte, seconds); a 128 KiB argument, gigabytes.
TEST(CpuListTest, RepeatedRangesDoNotMultiplyTheWork) {
  std::string text = "0-65535";
  for (int i = 1; i < 2000; ++i) text += ",0-65535";
  const auto start = std::chrono::steady_clock::now();
  const auto cpus = parse_cpu_list(text);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(cpus);
  EXPECT_EQ(cpus->size(), 65536u);
  EXPECT_EQ(cpus->back(), 65535);
  EXPECT_LT(seconds, 1.0);
  EXPECT_EQ(parse_cpu_list("5-7,0-2,1-6,9"), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 9}));
}

TEST(CpuListTest, OnlineCpusMatchSysfsAndSysconf) {
  const Cpus online = online_cpus();
  EXPECT_EQ(static_cast<long>(online.size()), sysconf(_SC_NPROCESSORS_ONLN));
  std::ifstream in("/sys/devices/system/cpu/online");
  std::string text;
  ASSERT_TRUE(std::getline(in, text));
  EXPECT_EQ(format_cpu_list(online), text);
}

TEST(CpuListTest, AllowedCpusFollowTheAffinityMask) {
  const Cpus initial = allowed_cpus();
  ASSERT_FALSE(initial.empty());
  EXPECT_EQ(static_cast<int>(initial.size()), [] {
    cpu_set_t set;
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof(set), &set);
    return CPU_COUNT(&set);
  }());
  // Narrow this thread to one CPU and back; allowed_cpus() must see the narrowed mask.
  cpu_set_t original;
  ASSERT_EQ(sched_getaffinity(0, sizeof(original), &original), 0);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(initial.back(), &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  const Cpus narrowed = allowed_cpus();
  ASSERT_EQ(sched_setaffinity(0, sizeof(original), &original), 0);
  EXPECT_EQ(narrowed, Cpus({initial.back()}));
  EXPECT_EQ(allowed_cpus(), initial);
}

TEST(CpuList, SelectCpusKeepsToTheUsableOnes) {
  std::string why;
  EXPECT_EQ(select_cpus("all", {0, 1, 3}, &why), (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(select_cpus("1,3", {0, 1, 3}, &why), (std::vector<int>{1, 3}));
  EXPECT_FALSE(select_cpus("2", {0, 1, 3}, &why));
  EXPECT_EQ(why, "CPU 2 is not available (usable: 0-1,3)");
  EXPECT_FALSE(select_cpus("1-", {0, 1}, &why));
}

}  // namespace
}  // namespace rtgate::rt
