// StartGate: the common start is fixed after the last thread arrived, however late it was created,
// and abandon() lets the others through when one never comes.
#include "framework/measure/start_gate.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

namespace rtgate {
namespace {

TEST(StartGate, TheStartFollowsTheLastArrivalNotTheFirstCreation) {
  constexpr int kThreads = 3;
  StartGate gate(kThreads, 1'000'000);
  std::vector<std::int64_t> starts(kThreads);
  std::vector<std::thread> threads;
  std::int64_t last_created = 0;
  for (int i = 0; i < kThreads; ++i) {
    // A slow creation (as under load): 30 ms between threads, more than any fixed lead.
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    last_created = monotonic_ns();
    threads.emplace_back([&, i] { starts[static_cast<std::size_t>(i)] = gate.arrive_and_wait(); });
  }
  for (auto& t : threads) t.join();
  for (std::int64_t s : starts) {
    EXPECT_EQ(s, starts[0]) << "one common start";
    EXPECT_GT(s, last_created) << "ahead of the last thread's creation";
  }
}

TEST(StartGate, AbandonReleasesTheThreadsThatArrived) {
  StartGate gate(3, 0);
  std::int64_t start = 0;
  std::thread t([&] { start = gate.arrive_and_wait(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  gate.abandon(2);
  t.join();
  EXPECT_GT(start, 0);
}

}  // namespace
}  // namespace rtgate
