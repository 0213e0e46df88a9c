// WakeupChannel: every mechanism carries its value from one thread to another, and a wait with
// nothing sent ends at its timeout.
#include "suites/ipc_wakeup/wakeup_channel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "framework/measure/clock.h"

namespace rtgate {
namespace {

TEST(WakeupChannel, NamesRoundTrip) {
  ASSERT_EQ(all_wakeup_vias().size(), 7u);
  for (WakeupVia via : all_wakeup_vias()) EXPECT_EQ(wakeup_via_from(to_string(via)), via);
  EXPECT_FALSE(wakeup_via_from("posix_mq"));
  EXPECT_FALSE(wakeup_via_from(""));
}

TEST(WakeupChannel, EveryMechanismCarriesTheValueToAnotherThread) {
  for (WakeupVia via : all_wakeup_vias()) {
    const auto ch = make_wakeup_channel(via);
    std::atomic<bool> bound{false};
    WakeupChannel::Wait got = WakeupChannel::Wait::kError;
    std::uint64_t first = 0, second = 0;
    int err = 0;
    std::thread receiver([&] {
      ch->bind_receiver();
      bound.store(true);
      got = ch->wait(5'000'000'000, &first, &err);
      if (got == WakeupChannel::Wait::kMessage) got = ch->wait(5'000'000'000, &second, &err);
    });
    while (!bound.load()) std::this_thread::yield();
    // The receiver may not be asleep yet: either way the message must reach it.
    EXPECT_EQ(ch->send(0x1234'5678'9abc'def0), 0) << to_string(via);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // now it sleeps
    EXPECT_EQ(ch->send(42), 0) << to_string(via);
    receiver.join();
    EXPECT_EQ(got, WakeupChannel::Wait::kMessage) << to_string(via) << " errno " << err;
    EXPECT_EQ(first, 0x1234'5678'9abc'def0u) << to_string(via);
    EXPECT_EQ(second, 42u) << to_string(via);
  }
}

TEST(WakeupChannel, AWaitWithNothingSentEndsAtItsTimeout) {
  for (WakeupVia via : all_wakeup_vias()) {
    const auto ch = make_wakeup_channel(via);
    WakeupChannel::Wait got = WakeupChannel::Wait::kMessage;
    std::int64_t took = 0;
    std::thread receiver([&] {
      ch->bind_receiver();
      std::uint64_t value = 0;
      int err = 0;
      const std::int64_t t0 = monotonic_ns();
      got = ch->wait(20'000'000, &value, &err);
      took = monotonic_ns() - t0;
    });
    receiver.join();
    EXPECT_EQ(got, WakeupChannel::Wait::kTimeout) << to_string(via);
    // Never early; late by scheduling only (a second would be a wait that ignores its bound).
    EXPECT_GE(took, 20'000'000) << to_string(via);
    EXPECT_LT(took, 1'000'000'000) << to_string(via);
  }
}

}  // namespace
}  // namespace rtgate
