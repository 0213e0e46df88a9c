// judge_pi_round on constructed rounds: what is subtracted, what is set aside, what fails.
#include "suites/pi_inversion/inversion_round.h"

#include <gtest/gtest.h>

#include "framework/env/cpu_steal.h"

namespace rtgate::rt {
namespace {

using rtgate::steal_invisible_because;

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kBound = 15 * kMs;

// A contended round: high waited `wait`, low's section took `wall` for 5 ms of CPU, of which
// `preempted` it waited on the runqueue and `host` the host took.
InversionResult round(std::int64_t wait, std::int64_t wall, std::int64_t preempted,
                      std::int64_t host) {
  InversionResult r;
  r.contended = true;
  r.high_wait_ns = wait;
  r.low_window = {
      .wall_ns = wall, .cpu_ns = 5 * kMs, .preempted_ns = preempted, .unaccounted_ns = host};
  return r;
}

TEST(InversionRound, AWaitUnderTheBoundIsBounded) {
  const RoundJudgement j = judge_pi_round(round(5 * kMs, 5 * kMs, 0, 0), kBound, 0);
  EXPECT_EQ(j.call, RoundCall::kBounded);
  EXPECT_EQ(j.host_ns, 0);
}

TEST(InversionRound, TheHostsTimeInsideLowsSectionIsSubtractedExactly) {
  // 47 ms: the host took 42 ms of low's section; 5 ms remain, the kernel's.
  const RoundJudgement j = judge_pi_round(round(47 * kMs, 47 * kMs, 0, 42 * kMs), kBound, -1);
  EXPECT_EQ(j.call, RoundCall::kBounded);
  EXPECT_EQ(j.host_ns, 42 * kMs);
  // The same wait with only 20 ms of it the host's is over the bound: nothing else explains it.
  EXPECT_EQ(judge_pi_round(round(47 * kMs, 47 * kMs, 0, 20 * kMs), kBound, -1).call,
            RoundCall::kOverBound);
}

TEST(InversionRound, StealOutsideLowsSectionMakesTheRoundUnjudged) {
  // High waited 40 ms; low's section took 5 ms; the CPU lost 40 ms to the host in the round.
  const RoundJudgement j = judge_pi_round(round(40 * kMs, 5 * kMs, 0, 0), kBound, 40 * kMs);
  EXPECT_EQ(j.call, RoundCall::kHost);
  EXPECT_FALSE(failing(j.call));
  EXPECT_NE(j.why.find("host"), std::string::npos);
  // Without that steal the same round is the kernel's.
  EXPECT_EQ(judge_pi_round(round(40 * kMs, 5 * kMs, 0, 0), kBound, 0).call, RoundCall::kOverBound);
  // Steal that low's section already accounts for is not counted twice: of 30 ms on the CPU, low's
  // clocks placed all 30 inside its section, so the 15 ms outside it are the kernel's.
  EXPECT_EQ(judge_pi_round(round(50 * kMs, 35 * kMs, 0, 30 * kMs), kBound, 30 * kMs).call,
            RoundCall::kOverBound);
}

TEST(InversionRound, OnAGuestThatCannotSeeItsStealOnlyLowsSectionIsJudged) {
  // The lab's TCG guest: high waited 38.7 ms, low's section 5 ms of its own CPU; 33 ms lie
  // outside the section, where the host may have had the vCPU unseen.
  const RoundJudgement j = judge_pi_round(round(38'700'000, 5 * kMs, 0, 0), kBound, -1);
  EXPECT_EQ(j.call, RoundCall::kHost);
  EXPECT_NE(j.why.find("cannot be seen"), std::string::npos);
  // The section itself keeps its teeth there: another task inside it still fails the round.
  EXPECT_EQ(judge_pi_round(round(45 * kMs, 45 * kMs, 40 * kMs, 0), kBound, -1).call,
            RoundCall::kPreempted);
}

TEST(InversionRound, OnAGuestThatCannotSeeItsStealTheSectionLoopsGapsAreTheHosts) {
  // The lab's TCG guest under a loaded host: low's section took 15.7 ms of wall and, by its CPU
  // clock, of CPU too; its loop did not run for 10.7 ms of that, with no run delay.
  InversionResult r = round(16'100'000, 15'700'000, 0, 0);
  r.low_window.cpu_ns = 15'700'000;
  r.low_gaps_ns = 10'700'000;
  const RoundJudgement j = judge_pi_round(r, kBound, -1);
  EXPECT_EQ(j.call, RoundCall::kBounded);
  EXPECT_EQ(j.host_ns, 10'700'000);
  // Where steal is visible the CPU clock leaves it out, so gaps are the guest's (IRQs): judged.
  EXPECT_EQ(judge_pi_round(r, kBound, 0).call, RoundCall::kOverBound);
  // Gaps that are another task's turn on the CPU (run delay) are not the host's: still a failure.
  r.low_window.preempted_ns = 10'700'000;
  EXPECT_EQ(judge_pi_round(r, kBound, -1).call, RoundCall::kPreempted);
}

TEST(StealVisibility, AGuestWithoutPublishedStealIsUnknownNotZero) {
  EXPECT_EQ(steal_invisible_because(false, false, false), "");  // bare metal: none to see
  EXPECT_EQ(steal_invisible_because(true, true, false), "");    // KVM steal time
  EXPECT_EQ(steal_invisible_because(true, false, true), "");    // some counted since boot
  EXPECT_NE(steal_invisible_because(true, false, false).find("unknown"), std::string::npos);
}

TEST(InversionRound, StealCannotExcuseTimeInsideLowsSectionThatAnotherTaskTook) {
  // Low's section took 45 ms: 40 of them another task ran. The round's steal (30 ms, placed
  // nowhere) cannot cover time that lies inside low's section.
  const RoundJudgement j = judge_pi_round(round(45 * kMs, 45 * kMs, 40 * kMs, 0), kBound, 30 * kMs);
  EXPECT_EQ(j.call, RoundCall::kPreempted);
  EXPECT_TRUE(failing(j.call));
  EXPECT_NE(j.why.find("kept off its CPU"), std::string::npos);
}

TEST(InversionRound, MidRunningWhileHighWaitedFailsWhateverTheHostDid) {
  InversionResult r = round(6 * kMs, 5 * kMs, 0, 1 * kMs);
  r.mid_ran_while_high_waited = true;
  const RoundJudgement j = judge_pi_round(r, kBound, 100 * kMs);
  EXPECT_EQ(j.call, RoundCall::kInversion);
  EXPECT_TRUE(failing(j.call));
}

}  // namespace
}  // namespace rtgate::rt
