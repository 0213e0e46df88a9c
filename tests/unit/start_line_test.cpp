// StartLine: the common start is fixed after the last thread arrived, however late it was created,
// abandon() lets the others through when one never comes, and prepare_and_wait() runs each
// thread's own set-up on that thread (first touch: its NUMA node) before the start is fixed.
#include "framework/measure/start_line.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>

namespace rtgate {
namespace {

TEST(StartLine, TheStartFollowsTheLastArrivalNotTheFirstCreation) {
  constexpr int kThreads = 3;
  StartLine start_line(kThreads, 1'000'000);
  std::vector<std::int64_t> starts(kThreads);
  std::vector<std::thread> threads;
  std::int64_t last_created = 0;
  for (int i = 0; i < kThreads; ++i) {
    // A slow creation (as under load): 30 ms between threads, more than any fixed lead.
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    last_created = monotonic_ns();
    threads.emplace_back(
        [&, i] { starts[static_cast<std::size_t>(i)] = start_line.arrive_and_wait(); });
  }
  for (auto& t : threads) t.join();
  for (std::int64_t s : starts) {
    EXPECT_EQ(s, starts[0]) << "one common start";
    EXPECT_GT(s, last_created) << "ahead of the last thread's creation";
  }
}

TEST(StartLine, AbandonReleasesTheThreadsThatArrived) {
  StartLine start_line(3, 0);
  std::int64_t start = 0;
  std::thread t([&] { start = start_line.arrive_and_wait(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  start_line.abandon(2);
  t.join();
  EXPECT_GT(start, 0);
}

TEST(StartLine, EachThreadPreparesItsOwnStateBeforeTheStartIsFixed) {
  constexpr int kThreads = 2;
  StartLine start_line(kThreads, 0);
  std::vector<pid_t> runner(kThreads), preparer(kThreads);
  std::vector<std::int64_t> prepared_at(kThreads), starts(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      const auto k = static_cast<std::size_t>(i);
      runner[k] = gettid();
      starts[k] = start_line.prepare_and_wait([&] {
        preparer[k] = gettid();
        std::this_thread::sleep_for(std::chrono::milliseconds(20 * (i + 1)));
        prepared_at[k] = monotonic_ns();
      });
    });
  }
  for (auto& t : threads) t.join();
  for (std::size_t k = 0; k < kThreads; ++k) {
    EXPECT_EQ(preparer[k], runner[k]) << "the set-up runs on the thread that measures";
    EXPECT_GE(starts[k], prepared_at[0]);
    EXPECT_GE(starts[k], prepared_at[1]) << "the start waits for the slowest set-up";
  }
}

TEST(StartLine, AFailedSetUpDropsOutAndLetsTheOthersStart) {
  StartLine start_line(2, 0);
  std::int64_t start = 0;
  std::thread ok([&] { start = start_line.prepare_and_wait([] {}); });
  bool propagated = false;
  std::thread failing([&] {
    try {
      start_line.prepare_and_wait([] { throw std::bad_alloc(); });
    } catch (const std::bad_alloc&) {
      propagated = true;
    }
  });
  failing.join();
  ok.join();  // would hang forever if the failed thread still counted
  EXPECT_TRUE(propagated);
  EXPECT_GT(start, 0);
}

}  // namespace
}  // namespace rtgate
