// The watchdog on its own: it fires for a stalled counter even while a lower-priority thread holds
// the lock that registering a counter takes (the case it exists for: a runaway FIFO spinner that
// preempted such a holder), and its reason is readable once it fired.
#include "framework/watchdog.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace rtgate {
namespace {

TEST(Watchdog, FiresWhileTheRegistrationLockIsHeld) {
  std::atomic<bool> stop{false};
  RunContext ctx(10, {0}, stop);
  ctx.track("stalled");
  auto held = ctx.hold_registration_for_test();  // as a preempted SCHED_OTHER registrant would
  Watchdog dog(ctx, 0.3, 0.5);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!dog.fired() && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(dog.fired()) << "the watchdog waited on the registration lock";
  EXPECT_TRUE(stop.load());
  EXPECT_NE(dog.reason().find("'stalled'"), std::string::npos) << dog.reason();
}

TEST(Watchdog, AProgressingCounterDoesNotFire) {
  std::atomic<bool> stop{false};
  RunContext ctx(10, {0}, stop);
  LiveStats& live = ctx.track("ticking");
  Watchdog dog(ctx, 0.3, 0.5);
  for (int i = 0; i < 40; ++i) {
    live.publish(static_cast<std::uint64_t>(i + 1), 1000);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(dog.fired());
  EXPECT_EQ(dog.reason(), "");
}

}  // namespace
}  // namespace rtgate
