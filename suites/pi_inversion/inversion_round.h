// What one round of the inversion scenario says about the kernel's priority inheritance, once the
// time the kernel under test did not take is set aside.
//
// High's wait is low's critical section plus low's wakeup and high's own. Of that, the host's
// part inside low's section is known exactly from low's own clocks (thread_times.h) and is
// subtracted. What remains over the bound is the kernel's, unless the CPU's steal over the round
// (coarser: outside low's section it cannot be placed) could cover it: such a round is not
// judged, and counted apart. Mid running while high waited is PI failing whatever the host did:
// the scheduler picks mid only if low was not boosted above it. Where the CPU's steal cannot be
// seen at all (a guest whose hypervisor publishes none), time outside low's section over the bound
// is not judged either, and inside the section the host's time is what low's busy loop did not
// run beyond its run delay (on such a guest the CPU clock runs on while the vCPU is off).
#pragma once

#include <cstdint>
#include <string>

#include "suites/pi_inversion/inversion_scenario.h"

namespace rtgate::rt {

enum class RoundCall {
  kBounded,    // high's wait, less the host's part, is under the bound
  kHost,       // over it, but the host's steal on that CPU could explain it: not judged
  kInversion,  // mid ran while high waited: the holder was not boosted
  kPreempted,  // low was kept off its CPU by another task while holding the lock
  kOverBound,  // over the bound, and nothing outside the kernel explains it
};

struct RoundJudgement {
  RoundCall call = RoundCall::kBounded;
  std::int64_t host_ns = 0;  // the host's time subtracted or suspected in this round
  std::string why;           // for the failing and unjudged calls
};

// `bound_ns`: the longest wait PI allows. `cpu_steal_ns`: the scenario CPU's steal over the
// whole round, -1 when it cannot be seen.
RoundJudgement judge_pi_round(const InversionResult& r, std::int64_t bound_ns,
                              std::int64_t cpu_steal_ns);

inline bool failing(RoundCall c) {
  return c == RoundCall::kInversion || c == RoundCall::kPreempted || c == RoundCall::kOverBound;
}

}  // namespace rtgate::rt
